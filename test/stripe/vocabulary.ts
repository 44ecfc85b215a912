// The fake Stripe's vocabulary, shared by the Node server (fake-stripe.ts) and the tests running in
// workerd, so it uses only Web APIs. Stripe signs a webhook as documented
// (https://docs.stripe.com/webhooks#verify-manually): the header is `t=<unix seconds>,v1=<hex>`,
// the hex being HMAC-SHA256 with the endpoint's signing secret over `<t>.<raw body>`.

export const FAKE_STRIPE_HOST = "stripe.upstream.test";
export const FAKE_STRIPE_SECRET_KEY = "sk_test_pixelgate_fake_51Q8x";
export const FAKE_STRIPE_WEBHOOK_SECRET = "whsec_pixelgate_fake_test_secret_0a1b2c";
/** A price that exists in the fake's Stripe account but is not in the product table. */
export const UNSOLD_PRICE = "price_pixelgate_not_in_table";

/** What a delivery is: the exact body and its Stripe-Signature header. */
export interface Delivery {
  type: string;
  eventId: string;
  body: string;
  signature: string;
}

const hex = (bytes: ArrayBuffer): string => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/** The Stripe-Signature header for `body`, made at `timestamp` (unix seconds) with `secret`. */
export async function stripeSignature(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`));
  return `t=${timestamp},v1=${hex(mac)}`;
}
