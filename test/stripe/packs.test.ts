import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settingsOf } from "../../src/config/settings";
import { usageDelivered, usageRows } from "../support/usage-log";
import { call } from "../support/fixtures";
import { accountInCheckout, balanceOf, byType, checkoutSession, customerAction, deliver, stripeApi } from "./support";
import { FAKE_STRIPE_WEBHOOK_SECRET, stripeSignature, UNSOLD_PRICE } from "./vocabulary";

// Credit packs through Stripe Checkout: the fake Stripe makes and signs the events, the worker
// verifies them with the real library and its ledger grants each once.

describe("a credit pack bought through Checkout", () => {
  it("grants the table's credits once, however often and however concurrently the event is delivered", async () => {
    const { account, sessionId } = await accountInCheckout("pack_500", 7);
    const completed = byType(await customerAction(`checkout/${sessionId}/pay`), "checkout.session.completed");
    const first = await deliver(completed);
    expect(first).toMatchObject({ status: 200, body: { applied: true } });
    expect(await balanceOf(account.id)).toBe(507);
    const repeats = await Promise.all(Array.from({ length: 5 }, () => deliver(completed)));
    expect(repeats.map((repeat) => [repeat.status, repeat.body.applied])).toEqual(Array(5).fill([200, false]));
    expect(await balanceOf(account.id)).toBe(507);
    const stripeEntries = (await usageRows(account.id)).filter((row) => row.source === "stripe");
    expect(stripeEntries).toHaveLength(1);
    expect(stripeEntries[0]).toMatchObject({ tool: "buy_credits", request_id: JSON.parse(completed.body).id, credits_deducted: 0 });
    const entry = await (await call("/v1/usage?limit=5", { headers: { Authorization: `Bearer ${account.key}` } })).json();
    expect(JSON.stringify(entry)).toContain('"creditsGranted":500');
    // And D1, the log the dashboard's CSV and chart read, has it too.
    await usageDelivered(account.id);
    const stored = await env.DB.prepare("SELECT source, credits_granted FROM usage_log WHERE account_id = ?").bind(account.id).all();
    expect(stored.results).toEqual([{ source: "stripe", credits_granted: 500 }]);
  });

  it("answers 400 and grants nothing for a bad signature, a stale timestamp or no signature", async () => {
    const { account, sessionId } = await accountInCheckout("pack_500");
    const completed = byType(await customerAction(`checkout/${sessionId}/pay`), "checkout.session.completed");
    const wrongSecret = await deliver({ body: completed.body, signature: await stripeSignature(completed.body, "whsec_someone_else") });
    expect(wrongSecret).toMatchObject({ status: 400, body: { error: { code: "invalid_parameter" } } });
    const stale = await deliver({ body: completed.body, signature: await stripeSignature(completed.body, FAKE_STRIPE_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 600) });
    expect(stale.status).toBe(400);
    expect(stale.body.error?.message).toMatch(/tolerance/i);
    const tampered = await deliver({ body: completed.body.replace('"paid"', '"unpaid"'), signature: completed.signature });
    expect(tampered.status).toBe(400);
    const unsigned = await deliver({ body: completed.body, signature: "" });
    expect(unsigned.status).toBe(400);
    expect(await balanceOf(account.id)).toBe(0);
    // The genuine delivery still works afterwards: the refusals recorded nothing.
    expect((await deliver(completed)).body.applied).toBe(true);
    expect(await balanceOf(account.id)).toBe(500);
  });

  it("refuses a Checkout of a price the table does not sell", async () => {
    const { account, sessionId } = await accountInCheckout("pack_500");
    const { customer } = await checkoutSession(sessionId);
    const created = await stripeApi("/v1/checkout/sessions", {
      mode: "payment", customer, "line_items[0][price]": UNSOLD_PRICE, "line_items[0][quantity]": "1", success_url: "https://pixelgate.test/done",
    });
    const session = (await created.json()) as { id: string };
    const completed = byType(await customerAction(`checkout/${session.id}/pay`), "checkout.session.completed");
    const answer = await deliver(completed);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain(UNSOLD_PRICE);
    expect(await balanceOf(account.id)).toBe(0);
  });

  it("takes back, on a refund, what is left unspent of the pack and says so", async () => {
    const { account, sessionId } = await accountInCheckout("pack_500", 0);
    await deliver(byType(await customerAction(`checkout/${sessionId}/pay`), "checkout.session.completed"));
    const { payment_intent } = await checkoutSession(sessionId);
    // Half refunded: 250 credits back to Stripe, all still unspent.
    const half = await deliver(byType(await customerAction(`payment_intents/${payment_intent}/refund`, { amount: "250" }), "charge.refunded"));
    expect(half.body).toMatchObject({ applied: true });
    expect(await balanceOf(account.id)).toBe(250);
    // Spend 200 (an operator debit), then refund the rest: 250 due, 50 left to take.
    expect((await env.LEDGER.getByName(account.id).grant(-200)).ok).toBe(true);
    const rest = await deliver(byType(await customerAction(`payment_intents/${payment_intent}/refund`), "charge.refunded"));
    expect(rest.body.note).toMatch(/50 credits removed; 200 were already spent/);
    expect(await balanceOf(account.id)).toBe(0);
    const refunds = (await usageRows(account.id)).filter((row) => row.tool === "refund");
    expect(refunds.map((row) => row.credits_deducted)).toEqual([250, 50]);
  });

  it("grants only what a refund that arrived first leaves", async () => {
    const { account, sessionId } = await accountInCheckout("pack_2500");
    const completed = byType(await customerAction(`checkout/${sessionId}/pay`), "checkout.session.completed");
    const { payment_intent } = await checkoutSession(sessionId);
    const refunded = byType(await customerAction(`payment_intents/${payment_intent}/refund`), "charge.refunded");
    expect((await deliver(refunded)).status).toBe(200);
    const late = await deliver(completed);
    expect(late.body.note).toMatch(/0 of 2500 credits granted/);
    expect(await balanceOf(account.id)).toBe(0);
  });
});

