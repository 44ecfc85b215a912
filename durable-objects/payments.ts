import type { PaymentRecord, PlanState } from "./ledger-types";

// What the account's ledger remembers of Stripe: the event ids it has applied (each changes the
// balance once), each payment with the credits it granted and what refunds took back, each
// subscription's last applied change, and the plan it last decided. Kept in the object's SQLite
// storage beside the balance, so a grant and the record that it happened commit together.

interface PaymentRow extends Record<string, SqlStorageValue> {
  ref: string;
  product: string;
  credits: number;
  credits_removed: number;
  refund_target: number;
  amount: number;
  amount_refunded: number;
  currency: string;
  created_at: number;
}

export type StoredPayment = PaymentRow;

const PLAN_KEY = "plan";

export const NO_PLAN: PlanState = {
  plan: "free", validUntil: null, billingCycle: "monthly", subscriptionId: null, cancelAtPeriodEnd: false, version: 0,
};

export class Payments {
  constructor(private readonly sql: SqlStorage, private readonly kv: SyncKvStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS stripe_events (id TEXT PRIMARY KEY, at INTEGER NOT NULL)`);
    // ref: the payment intent (or the event id of a payment without one). A refund that arrives
    // before its payment leaves a row with no credits, which the payment then reads.
    sql.exec(`CREATE TABLE IF NOT EXISTS payments (
      ref TEXT PRIMARY KEY, product TEXT NOT NULL, credits INTEGER NOT NULL, credits_removed INTEGER NOT NULL,
      refund_target INTEGER NOT NULL, amount INTEGER NOT NULL, amount_refunded INTEGER NOT NULL,
      currency TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS subscriptions (id TEXT PRIMARY KEY, ended INTEGER NOT NULL, last_event_at INTEGER NOT NULL)`);
  }

  /** Records the event id; false when it was recorded before (the event is a repeat). */
  firstSight(eventId: string, at: number): boolean {
    return this.sql.exec("INSERT OR IGNORE INTO stripe_events (id, at) VALUES (?, ?) RETURNING id", eventId, at).toArray().length > 0;
  }

  payment(ref: string): StoredPayment | null {
    return this.sql.exec<PaymentRow>("SELECT * FROM payments WHERE ref = ?", ref).toArray()[0] ?? null;
  }

  savePayment(row: StoredPayment): void {
    this.sql.exec(
      `INSERT OR REPLACE INTO payments (ref, product, credits, credits_removed, refund_target, amount, amount_refunded, currency, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.ref, row.product, row.credits, row.credits_removed, row.refund_target, row.amount, row.amount_refunded, row.currency, row.created_at,
    );
  }

  /** Payments that granted credits, newest first. */
  list(limit: number): PaymentRecord[] {
    return this.sql
      .exec<PaymentRow>("SELECT * FROM payments WHERE credits > 0 ORDER BY created_at DESC LIMIT ?", limit)
      .toArray()
      .map((row) => ({
        paymentRef: row.ref, product: row.product, credits: row.credits, creditsRemoved: row.credits_removed, amount: row.amount,
        amountRefunded: row.amount_refunded, currency: row.currency, createdAt: new Date(row.created_at).toISOString(),
      }));
  }

  subscription(id: string): { ended: boolean; lastEventAt: number } | null {
    const row = this.sql.exec<{ ended: number; last_event_at: number }>("SELECT ended, last_event_at FROM subscriptions WHERE id = ?", id).toArray()[0];
    return row ? { ended: row.ended === 1, lastEventAt: row.last_event_at } : null;
  }

  saveSubscription(id: string, ended: boolean, lastEventAt: number): void {
    this.sql.exec("INSERT OR REPLACE INTO subscriptions (id, ended, last_event_at) VALUES (?, ?, ?)", id, ended ? 1 : 0, lastEventAt);
  }

  plan(): PlanState {
    return this.kv.get<PlanState>(PLAN_KEY) ?? NO_PLAN;
  }

  /** Stores the plan with the next version and answers it. */
  setPlan(change: Omit<PlanState, "version">): PlanState {
    const next = { ...change, version: this.plan().version + 1 };
    this.kv.put(PLAN_KEY, next);
    return next;
  }
}
