// Payments under `npm run stress`: buyers sign up on the dashboard, buy a credit pack and a plan
// through the fake Stripe (test/stripe), renew the plan twice, get half the pack refunded and
// cancel; every event the fake signs is delivered to /webhooks/stripe two or three times,
// concurrently and in a shuffled order, while the rest of the traffic runs. The proof
// (reconcilePayments): every webhook answered 200, each event applied exactly once, one usage
// entry per applied event and none for any other, and each buyer's books balance: opening +
// granted - taken back = final, which is also what the purchases call for whatever the order.
import { CREDIT_PACKS, PLAN_OFFERS } from "../../src/payments/catalog.ts";
import type { FakeStripe } from "../../test/stripe/fake-stripe.ts";
import type { Delivery } from "../../test/stripe/vocabulary.ts";
import type { Rng } from "./calls.ts";

const PACK = CREDIT_PACKS[0]!;
const PLAN = PLAN_OFFERS[0]!;
const RENEWALS = 2;
/** Credits a buyer ends with beyond its opening ones: half the pack refunded, the plan paid 1 + RENEWALS times. */
export const BUYER_NET = PACK.credits - Math.ceil(PACK.credits / 2) + PLAN.monthlyCredits * (1 + RENEWALS);

export interface Buyer {
  accountId: string;
  email: string;
}

export interface WebhookAnswer {
  eventId: string;
  type: string;
  status: number;
  applied: boolean | undefined;
}

export interface StripeRow {
  account_id: string;
  request_id: string;
  tool: string;
  credits_deducted: number;
  credits_granted: number;
}

