import { z } from "zod";
import type { Env } from "../env";

// Payment settings (secrets and vars; docs/billing.md). Stripe is on only when both the secret
// key and the webhook signing secret are set. STRIPE_API_URL points the Stripe client elsewhere
// than api.stripe.com (the tests' fake Stripe server); GET_CREDITS_URL is where "Get credits"
// leads when Stripe is off (when it is on, the dashboard's billing page).

const Settings = z.object({
  STRIPE_SECRET_KEY: z.string().trim().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().trim().min(1).optional(),
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  GET_CREDITS_URL: z.url({ protocol: /^https?$/ }).optional(),
});

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Where the Stripe API is reached; null for api.stripe.com. */
  apiUrl: URL | null;
}

export interface PaymentSettings {
  stripe: StripeSettings | null;
  getCreditsUrl: string | null;
}

const parsed = new WeakMap<object, PaymentSettings>();

/** The environment's payment settings, read once per environment; a malformed URL counts as unset. */
export function paymentSettings(env: Env): PaymentSettings {
  let settings = parsed.get(env);
  if (!settings) {
    const raw = env as unknown as Record<string, unknown>;
    const values = Object.fromEntries(
      Object.keys(Settings.shape).map((name) => [name, typeof raw[name] === "string" && raw[name] !== "" ? raw[name] : undefined]),
    );
    const result = Settings.safeParse(values);
    const read = result.success ? result.data : Settings.partial().parse({});
    if (!result.success) console.error("payment settings ignored:", z.prettifyError(result.error));
    settings = {
      stripe: read.STRIPE_SECRET_KEY && read.STRIPE_WEBHOOK_SECRET
        ? { secretKey: read.STRIPE_SECRET_KEY, webhookSecret: read.STRIPE_WEBHOOK_SECRET, apiUrl: read.STRIPE_API_URL ? new URL(read.STRIPE_API_URL) : null }
        : null,
      getCreditsUrl: read.GET_CREDITS_URL ?? null,
    };
    parsed.set(env, settings);
  }
  return settings;
}

/**
 * Where the billing page's forms send the browser: Stripe's hosted Checkout and customer portal
 * (or, with STRIPE_API_URL, the fake's origin, which serves both).
 */
export function stripePageOrigins(stripe: StripeSettings): string[] {
  return stripe.apiUrl ? [stripe.apiUrl.origin] : ["https://checkout.stripe.com", "https://billing.stripe.com"];
}

/** The dashboard's billing page: every "Get credits" link of the dashboard leads there. */
export const BILLING_PATH = "/dashboard/billing";

/**
 * Where "Get credits" leads: the dashboard's billing page when Stripe is on, else the operator's
 * GET_CREDITS_URL, else nowhere (null).
 */
export function getCreditsLink(env: Env, baseUrl: string): string | null {
  const settings = paymentSettings(env);
  return settings.stripe ? baseUrl + BILLING_PATH : settings.getCreditsUrl;
}
