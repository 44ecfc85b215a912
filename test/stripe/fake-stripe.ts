import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeStripeAccount, StripeRefusal } from "./fake-stripe-account.ts";
import { FAKE_STRIPE_SECRET_KEY, type Delivery } from "./vocabulary.ts";

// A fake Stripe: one real node:http server on a free loopback port that speaks the parts of the
// documented Stripe API Pixelgate uses (form-encoded requests, Bearer secret key, Stripe's error
// body): customers, Checkout Sessions and their line items, billing portal sessions, invoice
// payments. It also plays the customer: hosted Checkout and portal pages (for the browser test)
// and /_fake/... controls (pay, renew, cancel, refund) that make the events Stripe would send,
// signed with the webhook secret and, when a webhook URL is set, delivered to it in order.

export interface FakeStripe {
  origin: string;
  account: FakeStripeAccount;
  close(): Promise<void>;
}

export interface FakeStripeOptions {
  /** Where events are POSTed (the service's /webhooks/stripe); without it they are only answered to the control call. */
  webhookUrl?: string;
}

export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  let origin = "";
  const account = new FakeStripeAccount(() => origin, options.webhookUrl);
  const server = createServer((req, res) => void handle(account, req, res));
  server.on("connection", (socket) => socket.unref());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  server.unref();
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, account, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json", "Request-Id": `req_fake_${Date.now()}` }).end(JSON.stringify(body));
}

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fake Stripe</title></head><body>${body}</body></html>`);
}

const deliveriesAnswer = (deliveries: Delivery[]) => ({ deliveries });

async function handle(account: FakeStripeAccount, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.on("error", () => {});
  const url = new URL(req.url ?? "/", "http://fake");
  const method = req.method ?? "GET";
  const path = url.pathname;
  try {
    const text = await readBody(req);
    const form = new URLSearchParams(method === "GET" ? url.search : text);
    let match: RegExpMatchArray | null;
    // The customer's side: hosted pages and the test's controls (no API key).
    if ((match = path.match(/^\/pay\/([\w]+)$/))) {
      if (method === "GET") return html(res, account.checkoutPage(match[1]!));
      await account.pay(match[1]!);
      return void res.writeHead(303, { Location: account.successUrl(match[1]!) }).end();
    }
    if ((match = path.match(/^\/portal\/([\w]+)$/))) return html(res, account.portalPage(match[1]!));
    if ((match = path.match(/^\/portal\/([\w]+)\/cancel$/)) && method === "POST") {
      await account.cancelAtPeriodEnd(account.portalSubscription(match[1]!));
      return void res.writeHead(303, { Location: `/portal/${match[1]}` }).end();
    }
    if (path.startsWith("/_fake/")) return json(res, 200, await control(account, method, path, form));
    // The API: Bearer secret key, as Stripe documents.
    if (req.headers.authorization !== `Bearer ${FAKE_STRIPE_SECRET_KEY}`) {
      return json(res, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided." } });
    }
    return json(res, 200, api(account, method, path, form, req.headers["idempotency-key"]?.toString()));
  } catch (error) {
    if (error instanceof StripeRefusal) return json(res, error.status, { error: error.body });
    json(res, 500, { error: { type: "api_error", message: `fake Stripe failed: ${(error as Error).message}` } });
  }
}

function api(account: FakeStripeAccount, method: string, path: string, form: URLSearchParams, idempotencyKey: string | undefined): unknown {
  let match: RegExpMatchArray | null;
  if (method === "POST" && path === "/v1/customers") return account.createCustomer(form, idempotencyKey);
  if (method === "POST" && path === "/v1/checkout/sessions") return account.createCheckoutSession(form);
  if (method === "GET" && (match = path.match(/^\/v1\/checkout\/sessions\/([\w]+)\/line_items$/))) return account.lineItems(match[1]!);
  if (method === "POST" && path === "/v1/billing_portal/sessions") return account.createPortalSession(form);
  if (method === "GET" && path === "/v1/invoice_payments") return account.invoicePayments(form.get("invoice") ?? "");
  throw new StripeRefusal(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` });
}

async function control(account: FakeStripeAccount, method: string, path: string, form: URLSearchParams): Promise<unknown> {
  let match: RegExpMatchArray | null;
  if ((match = path.match(/^\/_fake\/checkout\/([\w]+)$/)) && method === "GET") return account.session(match[1]!);
  if ((match = path.match(/^\/_fake\/checkout\/([\w]+)\/pay$/))) return deliveriesAnswer(await account.pay(match[1]!));
  if ((match = path.match(/^\/_fake\/subscriptions\/([\w]+)\/renew$/))) return deliveriesAnswer(await account.renew(match[1]!));
  if ((match = path.match(/^\/_fake\/subscriptions\/([\w]+)\/cancel-at-period-end$/))) return deliveriesAnswer(await account.cancelAtPeriodEnd(match[1]!));
  if ((match = path.match(/^\/_fake\/subscriptions\/([\w]+)\/end$/))) return deliveriesAnswer(await account.endSubscription(match[1]!));
  if ((match = path.match(/^\/_fake\/payment_intents\/([\w]+)\/refund$/))) {
    return deliveriesAnswer(await account.refund(match[1]!, form.has("amount") ? Number(form.get("amount")) : undefined));
  }
  throw new StripeRefusal(404, { type: "invalid_request_error", message: `no fake control ${method} ${path}` });
}
