import { CREDIT_PACKS, PLAN_OFFERS } from "../../src/payments/catalog.ts";
import { FAKE_STRIPE_WEBHOOK_SECRET, stripeSignature, UNSOLD_PRICE, type Delivery } from "./vocabulary.ts";

// The fake Stripe account's objects, shaped as the Stripe API (version 2026-10-28) documents
// them, and the events each customer action makes. The account's prices are the operator's
// product table (as if created in the Stripe dashboard) plus one price the table does not sell.

const API_VERSION = "2026-10-28.endive";
const DAY_S = 86_400;
const PERIOD_S = 30 * DAY_S;

type StripeObject = Record<string, unknown> & { id: string };

export class StripeRefusal extends Error {
  readonly status: number;
  readonly body: { type: string; message: string; param?: string; code?: string };
  constructor(status: number, body: StripeRefusal["body"]) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

const refuse = (message: string, param?: string, code?: string): never => {
  throw new StripeRefusal(code === "resource_missing" ? 404 : 400, { type: "invalid_request_error", message, param, code });
};

interface Price { id: string; unit_amount: number; currency: string; recurring: { interval: "month" } | null }

let counter = 0;
const newId = (prefix: string): string => `${prefix}_fake${Date.now().toString(36)}${(++counter).toString(36).padStart(4, "0")}`;
const nowS = (): number => Math.floor(Date.now() / 1000);

/** The top-level parameters each create call takes (of those documented, the ones this fake knows); Stripe refuses any other. */
const SESSION_PARAMS = new Set(["mode", "customer", "line_items", "success_url", "cancel_url", "client_reference_id", "metadata", "subscription_data", "payment_intent_data", "allow_promotion_codes"]);
const CUSTOMER_PARAMS = new Set(["email", "name", "metadata", "description", "phone"]);
const PORTAL_PARAMS = new Set(["customer", "return_url", "configuration", "locale", "flow_data"]);

function refuseUnknown(form: URLSearchParams, known: Set<string>): void {
  for (const key of form.keys()) {
    const top = key.split("[")[0]!;
    if (!known.has(top)) refuse(`Received unknown parameter: ${top}`, top, "parameter_unknown");
  }
}

export class FakeStripeAccount {
  readonly prices = new Map<string, Price>();
  readonly customers = new Map<string, StripeObject>();
  readonly sessions = new Map<string, StripeObject & { line: { price: string; quantity: number } }>();
  readonly subscriptions = new Map<string, StripeObject>();
  readonly charges = new Map<string, StripeObject>(); // by payment intent
  readonly invoicePaymentsOf = new Map<string, StripeObject[]>();
  readonly portals = new Map<string, { customer: string; return_url: string }>();
  private readonly idempotent = new Map<string, StripeObject>();
  /** Every event made, in order, with what the webhook endpoint answered (when there is one). */
  readonly delivered: Array<Delivery & { status: number | null }> = [];

  private readonly origin: () => string;
  private readonly webhookUrl: string | undefined;

  constructor(origin: () => string, webhookUrl?: string) {
    this.origin = origin;
    this.webhookUrl = webhookUrl;
    for (const pack of CREDIT_PACKS) this.prices.set(pack.priceId, { id: pack.priceId, unit_amount: pack.amount, currency: pack.currency, recurring: null });
    for (const plan of PLAN_OFFERS) this.prices.set(plan.priceId, { id: plan.priceId, unit_amount: plan.amount, currency: plan.currency, recurring: { interval: "month" } });
    this.prices.set(UNSOLD_PRICE, { id: UNSOLD_PRICE, unit_amount: 100, currency: "usd", recurring: null });
  }

