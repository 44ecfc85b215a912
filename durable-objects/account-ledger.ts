import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import { settingsOf } from "../src/config/settings";
import type { UsageRecord } from "../src/usage/log";
import { Holds, type Hold } from "./holds";
import { IdempotencyRecords } from "./idempotency-records";
import type {
  CallOutcome, GrantOutcome, IdempotencyOutcome, LedgerBacklog, LedgerSnapshot, PaymentEvent, PaymentOutcome, PaymentRecord, PlanState,
  ReserveOutcome, ReserveRequest, SettleOutcome,
} from "./ledger-types";
import { decidePayment, type PaymentBooks } from "./payment-steps";
import { Payments } from "./payments";
import { UsageOutbox } from "./usage-outbox";
import { RESEND_AFTER_MS, UsageSender } from "./usage-sender";
import { Wakeups } from "./wakeups";

// One AccountLedger per account (addressed by account id): the ledger of record. It owns the
// credit balance, each key's sliding rate-limit window, the account's revocations, the holds of
// calls in flight and the usage-log entries not yet delivered to D1. Every public method below
// runs to completion without awaiting, and a Durable Object runs one such step at a time, so
// "key good, room in the window, balance enough, deduct, open the hold" is one step, and so is
// "settle the hold, refund, write the log entry".
//
// What must survive is written to the object's SQLite storage inside the same step (balance,
// revoked keys, closed flag, holds, outbox), and the runtime commits a step's writes together
// before its answer leaves: no credit moves without its hold or its entry, whatever dies when.
// The windows are kept in memory only: persisting them cost a disk sync on every request, and
// an idle object is evicted only after more than 60 s without requests, when its windows are
// empty anyway. A restart resets them, which can only let a key through early, never refuse it.

export type * from "./ledger-types";

export const WINDOW_MS = 60_000;
export const WINDOW_LIMIT = 60;
const BALANCE_KEY = "balance";
const CLOSED_KEY = "closed";
const REVOKED_KEY_PREFIX = "revoked:";

/** The statuses the ledger's own refusals are answered with (errors.ts says the same). */
/** How the ledger's own refusals are logged: the status and error code the worker answers them with. */
const REFUSAL = {
  rate_limited: { statusCode: 429, errorCode: "rate_limit_exceeded" },
  insufficient_credits: { statusCode: 400, errorCode: "insufficient_credits" },
} as const;

export class AccountLedger extends DurableObject<Env> {
  private balance = 0;
  private closed = false;
  private readonly revoked = new Set<string>();
  private readonly windows = new Map<string, number[]>();
  private holds: Holds;
  private outbox: UsageOutbox;
  private payments: Payments;
  private readonly wakeups = new Wakeups(this.ctx.storage);
  private readonly usage = new UsageSender(() => this.outbox, this.wakeups, () => this.env.USAGE_QUEUE, this.ctx.id.name ?? "", () => this.now());
  /** When the next idempotency record expires; undefined until the first sweep after a start. */
  private sweepDue: number | null | undefined;

  /** The ledger's clock. Tests replace it (runInDurableObject) to move time without sleeping. */
  now: () => number = () => Date.now();

