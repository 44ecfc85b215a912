import { accountOfStripeCustomer, copyPlan } from "../accounts/billing-records";
import { ledgerOf } from "../accounts/ledger";
import type { Env } from "../env";
import { settingsOf } from "../config/settings";
import { PixelgateError, type ErrorCode } from "../errors";
import { readEvent } from "./events";
import { stripeClient, verifiedEvent } from "./stripe-client";

// POST /webhooks/stripe: a Stripe event, verified with the webhook signing secret, read against
// the product table and applied by the account's ledger once per event id. Every refusal is a 400
// that grants nothing (Stripe shows it and retries); a repeat answers 200 and changes nothing.

export interface WebhookAnswer {
  received: true;
  /** False for an event not used here, or one applied before. */
  applied: boolean;
  note: string;
}

function fail(code: ErrorCode, message: string, param?: string): never {
  throw new PixelgateError(code, message, { param });
}

export async function receiveStripeWebhook(env: Env, body: string, signature: string | undefined): Promise<WebhookAnswer> {
  const stripe = settingsOf(env).stripe ?? fail("not_found", "Payments through Stripe are not configured here.");
  if (!signature) fail("missing_parameter", "The Stripe-Signature header is missing.", "Stripe-Signature");
  const event = await verifiedEvent(stripe, body, signature).catch((error: Error) =>
    fail("invalid_parameter", `The Stripe signature could not be verified: ${error.message}`, "Stripe-Signature"),
  );
  // Reading may ask Stripe (a session's line items, an invoice's payments): if Stripe fails, a 502
  // that Stripe retries, never a 500.
  const reading = await readEvent(stripeClient(stripe), event).catch((error: Error) =>
    fail("upstream_error", `Stripe could not be asked about event ${event.id}: ${error.message}`),
  );
  if (reading.outcome === "ignore") return { received: true, applied: false, note: reading.why };
  if (reading.outcome === "refuse") fail("invalid_parameter", reading.message);
  const accountId = (await accountOfStripeCustomer(env.DB, reading.customerId)) ??
    fail("invalid_parameter", `No account has the Stripe customer ${reading.customerId}.`);
  const outcome = await ledgerOf(env, accountId).applyPayment(reading.event);
  if (outcome.plan) await copyPlan(env.DB, accountId, outcome.plan);
  return { received: true, applied: outcome.applied, note: outcome.note };
}