  createCustomer(form: URLSearchParams, idempotencyKey?: string): StripeObject {
    refuseUnknown(form, CUSTOMER_PARAMS);
    const earlier = idempotencyKey ? this.idempotent.get(idempotencyKey) : undefined;
    if (earlier) return earlier;
    const customer = { id: newId("cus"), object: "customer", email: form.get("email"), name: form.get("name"), metadata: metadataOf(form), created: nowS() };
    this.customers.set(customer.id, customer);
    if (idempotencyKey) this.idempotent.set(idempotencyKey, customer);
    return customer;
  }

  createCheckoutSession(form: URLSearchParams): StripeObject {
    refuseUnknown(form, SESSION_PARAMS);
    const mode = form.get("mode") ?? refuse("Missing required param: mode.", "mode", "parameter_missing");
    if (mode !== "payment" && mode !== "subscription") refuse(`Invalid mode: must be one of payment, setup, or subscription`, "mode", "parameter_invalid_string");
    const successUrl = form.get("success_url") ?? refuse("Missing required param: success_url.", "success_url", "parameter_missing");
    const customer = form.get("customer");
    if (customer && !this.customers.has(customer)) refuse(`No such customer: '${customer}'`, "customer", "resource_missing");
    const priceId = form.get("line_items[0][price]") ?? refuse("Missing required param: line_items[0][price].", "line_items", "parameter_missing");
    const price = this.prices.get(priceId) ?? refuse(`No such price: '${priceId}'`, "line_items[0][price]", "resource_missing");
    if (mode === "payment" && price.recurring) refuse("You specified `payment` mode but passed a recurring price.", "line_items[0][price]");
    if (mode === "subscription" && !price.recurring) refuse("You must provide at least one recurring price in `subscription` mode when using prices.", "line_items[0][price]");
    const quantity = Number(form.get("line_items[0][quantity]") ?? "1");
    const id = newId("cs_test");
    const session = {
      id, object: "checkout.session", mode, customer, client_reference_id: form.get("client_reference_id"), metadata: metadataOf(form),
      success_url: successUrl, cancel_url: form.get("cancel_url"), url: `${this.origin()}/pay/${id}`, status: "open", payment_status: "unpaid",
      amount_total: price.unit_amount * quantity, currency: price.currency, payment_intent: null, subscription: null, created: nowS(),
      line: { price: priceId, quantity },
    };
    this.sessions.set(id, session);
    return session;
  }

  session(id: string): StripeObject & { line: { price: string; quantity: number } } {
    return this.sessions.get(id) ?? refuse(`No such checkout.session: '${id}'`, "session", "resource_missing");
  }

  lineItems(sessionId: string): StripeObject {
    const session = this.session(sessionId);
    const price = this.prices.get(session.line.price)!;
    return {
      id: "", object: "list", has_more: false, url: `/v1/checkout/sessions/${sessionId}/line_items`,
      data: [{ id: newId("li"), object: "item", quantity: session.line.quantity, amount_total: session.amount_total, currency: price.currency, price: { object: "price", ...price } }],
    };
  }

  createPortalSession(form: URLSearchParams): StripeObject {
    refuseUnknown(form, PORTAL_PARAMS);
    const customer = form.get("customer") ?? refuse("Missing required param: customer.", "customer", "parameter_missing");
    if (!this.customers.has(customer)) refuse(`No such customer: '${customer}'`, "customer", "resource_missing");
    const id = newId("bps");
    const returnUrl = form.get("return_url") ?? "";
    this.portals.set(id, { customer, return_url: returnUrl });
    return { id, object: "billing_portal.session", customer, return_url: returnUrl, url: `${this.origin()}/portal/${id}`, created: nowS() };
  }

  invoicePayments(invoiceId: string): StripeObject {
    return { id: "", object: "list", has_more: false, url: "/v1/invoice_payments", data: this.invoicePaymentsOf.get(invoiceId) ?? [] };
  }

  successUrl(sessionId: string): string {
    return String(this.session(sessionId).success_url).replace("{CHECKOUT_SESSION_ID}", sessionId);
  }