  private readonly idempotency = new IdempotencyRecords(this.ctx.storage.kv, (at) => {
    if (this.sweepDue == null || at < this.sweepDue) this.sweepDue = at;
    this.wakeups.request(at);
  });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.holds = new Holds(ctx.storage.sql);
    this.outbox = new UsageOutbox(ctx.storage.sql);
    this.payments = new Payments(ctx.storage.sql, ctx.storage.kv);
    ctx.blockConcurrencyWhile(() => this.load());
  }

  /**
   * Takes `slots` from the key's window and `credits` from the balance and opens the request's
   * holds, or takes no credits. A request refused for credits still uses its slot (it was a
   * request); a rate-limited one does not, so a client that keeps hammering is not locked out.
   */
  reserve(request: ReserveRequest): ReserveOutcome {
    assertCount(request.slots, "slots");
    assertCount(request.credits, "credits");
    const { usage } = request;
    if (usage && usage.holds.reduce((sum, hold) => sum + hold.credits, 0) !== request.credits) {
      throw new RangeError("the holds' credits must add up to the credits reserved");
    }
    const now = this.now();
    const window = this.windowOf(request.keyId, now);
    // The worker may have resolved the key from its cache; revocation is decided here.
    if (this.closed) return { ok: false, reason: "account_closed", ...this.snapshotOf(window, now) };
    if (this.revoked.has(request.keyId)) return { ok: false, reason: "key_revoked", ...this.snapshotOf(window, now) };
    if (window.length + request.slots > WINDOW_LIMIT) {
      if (usage) this.usage.write(usage.onRefusal, { ...REFUSAL.rate_limited, charged: 0, refunded: 0 });
      const oldestToLeave = window[window.length + request.slots - WINDOW_LIMIT - 1]!;
      return {
        ok: false,
        reason: "rate_limited",
        retryAfterSeconds: Math.max(1, secondsUntil(oldestToLeave + WINDOW_MS, now)),
        ...this.snapshotOf(window, now),
      };
    }
    for (let i = 0; i < request.slots; i++) window.push(now);
    if (request.credits > this.balance) {
      if (usage) this.usage.write(usage.onRefusal, { ...REFUSAL.insufficient_credits, charged: 0, refunded: 0 });
      return { ok: false, reason: "insufficient_credits", required: request.credits, ...this.snapshotOf(window, now) };
    }
    if (request.credits > 0) this.setBalance(this.balance - request.credits);
    if (usage) {
      const deadline = now + this.holdLifetimeMs();
      for (const { credits, idempotency, ...draft } of usage.holds) {
        assertCount(credits, "credits");
        this.holds.open({ draft, credits, deadline, idempotency: idempotency ?? null });
      }
      if (usage.holds.length > 0) this.wakeups.request(deadline);
      for (const { statusCode, errorCode, ...draft } of usage.refused) this.usage.write(draft, { statusCode, errorCode, charged: 0, refunded: 0 });
    }
    return { ok: true, ...this.snapshotOf(window, now) };
  }

  /**
   * Settles a call's hold: gives back what its outcome calls for and writes its log entry, in
   * one step. Idempotent by entry id: a second settle of the same call changes nothing.
   */
  settle(entryId: string, outcome: CallOutcome): SettleOutcome {
    const hold = this.holds.take(entryId);
    if (!hold) return { settled: false, balance: this.balance, refunded: 0 };
    const refunded = Math.min(hold.credits, Math.max(0, Math.trunc(outcome.refundCredits)));
    if (refunded > 0) this.setBalance(this.balance + refunded);
    this.usage.write(hold.draft, { statusCode: outcome.statusCode, errorCode: outcome.errorCode ?? null, charged: hold.credits, refunded, latencyMs: outcome.latencyMs });
    return { settled: true, balance: this.balance, refunded };
  }

  /** Operator grant or debit. A debit that would take the balance below zero is refused whole. */
  grant(amount: number): GrantOutcome {
    if (!Number.isSafeInteger(amount)) throw new RangeError("amount must be an integer");
    if (this.balance + amount < 0) return { ok: false, balance: this.balance };
    this.setBalance(this.balance + amount);
    return { ok: true, balance: this.balance };
  }

  /**
   * Applies a verified Stripe event (src/payments): grants a purchase's credits, takes back what a
   * refund calls for (never below zero: credits already spent stay spent), records the plan, and
   * writes the usage entry saying what it did, in one step. Keyed by the event id: a redelivered
   * or duplicated event changes nothing the second time.
   */
  applyPayment(event: PaymentEvent): PaymentOutcome {
    if (this.closed) return { applied: false, balance: 0, granted: 0, removed: 0, note: "the account is closed", plan: null };
    if (!this.payments.firstSight(event.eventId, event.at)) {
      // The plan again, so a worker that died before copying it to D1 the first time copies it now.
      const plan = this.payments.plan();
      return { applied: false, balance: this.balance, granted: 0, removed: 0, note: `event ${event.eventId} was applied before`, plan: plan.version > 0 ? plan : null };
    }
    const decision = decidePayment(this.paymentBooks, event);
    return { applied: true, balance: this.balance, ...decision };
  }

  /** The account's plan as Stripe events last set it, and its payments, newest first. */
  billing(limit: number): { plan: PlanState; payments: PaymentRecord[] } {
    return { plan: this.payments.plan(), payments: this.payments.list(Math.min(Math.max(1, Math.trunc(limit)), 100)) };
  }

  private readonly paymentBooks: PaymentBooks = {
    payments: () => this.payments,
    balance: () => this.balance,
    book: (event, tool, product, note, granted, removed) => {
      this.setBalance(this.balance + granted - removed);
      const draft = { id: `log_${event.eventId}`, requestId: event.eventId, keyPrefix: "", tool, source: "stripe" as const, model: product, prompt: note, startedAt: this.now() };
      this.usage.write(draft, { statusCode: 200, errorCode: null, charged: removed, refunded: 0, granted, latencyMs: 0 });
    },
  };

  /** Balance and a key's window without taking a slot. */
  snapshot(keyId?: string): LedgerSnapshot {
    const now = this.now();
    return this.snapshotOf(keyId ? this.windowOf(keyId, now) : [], now);
  }

  /** Entries written but not yet acknowledged as delivered to D1, newest first. */
  undeliveredUsage(limit: number): UsageRecord[] {
    return this.outbox.newest(Math.min(Math.max(1, Math.trunc(limit)), 1000));
  }

  /** The queue's consumer wrote these entries to D1. */
  acknowledgeUsage(entryIds: string[]): void {
    this.outbox.acknowledge(entryIds);
  }

  backlog(): LedgerBacklog {
    return { openHolds: this.holds.count(), undeliveredEntries: this.outbox.count() };
  }

  /**
   * Claims an Idempotency-Key for a request, or says to replay the stored answer, that the first
   * request is still running, or that the key was used with another body. Takes no rate-limit
   * slot: a replay costs the provider nothing.
   */
  beginIdempotent(request: { keyId: string; idempotencyKey: string; fingerprint: string }): IdempotencyOutcome {
    const now = this.now();
    const begun = this.idempotency.begin(request.idempotencyKey, request.fingerprint, now);
    return { ...begun, window: this.snapshotOf(this.windowOf(request.keyId, now), now).window };
  }

  completeIdempotent(idempotencyKey: string, fingerprint: string, status: number, bodyKey: string): void {
    this.idempotency.complete(idempotencyKey, fingerprint, status, bodyKey);
  }

  abandonIdempotent(idempotencyKey: string, fingerprint: string): void {
    this.idempotency.abandon(idempotencyKey, fingerprint);
  }

  /**
   * Settles the holds past their deadline as interrupted, sends what the outbox still owes the
   * usage queue, expires idempotency records after 24 h, and sets the next wake-up.
   */
  override async alarm(): Promise<void> {
    this.wakeups.fired();
    const now = this.now();
    for (const hold of this.holds.takeExpired(now)) this.settleInterrupted(hold);
    let expiredBodies: string[] = [];
    if (this.sweepDue === undefined || (this.sweepDue !== null && this.sweepDue <= now)) {
      const swept = this.idempotency.sweep(now);
      expiredBodies = swept.bodyKeys;
      this.sweepDue = swept.nextExpiry;
    }
    await this.usage.send();
    const due = this.outbox.nextDue(RESEND_AFTER_MS);
    const next = [this.holds.nextDeadline(), this.sweepDue ?? null, due === null ? null : Math.max(due, this.now() + 1_000)];
    const earliest = Math.min(...next.filter((time): time is number => time !== null));
    if (Number.isFinite(earliest)) this.wakeups.request(earliest);
    if (expiredBodies.length > 0) await this.env.FILES.delete(expiredBodies);
  }

  /** Refuses the key from now on, even where a worker still has it cached. */
  revokeKey(keyId: string): void {
    this.ctx.storage.kv.put(REVOKED_KEY_PREFIX + keyId, true);
    this.revoked.add(keyId);
    this.windows.delete(keyId);
  }

  /** The account was deleted: forget the balance, its holds and entries, and refuse every key from now on. */
  async close(): Promise<void> {
    this.windows.clear();
    this.balance = 0;
    await this.ctx.storage.deleteAll();
    this.wakeups.clear();
    this.holds = new Holds(this.ctx.storage.sql);
    this.outbox = new UsageOutbox(this.ctx.storage.sql);
    this.payments = new Payments(this.ctx.storage.sql, this.ctx.storage.kv);
    this.ctx.storage.kv.put(CLOSED_KEY, true);
    this.closed = true;
  }

  /**
   * The worker serving this call died before it answered (its deadline passed with the hold
   * open). The client never got an answer, so it is not charged: the credits go back, the entry
   * says 500 and interrupted, and the Idempotency-Key is released so a retry runs.
   */
  private settleInterrupted(hold: Hold): void {
    if (hold.credits > 0) this.setBalance(this.balance + hold.credits);
    this.usage.write(hold.draft, { statusCode: 500, errorCode: "internal_error", charged: hold.credits, refunded: hold.credits, interrupted: true });
    if (hold.idempotency) this.idempotency.abandon(hold.idempotency.key, hold.idempotency.fingerprint);
  }

  private holdLifetimeMs(): number {
    const settings = settingsOf(this.env);
    return settings.upstreamTimeoutMs + settings.holdMarginMs;
  }

  private async load(): Promise<void> {
    await this.wakeups.load();
    // After an eviction or a crash: what the outbox holds goes out again (delivery is idempotent),
    // and holds whose worker may have died are settled when their deadline comes, alarm or not.
    this.outbox.releaseAll();
    if (this.outbox.count() > 0) this.wakeups.request(this.now());
    const deadline = this.holds.nextDeadline();
    if (deadline !== null) this.wakeups.request(deadline);
    const kv = this.ctx.storage.kv;
    this.closed = kv.get<boolean>(CLOSED_KEY) === true;
    for (const [key] of kv.list({ prefix: REVOKED_KEY_PREFIX })) this.revoked.add(key.slice(REVOKED_KEY_PREFIX.length));
    const stored = kv.get<number>(BALANCE_KEY);
    if (stored !== undefined) {
      this.balance = stored;
      return;
    }
    // First touch: start from the opening balance recorded when the account was created.
    const accountId = this.ctx.id.name;
    const row = accountId
      ? await this.env.DB.prepare("SELECT opening_credits FROM accounts WHERE id = ?")
          .bind(accountId)
          .first<{ opening_credits: number }>()
      : null;
    this.setBalance(row?.opening_credits ?? 0);
  }

  private setBalance(value: number): void {
    if (value < 0 || !Number.isSafeInteger(value)) throw new RangeError(`balance would become ${value}`);
    this.balance = value;
    this.ctx.storage.kv.put(BALANCE_KEY, value);
  }

  /** The key's live window (timestamps, oldest first), pruned of requests older than 60 s. */
  private windowOf(keyId: string, now: number): number[] {
    let window = this.windows.get(keyId);
    if (!window) {
      window = [];
      this.windows.set(keyId, window);
    }
    let expired = 0;
    while (expired < window.length && window[expired]! <= now - WINDOW_MS) expired++;
    if (expired > 0) window.splice(0, expired);
    return window;
  }

  private snapshotOf(window: number[], now: number): LedgerSnapshot {
    return {
      balance: this.balance,
      window: {
        limit: WINDOW_LIMIT,
        remaining: Math.max(0, WINDOW_LIMIT - window.length),
        resetSeconds: window.length === 0 ? 0 : secondsUntil(window[0]! + WINDOW_MS, now),
      },
    };
  }
}

function secondsUntil(time: number, now: number): number {
  return Math.max(0, Math.ceil((time - now) / 1000));
}

function assertCount(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
}
