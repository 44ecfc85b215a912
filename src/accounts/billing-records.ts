import type { PlanState } from "../../durable-objects/ledger-types";

// D1's side of payments: which account a Stripe customer is, and the copy of the plan the
// account's ledger decided (what /v1/me and the dashboard show).

export async function accountOfStripeCustomer(db: D1Database, customerId: string): Promise<string | null> {
  const row = await db.prepare("SELECT id FROM accounts WHERE stripe_customer_id = ?").bind(customerId).first<{ id: string }>();
  return row?.id ?? null;
}

export async function stripeCustomerOf(db: D1Database, accountId: string): Promise<string | null> {
  const row = await db.prepare("SELECT stripe_customer_id FROM accounts WHERE id = ?").bind(accountId).first<{ stripe_customer_id: string | null }>();
  return row?.stripe_customer_id ?? null;
}

/** Records the account's customer unless it already has one; answers the one it has. */
export async function keepStripeCustomer(db: D1Database, accountId: string, customerId: string): Promise<string> {
  await db.prepare("UPDATE accounts SET stripe_customer_id = ? WHERE id = ? AND stripe_customer_id IS NULL").bind(customerId, accountId).run();
  return (await stripeCustomerOf(db, accountId)) ?? customerId;
}

/** Writes the ledger's plan decision, unless a later one is already there (webhooks run concurrently). */
export async function copyPlan(db: D1Database, accountId: string, plan: PlanState): Promise<void> {
  await db
    .prepare("UPDATE accounts SET plan = ?, plan_validity = ?, billing_cycle = ?, plan_version = ? WHERE id = ? AND plan_version < ?")
    .bind(plan.plan, plan.validUntil, plan.billingCycle, plan.version, accountId, plan.version)
    .run();
}
