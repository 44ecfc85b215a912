import type Stripe from "stripe";
import type { PaymentEvent } from "../../durable-objects/ledger-types";
import { offerOfPrice, PLAN_BILLING_CYCLE, type Offer } from "./catalog";

// A verified Stripe event read against the product table: which customer it concerns and what
// it means (a PaymentEvent for the account's ledger), or that it is not ours to act on, or that it
// must be refused (a price the table does not sell). Field names are those of the Stripe API
// version the installed library pins (2026-10-28): an invoice line's price is in
// pricing.price_details, an invoice's subscription in parent.subscription_details, a
// subscription's period end on its items, an invoice's payment intents in its payments.

export type EventReading =
  | { outcome: "apply"; customerId: string; event: PaymentEvent }
  | { outcome: "ignore"; why: string }
  | { outcome: "refuse"; message: string };

const ENDED_STATUSES = new Set(["canceled", "unpaid", "incomplete_expired"]);
const ACTIVE_STATUSES = new Set(["active", "trialing", "past_due"]);

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === "string" ? value : value.id);
const ms = (seconds: number): number => seconds * 1000;

export async function readEvent(stripe: Stripe, event: Stripe.Event): Promise<EventReading> {
  const at = ms(event.created);
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return checkoutPaid(stripe, event.id, at, event.data.object);
    case "invoice.paid":
      return invoicePaid(stripe, event.id, at, event.data.object);
    case "charge.refunded":
      return chargeRefunded(event.id, at, event.data.object);
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      return subscriptionChanged(event.id, at, event.data.object, event.type === "customer.subscription.deleted");
    default:
      return { outcome: "ignore", why: `${event.type} is not used` };
  }
}

/** A paid one-time Checkout: the pack its line names. Subscriptions are granted by their invoices. */
async function checkoutPaid(stripe: Stripe, eventId: string, at: number, session: Stripe.Checkout.Session): Promise<EventReading> {
  if (session.mode !== "payment") return { outcome: "ignore", why: "a subscription's credits come with its paid invoices" };
  if (session.payment_status !== "paid") return { outcome: "ignore", why: "not paid yet (an async payment method): granted when it succeeds" };
  const customerId = idOf(session.customer);
  if (!customerId) return { outcome: "refuse", message: `Checkout session ${session.id} has no customer.` };
  const lines = await stripe.checkout.sessions.listLineItems(session.id, { limit: 10 });
  const offers = lines.data.map((line) => (line.price ? offerOfPrice(line.price.id) : null));
  const unknown = lines.data.find((_, index) => offers[index]?.kind !== "pack");
  if (lines.data.length !== 1 || unknown) {
    return { outcome: "refuse", message: `Checkout session ${session.id} sells ${unknown?.price?.id ?? "several prices"}, not one credit pack of the table.` };
  }
  const pack = (offers[0] as Extract<Offer, { kind: "pack" }>).pack;
  const quantity = lines.data[0]!.quantity ?? 1;
  return {
    outcome: "apply",
    customerId,
    event: {
      kind: "purchase", eventId, at, product: pack.id, credits: pack.credits * quantity,
      paymentRef: idOf(session.payment_intent), amount: session.amount_total ?? 0, currency: session.currency ?? pack.currency,
    },
  };
}

/** A paid invoice of a plan: the plan's monthly credits, and the plan until the period's end. */
async function invoicePaid(stripe: Stripe, eventId: string, at: number, invoice: Stripe.Invoice): Promise<EventReading> {
  const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription);
  if (!subscriptionId) return { outcome: "ignore", why: "not a subscription's invoice" };
  const customerId = idOf(invoice.customer);
  if (!customerId) return { outcome: "refuse", message: `Invoice ${invoice.id} has no customer.` };
  // The plan's line: proration invoices carry a negative line for the plan left behind.
  const planLines = invoice.lines.data.filter((line) => line.amount >= 0 && line.pricing?.price_details);
  const line = planLines.at(-1);
  const priceId = idOf(line?.pricing?.price_details?.price);
  const offer = priceId ? offerOfPrice(priceId) : null;
  if (!line || offer?.kind !== "plan") return { outcome: "refuse", message: `Invoice ${invoice.id} charges ${priceId ?? "no price"}, not a plan of the table.` };
  const payments = invoice.payments ?? (await stripe.invoicePayments.list({ invoice: invoice.id!, limit: 10 }));
  const paid = payments.data.find((payment) => payment.status === "paid" && payment.payment.payment_intent);
  return {
    outcome: "apply",
    customerId,
    event: {
      kind: "purchase", eventId, at, product: offer.offer.plan, credits: offer.offer.monthlyCredits,
      paymentRef: idOf(paid?.payment.payment_intent), amount: invoice.amount_paid, currency: invoice.currency,
      plan: { plan: offer.offer.plan, subscriptionId, periodEnd: ms(line.period.end), billingCycle: PLAN_BILLING_CYCLE },
    },
  };
}

function chargeRefunded(eventId: string, at: number, charge: Stripe.Charge): EventReading {
  const customerId = idOf(charge.customer);
  const paymentRef = idOf(charge.payment_intent);
  if (!customerId || !paymentRef) return { outcome: "ignore", why: "a charge with no customer or payment intent granted nothing here" };
  return { outcome: "apply", customerId, event: { kind: "refund", eventId, at, paymentRef, amount: charge.amount, amountRefunded: charge.amount_refunded } };
}

function subscriptionChanged(eventId: string, at: number, subscription: Stripe.Subscription, deleted: boolean): EventReading {
  const customerId = idOf(subscription.customer);
  if (!customerId) return { outcome: "refuse", message: `Subscription ${subscription.id} has no customer.` };
  const ended = deleted || ENDED_STATUSES.has(subscription.status);
  if (!ended && !ACTIVE_STATUSES.has(subscription.status)) return { outcome: "ignore", why: `subscription status ${subscription.status}` };
  const item = subscription.items.data[0];
  const offer = item ? offerOfPrice(item.price.id) : null;
  if (!ended && offer?.kind !== "plan") {
    return { outcome: "refuse", message: `Subscription ${subscription.id} is to ${item?.price.id ?? "no price"}, not a plan of the table.` };
  }
  return {
    outcome: "apply",
    customerId,
    event: {
      kind: "subscription", eventId, at, subscriptionId: subscription.id, status: ended ? "ended" : "active",
      plan: offer?.kind === "plan" ? offer.offer.plan : undefined,
      periodEnd: item ? ms(item.current_period_end) : undefined,
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
    },
  };
}
