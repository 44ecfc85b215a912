import Stripe from "stripe";
import type { StripeSettings } from "../config/settings";

// The official Stripe library as it runs in Workers: its fetch HTTP client and Web Crypto for
// webhook signatures. One client per secret key and isolate.

const clients = new Map<string, Stripe>();

export function stripeClient(settings: StripeSettings): Stripe {
  const cacheKey = `${settings.secretKey} ${settings.apiUrl ?? ""}`;
  let client = clients.get(cacheKey);
  if (!client) {
    const api = settings.apiUrl;
    client = new Stripe(settings.secretKey, {
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 1,
      timeout: 20_000,
      ...(api ? { host: api.hostname, port: api.port || (api.protocol === "http:" ? 80 : 443), protocol: api.protocol === "http:" ? "http" : "https" } : {}),
    });
    clients.set(cacheKey, client);
  }
  return client;
}

const cryptoProvider = Stripe.createSubtleCryptoProvider();

/** The event, if `signature` is Stripe's signature of `body` with the secret, made within the last 5 minutes; throws otherwise. */
export function verifiedEvent(settings: StripeSettings, body: string, signature: string): Promise<Stripe.Event> {
  return stripeClient(settings).webhooks.constructEventAsync(body, signature, settings.webhookSecret, undefined, cryptoProvider);
}
