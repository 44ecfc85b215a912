import { describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/accounts/ledger";
import { findAccount } from "../../src/accounts/repository";
import { env } from "cloudflare:workers";
import { call, withKey } from "../support/fixtures";
import { FAKE_STRIPE_SECRET_KEY } from "./vocabulary";
import { accountInCheckout, balanceOf, byType, checkoutSession, customerAction, deliver, deliverAll } from "./support";

// Plans through Stripe subscriptions: each paid invoice grants the plan's monthly credits and
// runs the plan to its period's end; cancellation takes effect when Stripe ends the subscription.

/** /v1/me's plan fields; a key's account is cached up to 30 s per isolate, so later reads come from D1. */
async function me(key: string): Promise<{ plan: string; planValidity: string | null; billingCycle: string; credits: number }> {
  const body = (await (await call("/v1/me", withKey(key))).json()) as { user: { plan: string; planValidity: string | null; billingCycle: string; credits: number } };
  return body.user;
}

async function planOf(accountId: string) {
  const account = (await findAccount(env.DB, accountId))!;
  return { plan: account.plan, planValidity: account.planValidity, billingCycle: account.billingCycle, credits: await balanceOf(accountId) };
}

async function subscribed(plan: string) {
  const { account, sessionId } = await accountInCheckout(plan);
  const deliveries = await customerAction(`checkout/${sessionId}/pay`);
  const { subscription } = await checkoutSession(sessionId);
  return { account, deliveries, subscription: subscription! };
}

describe("a plan bought through Checkout", () => {
  it("grants the plan's credits with each paid invoice and runs the plan to the period's end", async () => {
    const { account, deliveries, subscription } = await subscribed("pro");
    expect(await deliverAll(deliveries)).toEqual([200, 200, 200]); // session completed, subscription created (unused), invoice paid
    expect(await balanceOf(account.id)).toBe(6000);
    const invoice = JSON.parse(byType(deliveries, "invoice.paid").body).data.object;
    const firstEnd = new Date(invoice.lines.data[0].period.end * 1000).toISOString();
    expect(await me(account.key)).toMatchObject({ plan: "pro", planValidity: firstEnd, billingCycle: "monthly", credits: 6000 });
    // Two renewals delivered in reverse order: both granted, the plan runs to the later end.
    const second = await customerAction(`subscriptions/${subscription}/renew`);
    const third = await customerAction(`subscriptions/${subscription}/renew`);
    await deliverAll([...third, ...second]);
    expect(await balanceOf(account.id)).toBe(18_000);
    const thirdEnd = JSON.parse(byType(third, "invoice.paid").body).data.object.lines.data[0].period.end * 1000;
    expect((await planOf(account.id)).planValidity).toBe(new Date(thirdEnd).toISOString());
    // The invoice again: nothing more.
    expect((await deliver(byType(deliveries, "invoice.paid"))).body.applied).toBe(false);
    expect(await balanceOf(account.id)).toBe(18_000);
  });

  it("keeps the plan to the period's end when cancelled, then returns the account to free", async () => {
    const { account, deliveries, subscription } = await subscribed("starter");
    await deliverAll(deliveries);
    const cancelled = await customerAction(`subscriptions/${subscription}/cancel-at-period-end`);
    await deliverAll(cancelled);
    expect((await planOf(account.id)).plan).toBe("starter");
    expect((await ledgerOf(env, account.id).billing(5)).plan.cancelAtPeriodEnd).toBe(true);
    const ended = await customerAction(`subscriptions/${subscription}/end`);
    await deliverAll(ended);
    expect(await planOf(account.id)).toMatchObject({ plan: "free", planValidity: null, credits: 1500 });
    // Out of order: the older "cancel at period end" update, and the first invoice, once more after the end.
    const lateUpdate = await deliver(cancelled[0]!);
    expect(lateUpdate.body.applied).toBe(false);
    expect((await planOf(account.id)).plan).toBe("free");
  });

  it("does not revive a plan whose subscription ended before a late invoice arrived", async () => {
    const { account, deliveries, subscription } = await subscribed("business");
    const ended = await customerAction(`subscriptions/${subscription}/end`);
    // The deletion overtakes everything else.
    await deliverAll(ended);
    await deliverAll(deliveries);
    expect(await planOf(account.id)).toMatchObject({ plan: "free", credits: 25_000 });
  });

  it("removes the unspent credits of a refunded plan invoice", async () => {
    const { account, deliveries } = await subscribed("starter");
    await deliverAll(deliveries);
    const invoiceId = JSON.parse(byType(deliveries, "invoice.paid").body).data.object.id as string;
    const payments = (await (await fetch(`https://stripe.upstream.test/v1/invoice_payments?invoice=${invoiceId}`, {
      headers: { Authorization: `Bearer ${FAKE_STRIPE_SECRET_KEY}` },
    })).json()) as { data: Array<{ payment: { payment_intent: string } }> };
    const refund = await deliver(byType(await customerAction(`payment_intents/${payments.data[0]!.payment.payment_intent}/refund`), "charge.refunded"));
    expect(refund.body).toMatchObject({ applied: true });
    expect(refund.body.note).toMatch(/1500 credits removed/);
    expect(await balanceOf(account.id)).toBe(0);
  });
});