describe("the webhook when Stripe itself fails", () => {
  it("answers 502 (Stripe retries) and grants nothing when Stripe cannot say what a session sold", async () => {
    const { account, sessionId } = await accountInCheckout("pack_500");
    const completed = byType(await customerAction(`checkout/${sessionId}/pay`), "checkout.session.completed");
    // A genuine, signed event about a session Stripe then does not find.
    const body = completed.body.replaceAll(sessionId, "cs_test_vanished");
    const answer = await deliver({ body, signature: await stripeSignature(body, FAKE_STRIPE_WEBHOOK_SECRET) });
    expect(answer.status).toBe(502);
    expect(answer.body.error?.code).toBe("upstream_error");
    expect(await balanceOf(account.id)).toBe(0);
  });

  it("is a fake that refuses what Stripe refuses", async () => {
    const unknown = await stripeApi("/v1/checkout/sessions", { mode: "payment", success_url: "https://pixelgate.test/done", "line_items[0][price]": "price_pixelgate_pack_500", amount: "1" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("parameter_unknown");
    const recurring = await stripeApi("/v1/checkout/sessions", { mode: "payment", success_url: "https://pixelgate.test/done", "line_items[0][price]": "price_pixelgate_pro" });
    expect(recurring.status).toBe(400);
  });
});

describe("payment settings", () => {
  it("turn Stripe off unless both secrets are set", () => {
    expect(settingsOf({ STRIPE_SECRET_KEY: "sk_test_x" }).stripe).toBeNull();
    expect(settingsOf({ GET_CREDITS_URL: "https://example.com/buy" })).toMatchObject({ stripe: null, getCreditsUrl: "https://example.com/buy" });
    expect(settingsOf({ GET_CREDITS_URL: "javascript:alert(1)" }).getCreditsUrl).toBeNull();
    expect(settingsOf(env).stripe?.apiUrl?.hostname).toBe("stripe.upstream.test");
  });
});