/** A signed-out browser's cookies, enough for the dashboard's sign-up and billing forms. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  private readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("Cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    headers.set("Origin", this.baseUrl);
    const response = await fetch(`${this.baseUrl}${path}`, { ...init, headers, redirect: "manual", signal: AbortSignal.timeout(30_000) });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return response;
  }

  /** GETs the page for its CSRF token, then posts the form; answers the redirect's target. */
  async submit(page: string, action: string, fields: Record<string, string>): Promise<string> {
    const html = await (await this.fetch(page)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!csrf) throw new Error(`${page} has no CSRF token`);
    const answer = await this.fetch(action, { method: "POST", body: new URLSearchParams({ csrf, ...fields }) });
    if (answer.status !== 303) throw new Error(`POST ${action} answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
    return answer.headers.get("Location")!;
  }
}

async function control(stripe: FakeStripe, path: string, form: Record<string, string> = {}): Promise<Delivery[]> {
  const response = await fetch(`${stripe.origin}/_fake/${path}`, { method: "POST", body: new URLSearchParams(form) });
  if (!response.ok) throw new Error(`fake Stripe ${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { deliveries: Delivery[] }).deliveries;
}

/** One buyer's whole story on the fake Stripe; answers the events it made, in the order Stripe made them. */
async function buy(baseUrl: string, stripe: FakeStripe, n: number): Promise<{ buyer: Buyer; events: Delivery[] }> {
  const jar = new CookieJar(baseUrl);
  const email = `stress-buyer-${n}-${Date.now()}@example.com`;
  await jar.submit("/dashboard/sign-up", "/dashboard/sign-up", { name: `stress buyer ${n}`, email, password: "stress buyer password" });
  const checkout = async (offer: string) => new URL(await jar.submit("/dashboard/billing", "/dashboard/billing/checkout", { offer })).pathname.split("/").pop()!;
  const events: Delivery[] = [];
  const packSession = await checkout(PACK.id);
  events.push(...(await control(stripe, `checkout/${packSession}/pay`)));
  const planSession = await checkout(PLAN.plan);
  events.push(...(await control(stripe, `checkout/${planSession}/pay`)));
  const { subscription } = (await (await fetch(`${stripe.origin}/_fake/checkout/${planSession}`)).json()) as { subscription: string };
  for (let i = 0; i < RENEWALS; i++) events.push(...(await control(stripe, `subscriptions/${subscription}/renew`)));
  const pack = (await (await fetch(`${stripe.origin}/_fake/checkout/${packSession}`)).json()) as { payment_intent: string };
  events.push(...(await control(stripe, `payment_intents/${pack.payment_intent}/refund`, { amount: String(PACK.amount / 2) })));
  events.push(...(await control(stripe, `subscriptions/${subscription}/cancel-at-period-end`)));
  events.push(...(await control(stripe, `subscriptions/${subscription}/end`)));
  const accountId = await accountOf(baseUrl, jar);
  return { buyer: { accountId, email }, events };
}

/** The signed-in account's id, as its owner finds it: a key made on the dashboard, then GET /v1/me. */
async function accountOf(baseUrl: string, jar: CookieJar): Promise<string> {
  const reveal = await jar.submit("/dashboard/keys", "/dashboard/keys", { name: "stress buyer" });
  const html = await (await jar.fetch(reveal)).text();
  const secret = /data-testid="new-key"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*data-testid="new-key"/.exec(html);
  if (!secret) throw new Error("the new key was not shown");
  const me = await fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${secret[1] ?? secret[2]}` } });
  return ((await me.json()) as { user: { id: string } }).user.id;
}

function shuffled<T>(items: T[], rng: Rng): T[] {
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

async function deliver(baseUrl: string, delivery: Delivery): Promise<WebhookAnswer> {
  const response = await fetch(`${baseUrl}/webhooks/stripe`, {
    method: "POST",
    headers: { "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": delivery.signature },
    body: delivery.body,
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json().catch(() => ({}))) as { applied?: boolean };
  return { eventId: delivery.eventId, type: delivery.type, status: response.status, applied: body.applied };
}

/** Runs the buyers' stories, then delivers every event 2 or 3 times, shuffled, 8 at a time. */
export async function runPayments(options: { baseUrl: string; stripe: FakeStripe; buyers: number; rng: Rng; log: (line: string) => void }): Promise<{ buyers: Buyer[]; events: Delivery[]; answers: WebhookAnswer[] }> {
  const stories = [];
  for (let n = 1; n <= options.buyers; n++) stories.push(await buy(options.baseUrl, options.stripe, n));
  const events = stories.flatMap((story) => story.events);
  const copies = shuffled(events.flatMap((event) => Array.from({ length: 2 + Math.floor(options.rng() * 2) }, () => event)), options.rng);
  options.log(`payments: ${stories.length} buyers, ${events.length} Stripe events, ${copies.length} deliveries (duplicates, shuffled)`);
  const answers: WebhookAnswer[] = [];
  for (let start = 0; start < copies.length; start += 8) {
    answers.push(...(await Promise.all(copies.slice(start, start + 8).map((copy) => deliver(options.baseUrl, copy)))));
  }
  return { buyers: stories.map((story) => story.buyer), events, answers };
}

/** Event types whose application always moves credits (one entry each, exactly). */
const CREDIT_EVENTS = new Set(["invoice.paid", "charge.refunded"]);

export function reconcilePayments(
  run: { buyers: Buyer[]; events: Delivery[]; answers: WebhookAnswer[] },
  balances: Map<string, { start: number; final: number }>,
  rows: StripeRow[],
): string[] {
  const problems: string[] = [];
  for (const answer of run.answers) if (answer.status !== 200) problems.push(`webhook ${answer.type} ${answer.eventId} answered ${answer.status}`);
  const known = new Map(run.events.map((event) => [event.eventId, event]));
  for (const event of run.events) {
    const applied = run.answers.filter((answer) => answer.eventId === event.eventId && answer.applied).length;
    const entries = rows.filter((row) => row.request_id === event.eventId).length;
    const moves = CREDIT_EVENTS.has(event.type) || (event.type === "checkout.session.completed" && JSON.parse(event.body).data.object.mode === "payment");
    if (applied > 1) problems.push(`${event.type} ${event.eventId} applied ${applied} times`);
    if (moves && applied !== 1) problems.push(`${event.type} ${event.eventId} applied ${applied} times, expected once`);
    if (entries > 1 || (moves && entries !== 1)) problems.push(`${event.type} ${event.eventId}: ${entries} usage entries`);
  }
  for (const row of rows) if (!known.has(row.request_id)) problems.push(`stripe entry ${row.request_id} (${row.tool}) belongs to no event of this run`);
  for (const buyer of run.buyers) {
    const own = rows.filter((row) => row.account_id === buyer.accountId);
    const granted = own.reduce((sum, row) => sum + row.credits_granted, 0);
    const taken = own.reduce((sum, row) => sum + row.credits_deducted, 0);
    const { start, final } = balances.get(buyer.accountId)!;
    if (start + granted - taken !== final) problems.push(`buyer ${buyer.accountId}: ${start} + ${granted} granted - ${taken} taken back = ${start + granted - taken}, the ledger says ${final}`);
    if (final !== start + BUYER_NET) problems.push(`buyer ${buyer.accountId}: final ${final}, the purchases call for ${start + BUYER_NET}`);
  }
  return problems;
}

/** The payment proof can fail: each corruption of the recorded data must be caught. Answers the names of those missed. */
export function selfCheckPayments(run: { buyers: Buyer[]; events: Delivery[]; answers: WebhookAnswer[] }, balances: Map<string, { start: number; final: number }>, rows: StripeRow[]): { caught: number; missed: string[] } {
  if (rows.length === 0 || run.buyers.length === 0) return { caught: 0, missed: ["no payments to corrupt"] };
  const first = run.buyers[0]!.accountId;
  const corruptions: Array<[string, () => string[]]> = [
    ["a grant entry written twice", () => reconcilePayments(run, balances, [...rows, rows[0]!])],
    ["a grant entry lost", () => reconcilePayments(run, balances, rows.filter((row) => row !== rows.find((grant) => grant.credits_granted > 0)))],
    ["an event applied twice", () => reconcilePayments({ ...run, answers: [...run.answers, { ...run.answers.find((answer) => answer.applied)!, applied: true }] }, balances, rows)],
    ["a balance one credit off", () => reconcilePayments(run, new Map([...balances, [first, { ...balances.get(first)!, final: balances.get(first)!.final + 1 }]]), rows)],
    ["a webhook refused", () => reconcilePayments({ ...run, answers: [{ ...run.answers[0]!, status: 400 }, ...run.answers.slice(1)] }, balances, rows)],
  ];
  const missed = corruptions.filter(([, check]) => check().length === 0).map(([name]) => name);
  return { caught: corruptions.length - missed.length, missed };
}
