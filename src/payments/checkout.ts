import type { Account } from "../accounts/repository";
import { keepStripeCustomer, stripeCustomerOf } from "../accounts/billing-records";
import type { Env } from "../env";
import { settingsOf } from "../config/settings";
import { PixelgateError } from "../errors";
import type { Offer } from "./catalog";
import { stripeClient } from "./stripe-client";

// Sending a signed-in account to Stripe: Checkout for a pack (one-time payment) or a plan
// (subscription), and the customer portal for changing or cancelling a plan. The price comes
// from the product table; what the account is granted is decided only by the webhook.

function stripeOf(env: Env) {
  const settings = settingsOf(env).stripe;
  if (!settings) throw new PixelgateError("not_found", "Payments through Stripe are not configured here.");
  return stripeClient(settings);
}

/** The account's Stripe customer, made once (an idempotency key makes concurrent first visits agree). */
async function customerOf(env: Env, account: Account): Promise<string> {
  const known = await stripeCustomerOf(env.DB, account.id);
  if (known) return known;
  const customer = await stripeOf(env).customers.create(
    { email: account.email, name: account.name, metadata: { pixelgate_account: account.id } },
    { idempotencyKey: `pixelgate-customer-${account.id}` },
  );
  return keepStripeCustomer(env.DB, account.id, customer.id);
}

/** A Checkout session for the offer; answers the URL to send the browser to. */
export async function checkoutUrl(env: Env, account: Account, offer: Offer, billingPageUrl: string): Promise<string> {
  const customer = await customerOf(env, account);
  const [mode, price, name] = offer.kind === "pack" ? ["payment", offer.pack.priceId, offer.pack.id] as const : ["subscription", offer.offer.priceId, offer.offer.plan] as const;
  const session = await stripeOf(env).checkout.sessions.create({
    mode,
    customer,
    line_items: [{ price, quantity: 1 }],
    client_reference_id: account.id,
    metadata: { pixelgate_account: account.id, pixelgate_offer: name },
    success_url: `${billingPageUrl}?checkout=done`,
    cancel_url: `${billingPageUrl}?checkout=cancelled`,
  });
  if (!session.url) throw new PixelgateError("upstream_error", "Stripe answered a Checkout session without a URL.");
  return session.url;
}

/** A customer-portal session (change or cancel the plan, invoices, payment method). */
export async function portalUrl(env: Env, account: Account, billingPageUrl: string): Promise<string> {
  const customer = await stripeCustomerOf(env.DB, account.id);
  if (!customer) throw new PixelgateError("invalid_parameter", "This account has not paid through Stripe yet.");
  const session = await stripeOf(env).billingPortal.sessions.create({ customer, return_url: billingPageUrl });
  return session.url;
}
