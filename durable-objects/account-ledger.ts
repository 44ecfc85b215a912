import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import { IdempotencyRecords, type IdempotencyBegin } from "./idempotency-records";

// One AccountLedger per account (addressed by account id). It owns the credit balance, each
// key's sliding rate-limit window and the account's revocations, so "is this key still good,
// is there room in its window, is there balance, deduct" is a single step: every public method
// below runs to completion without awaiting, and a Durable Object runs one such step at a time.
//
// What must survive is written with the synchronous SQLite-backed KV API inside the same step
// (the balance, revoked keys, the closed flag), so no answer is given for state that was not
// persisted. The windows are kept in memory only: persisting them cost a disk sync on every
// request, and an idle object is evicted only after more than 60 s without requests, when its
// windows are empty anyway. A deploy or crash resets them, which can only let a key through
// early, never refuse it wrongly.

export const WINDOW_MS = 60_000;
export const WINDOW_LIMIT = 60;

const BALANCE_KEY = "balance";
const CLOSED_KEY = "closed";
const REVOKED_KEY_PREFIX = "revoked:";

export interface WindowState {
  limit: number;
  remaining: number;
  /** Whole seconds until the oldest request in the window leaves it (0 when the window is empty). */
  resetSeconds: number;
}

export interface LedgerSnapshot {
  balance: number;
  window: WindowState;
}

export interface ReserveRequest {
  keyId: string;
  /** Rate-limit slots to take: 1 for a request, one per item for a batch. */
  slots: number;
  /** Credits to deduct; 0 for free endpoints. */
  credits: number;
}

export type ReserveOutcome =
  | ({ ok: true } & LedgerSnapshot)
  | ({ ok: false; reason: "key_revoked" } & LedgerSnapshot)
  | ({ ok: false; reason: "account_closed" } & LedgerSnapshot)
  | ({ ok: false; reason: "rate_limited"; retryAfterSeconds: number } & LedgerSnapshot)
  | ({ ok: false; reason: "insufficient_credits"; required: number } & LedgerSnapshot);

export type IdempotencyOutcome = IdempotencyBegin & { window: WindowState };

export type GrantOutcome = { ok: true; balance: number } | { ok: false; balance: number };

export class AccountLedger extends DurableObject<Env> {
  private balance = 0;
  private closed = false;
  private readonly revoked = new Set<string>();
  private readonly windows = new Map<string, number[]>();

  /** The ledger's clock. Tests replace it (runInDurableObject) to move time without sleeping. */
  now: () => number = () => Date.now();

  private readonly idempotency = new IdempotencyRecords(this.ctx.storage.kv, (at) => this.scheduleSweep(at));

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(() => this.load());
  }

  /**
   * Takes `slots` from the key's window and `credits` from the balance, or neither.
   * A request refused for credits still uses its slot (it was a request); a rate-limited one
   * does not, so a client that keeps hammering is not locked out forever.
   */
  reserve(request: ReserveRequest): ReserveOutcome {
    assertCount(request.slots, "slots");
    assertCount(request.credits, "credits");
    const now = this.now();
    const window = this.windowOf(request.keyId, now);
    // The worker may have resolved the key from its cache; revocation is decided here.
    if (this.closed) return { ok: false, reason: "account_closed", ...this.snapshotOf(window, now) };
    if (this.revoked.has(request.keyId)) {
      return { ok: false, reason: "key_revoked", ...this.snapshotOf(window, now) };
    }
    if (window.length + request.slots > WINDOW_LIMIT) {
      return {
        ok: false,
        reason: "rate_limited",
        retryAfterSeconds: Math.max(1, secondsUntil(window[window.length + request.slots - WINDOW_LIMIT - 1]! + WINDOW_MS, now)),
        ...this.snapshotOf(window, now),
      };
    }
    for (let i = 0; i < request.slots; i++) window.push(now);
    if (request.credits > this.balance) {
      return { ok: false, reason: "insufficient_credits", required: request.credits, ...this.snapshotOf(window, now) };
    }
    if (request.credits > 0) this.setBalance(this.balance - request.credits);
    return { ok: true, ...this.snapshotOf(window, now) };
  }

  /** Gives back credits taken by `reserve` (an upstream failure). */
  refund(credits: number): number {
    assertCount(credits, "credits");
    this.setBalance(this.balance + credits);
    return this.balance;
  }

  /** Operator grant or debit. A debit that would take the balance below zero is refused whole. */
  grant(amount: number): GrantOutcome {
    if (!Number.isSafeInteger(amount)) throw new RangeError("amount must be an integer");
    if (this.balance + amount < 0) return { ok: false, balance: this.balance };
    this.setBalance(this.balance + amount);
    return { ok: true, balance: this.balance };
  }

  /** Balance and a key's window without taking a slot. */
  snapshot(keyId?: string): LedgerSnapshot {
    const now = this.now();
    return this.snapshotOf(keyId ? this.windowOf(keyId, now) : [], now);
  }

  /**
   * Claims an Idempotency-Key for a request (decisions "Idempotency"), or says to replay the
   * stored answer, that the first request is still running, or that the key was used with
   * another body. Takes no rate-limit slot: a replay costs the provider nothing.
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

  /** Expires idempotency records after 24 h, with their stored answers. */
  override async alarm(): Promise<void> {
    const { bodyKeys, nextExpiry } = this.idempotency.sweep(this.now());
    this.sweepAt = nextExpiry;
    if (nextExpiry !== null) this.ctx.storage.setAlarm(nextExpiry);
    if (bodyKeys.length > 0) await this.env.FILES.delete(bodyKeys);
  }

  /** When the sweep alarm is set for, once known; saves a storage read per claimed key. */
  private sweepAt: number | null | undefined;

  private scheduleSweep(at: number): void {
    // One alarm at a time; an earlier one already set will reschedule itself for the rest.
    if (this.sweepAt != null && this.sweepAt <= at) return;
    void (async () => {
      this.sweepAt ??= await this.ctx.storage.getAlarm();
      if (this.sweepAt === null || this.sweepAt > at) {
        this.sweepAt = at;
        await this.ctx.storage.setAlarm(at);
      }
    })();
  }

  /** Refuses the key from now on, even where a worker still has it cached. */
  revokeKey(keyId: string): void {
    this.ctx.storage.kv.put(REVOKED_KEY_PREFIX + keyId, true);
    this.revoked.add(keyId);
    this.windows.delete(keyId);
  }

  /** The account was deleted: forget the balance and refuse every key from now on. */
  async close(): Promise<void> {
    this.windows.clear();
    this.balance = 0;
    await this.ctx.storage.deleteAll();
    this.ctx.storage.kv.put(CLOSED_KEY, true);
    this.closed = true;
  }

  private async load(): Promise<void> {
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
