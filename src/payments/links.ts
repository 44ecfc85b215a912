import { settingsOf, type StripeSettings } from "../config/settings";
import type { Env } from "../env";

// Where people are sent to get credits, and the Stripe pages the billing forms lead to.

/** The dashboard's billing page: every "Get credits" link of the dashboard leads there. */
export const BILLING_PATH = "/dashboard/billing";

/**
 * Where "Get credits" leads: the dashboard's billing page when Stripe is on, else the operator's
 * GET_CREDITS_URL, else nowhere (null).
 */
export function getCreditsLink(env: Env, baseUrl: string): string | null {
  const settings = settingsOf(env);
  return settings.stripe ? baseUrl + BILLING_PATH : settings.getCreditsUrl;
}

/**
 * Where the billing page's forms send the browser: Stripe's hosted Checkout and customer portal
 * (or, with STRIPE_API_URL, the fake's origin, which serves both).
 */
export function stripePageOrigins(stripe: StripeSettings): string[] {
  return stripe.apiUrl ? [stripe.apiUrl.origin] : ["https://checkout.stripe.com", "https://billing.stripe.com"];
}
