// With its extension: the fake Stripe of the tests reads this table in Node too.
import type { Plan } from "../accounts/plans.ts";

// What the dashboard sells: the operator's one table of credit packs and plans. Each row names
// the Stripe price (created in the operator's Stripe dashboard, test or live mode) that Checkout
// charges; `amount` and `currency` repeat that price for display only. Credits always come from
// this table: a webhook naming a price that is not here grants nothing (docs/billing.md).

export interface CreditPack {
  id: string;
  name: string;
  credits: number;
  priceId: string;
  /** In the currency's smallest unit (cents), as the Stripe price says. */
  amount: number;
  currency: string;
}

export interface PlanOffer {
  plan: Exclude<Plan, "free">;
  name: string;
  /** Granted by each paid invoice (each month's period). */
  monthlyCredits: number;
  priceId: string;
  amount: number;
  currency: string;
}

export const CREDIT_PACKS: readonly CreditPack[] = [
  { id: "pack_500", name: "500 credits", credits: 500, priceId: "price_pixelgate_pack_500", amount: 500, currency: "usd" },
  { id: "pack_2500", name: "2,500 credits", credits: 2500, priceId: "price_pixelgate_pack_2500", amount: 2000, currency: "usd" },
  { id: "pack_10000", name: "10,000 credits", credits: 10_000, priceId: "price_pixelgate_pack_10000", amount: 7000, currency: "usd" },
];

export const PLAN_OFFERS: readonly PlanOffer[] = [
  { plan: "starter", name: "Starter", monthlyCredits: 1500, priceId: "price_pixelgate_starter", amount: 1200, currency: "usd" },
  { plan: "pro", name: "Pro", monthlyCredits: 6000, priceId: "price_pixelgate_pro", amount: 3900, currency: "usd" },
  { plan: "business", name: "Business", monthlyCredits: 25_000, priceId: "price_pixelgate_business", amount: 12_900, currency: "usd" },
];

/** Plans bill monthly (the prices are monthly recurring prices in Stripe). */
export const PLAN_BILLING_CYCLE = "monthly";

export type Offer = { kind: "pack"; pack: CreditPack } | { kind: "plan"; offer: PlanOffer };

/** The table's row for a Stripe price id, or null for a price the operator does not sell. */
export function offerOfPrice(priceId: string): Offer | null {
  const pack = CREDIT_PACKS.find((row) => row.priceId === priceId);
  if (pack) return { kind: "pack", pack };
  const offer = PLAN_OFFERS.find((row) => row.priceId === priceId);
  return offer ? { kind: "plan", offer } : null;
}

/** The row a dashboard form names (a pack id or a plan name), or null. */
export function offerNamed(name: string): Offer | null {
  const pack = CREDIT_PACKS.find((row) => row.id === name);
  if (pack) return { kind: "pack", pack };
  const offer = PLAN_OFFERS.find((row) => row.plan === name);
  return offer ? { kind: "plan", offer } : null;
}

/** "$5.00" */
export function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100);
}