  /** The customer pays: a pack's checkout.session.completed, or a plan's subscription and first invoice. */
  async pay(sessionId: string): Promise<Delivery[]> {
    const session = this.session(sessionId);
    if (session.status !== "open") refuse(`Checkout session ${sessionId} is ${session.status}.`);
    const paymentIntent = newId("pi");
    Object.assign(session, { status: "complete", payment_status: "paid" });
    if (session.mode === "payment") {
      Object.assign(session, { payment_intent: paymentIntent });
      this.charge(paymentIntent, String(session.customer), Number(session.amount_total));
      return this.send([["checkout.session.completed", strip(session)]]);
    }
    const subscription = this.subscribe(String(session.customer), session.line.price);
    Object.assign(session, { subscription: subscription.id });
    return this.send([["checkout.session.completed", strip(session)], ["customer.subscription.created", subscription], ...this.invoice(subscription, "subscription_create")]);
  }

  /** The next month: a new period and its paid invoice. */
  async renew(subscriptionId: string): Promise<Delivery[]> {
    const subscription = this.subscriptionOf(subscriptionId);
    const item = itemOf(subscription);
    Object.assign(item, { current_period_start: item.current_period_end, current_period_end: Number(item.current_period_end) + PERIOD_S });
    return this.send([...this.invoice(subscription, "subscription_cycle"), ["customer.subscription.updated", subscription]]);
  }

  async cancelAtPeriodEnd(subscriptionId: string): Promise<Delivery[]> {
    const subscription = this.subscriptionOf(subscriptionId);
    Object.assign(subscription, { cancel_at_period_end: true, cancel_at: itemOf(subscription).current_period_end });
    return this.send([["customer.subscription.updated", subscription]]);
  }

  /** The period ended with the subscription cancelled (or unpaid): Stripe deletes it. */
  async endSubscription(subscriptionId: string): Promise<Delivery[]> {
    const subscription = this.subscriptionOf(subscriptionId);
    Object.assign(subscription, { status: "canceled", ended_at: nowS() });
    return this.send([["customer.subscription.deleted", subscription]]);
  }

  async refund(paymentIntent: string, amount?: number): Promise<Delivery[]> {
    const charge = this.charges.get(paymentIntent) ?? refuse(`No such payment_intent: '${paymentIntent}'`, "payment_intent", "resource_missing");
    const refunded = Math.min(Number(charge.amount), Number(charge.amount_refunded) + (amount ?? Number(charge.amount)));
    Object.assign(charge, { amount_refunded: refunded, refunded: refunded === charge.amount });
    return this.send([["charge.refunded", charge]]);
  }

  portalSubscription(portalId: string): string {
    const portal = this.portals.get(portalId) ?? refuse(`No such portal session: '${portalId}'`);
    const subscription = [...this.subscriptions.values()].find((candidate) => candidate.customer === portal.customer && candidate.status === "active");
    return subscription?.id ?? refuse("The customer has no active subscription.");
  }

  checkoutPage(sessionId: string): string {
    const session = this.session(sessionId);
    const price = this.prices.get(session.line.price)!;
    return `<main><h1>Fake Stripe Checkout</h1><p id="summary">${session.line.quantity} x ${price.id}: ${(Number(session.amount_total) / 100).toFixed(2)} ${price.currency.toUpperCase()}${price.recurring ? " per month" : ""}</p>
<form method="post" action="/pay/${sessionId}"><button type="submit">Pay</button></form>${session.cancel_url ? `<a href="${session.cancel_url}">Back</a>` : ""}</main>`;
  }

  portalPage(portalId: string): string {
    const portal = this.portals.get(portalId) ?? refuse(`No such portal session: '${portalId}'`);
    return `<main><h1>Fake Stripe customer portal</h1><form method="post" action="/portal/${portalId}/cancel"><button type="submit">Cancel plan</button></form><a href="${portal.return_url}">Return to Pixelgate</a></main>`;
  }

  private subscriptionOf(id: string): StripeObject {
    return this.subscriptions.get(id) ?? refuse(`No such subscription: '${id}'`, "subscription", "resource_missing");
  }

