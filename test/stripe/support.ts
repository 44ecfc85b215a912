import { env } from "cloudflare:workers";
import { findAccount } from "../../src/accounts/repository";
import { ledgerOf } from "../../src/accounts/ledger";
import { offerNamed } from "../../src/payments/catalog";
import { checkoutUrl } from "../../src/payments/checkout";
import { call, newAccount, type TestAccount } from "../support/fixtures";
import { FAKE_STRIPE_HOST, FAKE_STRIPE_SECRET_KEY, type Delivery } from "./vocabulary";

// The payment tests' side of the fake Stripe (running in Node, reached through the outbound
// service): act as the customer on it, and deliver the events it signed to the worker.

const FAKE = `https://${FAKE_STRIPE_HOST}`;

/** A fake-Stripe control (/_fake/...): the signed events the customer's action made. */
export async function customerAction(path: string, form: Record<string, string> = {}): Promise<Delivery[]> {
  const response = await fetch(`${FAKE}/_fake/${path}`, { method: "POST", body: new URLSearchParams(form) });
  if (!response.ok) throw new Error(`fake Stripe ${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { deliveries: Delivery[] }).deliveries;
}

export async function checkoutSession(sessionId: string): Promise<{ payment_intent: string | null; subscription: string | null; customer: string }> {
  return (await fetch(`${FAKE}/_fake/checkout/${sessionId}`)).json();
}

/** POSTs one event to /webhooks/stripe as Stripe would (or with another signature). */
export async function deliver(delivery: Pick<Delivery, "body" | "signature">): Promise<{ status: number; body: { applied?: boolean; note?: string; error?: { code: string; message: string } } }> {
  const response = await call("/webhooks/stripe", {
    method: "POST",
    headers: { "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": delivery.signature },
    body: delivery.body,
  });
  return { status: response.status, body: await response.json() };
}

export async function deliverAll(deliveries: Delivery[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const delivery of deliveries) statuses.push((await deliver(delivery)).status);
  return statuses;
}

/** An account that opened Checkout for `offer` (a pack id or plan name): the account and the session id. */
export async function accountInCheckout(offer: string, credits = 0): Promise<{ account: TestAccount; sessionId: string }> {
  const account = await newAccount({ credits });
  const url = await checkoutUrl(env, (await findAccount(env.DB, account.id))!, offerNamed(offer)!, "https://pixelgate.test/dashboard/billing");
  return { account, sessionId: new URL(url).pathname.split("/").pop()! };
}

export async function balanceOf(accountId: string): Promise<number> {
  return (await ledgerOf(env, accountId).snapshot()).balance;
}

/** Calls the fake's API with the operator's secret key, as the service does. */
export function stripeApi(path: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${FAKE}${path}`, { method: "POST", headers: { Authorization: `Bearer ${FAKE_STRIPE_SECRET_KEY}` }, body: new URLSearchParams(form) });
}

export const byType = (deliveries: Delivery[], type: string): Delivery => deliveries.find((delivery) => delivery.type === type)!;