  private subscribe(customer: string, priceId: string): StripeObject {
    const price = this.prices.get(priceId)!;
    const start = nowS();
    const subscription = {
      id: newId("sub"), object: "subscription", customer, status: "active", cancel_at_period_end: false, cancel_at: null, ended_at: null, created: start,
      items: { object: "list", data: [{ id: newId("si"), object: "subscription_item", price: { object: "price", ...price }, quantity: 1, current_period_start: start, current_period_end: start + PERIOD_S }] },
    };
    this.subscriptions.set(subscription.id, subscription);
    return subscription;
  }

  /** A paid invoice for the subscription's current period (its payment intent and charge too). */
  private invoice(subscription: StripeObject, reason: string): Array<[string, StripeObject]> {
    const item = itemOf(subscription);
    const price = item.price as Price;
    const id = newId("in");
    const paymentIntent = newId("pi");
    this.charge(paymentIntent, String(subscription.customer), price.unit_amount);
    this.invoicePaymentsOf.set(id, [{ id: newId("inpay"), object: "invoice_payment", invoice: id, status: "paid", amount_paid: price.unit_amount, payment: { type: "payment_intent", payment_intent: paymentIntent } }]);
    const invoice = {
      id, object: "invoice", customer: subscription.customer, status: "paid", billing_reason: reason, amount_paid: price.unit_amount, currency: price.currency,
      period_start: item.current_period_start, period_end: item.current_period_start,
      parent: { type: "subscription_details", quote_details: null, subscription_details: { subscription: subscription.id, metadata: {} } },
      lines: { object: "list", has_more: false, data: [{
        id: newId("il"), object: "line_item", amount: price.unit_amount, currency: price.currency, quantity: 1,
        period: { start: item.current_period_start, end: item.current_period_end },
        pricing: { type: "price_details", price_details: { price: price.id, product: `prod_${price.id}` }, unit_amount_decimal: String(price.unit_amount) },
      }] },
    };
    return [["invoice.paid", invoice]];
  }

  private charge(paymentIntent: string, customer: string, amount: number): void {
    this.charges.set(paymentIntent, { id: newId("ch"), object: "charge", amount, amount_refunded: 0, refunded: false, currency: "usd", customer, payment_intent: paymentIntent, status: "succeeded" });
  }

  /** Makes the events, signs them, and delivers them in order to the webhook URL if there is one. */
  private async send(events: Array<[string, StripeObject]>): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    for (const [type, object] of events) {
      const eventId = newId("evt");
      const body = JSON.stringify({
        id: eventId, object: "event", api_version: API_VERSION, created: nowS(), livemode: false, pending_webhooks: 1,
        request: { id: null, idempotency_key: null }, type, data: { object: structuredClone(object) },
      });
      const delivery = { type, eventId, body, signature: await stripeSignature(body, FAKE_STRIPE_WEBHOOK_SECRET) };
      let status: number | null = null;
      if (this.webhookUrl) {
        const answer = await fetch(this.webhookUrl, { method: "POST", headers: { "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": delivery.signature }, body });
        status = answer.status;
        await answer.body?.cancel();
      }
      this.delivered.push({ ...delivery, status });
      deliveries.push(delivery);
    }
    return deliveries;
  }
}

function itemOf(subscription: StripeObject): Record<string, unknown> & { price: unknown } {
  return (subscription.items as { data: Array<Record<string, unknown> & { price: unknown }> }).data[0]!;
}

/** A session as Stripe shows it (without the fake's own bookkeeping). */
function strip(session: StripeObject & { line?: unknown }): StripeObject {
  const { line: _line, ...shown } = session;
  return shown;
}

function metadataOf(form: URLSearchParams): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [key, value] of form) {
    const match = key.match(/^metadata\[(.+)\]$/);
    if (match) metadata[match[1]!] = value;
  }
  return metadata;
}
