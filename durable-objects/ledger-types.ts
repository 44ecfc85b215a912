import type { Plan } from "../src/accounts/repository";
import type { EntryDraft } from "../src/usage/log";
import type { IdempotencyBegin } from "./idempotency-records";

// What the AccountLedger's RPC methods take and answer (account-ledger.ts).

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

/** A call about to run: its entry, its price, and the Idempotency-Key it runs under. */
export interface HoldRequest extends EntryDraft {
  credits: number;
  idempotency?: { key: string; fingerprint: string } | null;
}

/** A call refused before any charge: logged free, with the status it was answered with. */
export interface RefusedCall extends EntryDraft {
  statusCode: number;
  /** The error code it was answered with. */
  errorCode: string;
}

export interface ReserveRequest {
  keyId: string;
  /** Rate-limit slots to take: 1 for a request, one per item for a batch. */
  slots: number;
  /** Credits to deduct; 0 for free endpoints. */
  credits: number;
  /** How the usage log records this request; free endpoints, which are not logged, leave it out. */
  usage?: {
    /** Opened when the reservation goes through: one per call that will run; credits add up to `credits`. */
    holds: HoldRequest[];
    /** Logged when the reservation goes through: calls refused before any charge (bad batch items, bad bodies). */
    refused: RefusedCall[];
    /** Logged when the ledger itself refuses the request (window full, balance short). */
    onRefusal: EntryDraft;
  };
}

export type ReserveOutcome =
  | ({ ok: true } & LedgerSnapshot)
  | ({ ok: false; reason: "key_revoked" } & LedgerSnapshot)
  | ({ ok: false; reason: "account_closed" } & LedgerSnapshot)
  | ({ ok: false; reason: "rate_limited"; retryAfterSeconds: number } & LedgerSnapshot)
  | ({ ok: false; reason: "insufficient_credits"; required: number } & LedgerSnapshot);

/** How a call that ran ended, as its worker reports it. */
export interface CallOutcome {
  statusCode: number;
  /** The error code of a failed call; absent or null when it succeeded. */
  errorCode?: string | null;
  /** Credits to give back: all of them for a provider failure, part for a failed paid stage. */
  refundCredits: number;
  latencyMs: number;
}

/** `settled` is false when the hold was already settled (a retry, or the alarm came first). */
export interface SettleOutcome {
  settled: boolean;
  balance: number;
  refunded: number;
}

export type IdempotencyOutcome = IdempotencyBegin & { window: WindowState };

export type GrantOutcome = { ok: true; balance: number } | { ok: false; balance: number };

/** What is in flight or undelivered: for the operator and the stress proof. */
export interface LedgerBacklog {
  openHolds: number;
  undeliveredEntries: number;
}

/**
 * A verified Stripe event as the worker read it against the product table (src/payments): what it
 * means for this account. Amounts are Stripe's (smallest currency unit); credits are the table's.
 * `at` is the event's creation time (ms): subscription changes older than one already applied
 * are ignored, so out-of-order deliveries cannot undo a later state.
 */
export type PaymentEvent =
  | { kind: "purchase"; eventId: string; at: number; product: string; credits: number;
      /** The payment intent a refund will name; null for a payment without one (a free invoice). */
      paymentRef: string | null; amount: number; currency: string; plan?: PlanPeriod }
  | { kind: "refund"; eventId: string; at: number; paymentRef: string; amount: number; amountRefunded: number }
  | { kind: "subscription"; eventId: string; at: number; subscriptionId: string;
      /** ended: deleted, or canceled/unpaid; the account returns to free. */
      status: "active" | "ended"; plan?: Plan; periodEnd?: number; cancelAtPeriodEnd: boolean };

/** A plan's paid period, from a paid invoice. */
export interface PlanPeriod {
  plan: Plan;
  subscriptionId: string;
  /** When the paid period ends (ms). */
  periodEnd: number;
  billingCycle: string;
}

/** The plan the ledger last decided for the account; `version` orders the copies written to D1. */
export interface PlanState {
  plan: Plan;
  validUntil: string | null;
  billingCycle: string;
  subscriptionId: string | null;
  cancelAtPeriodEnd: boolean;
  version: number;
}

export interface PaymentOutcome {
  /** False when this event id was applied before: nothing changed. */
  applied: boolean;
  balance: number;
  granted: number;
  removed: number;
  /** What the ledger did, in words (also the usage entry's text). */
  note: string;
  /** Set when the event changed the plan: the copy to write to D1. */
  plan: PlanState | null;
}

/** A payment as the billing page lists it. */
export interface PaymentRecord {
  paymentRef: string;
  product: string;
  credits: number;
  creditsRemoved: number;
  amount: number;
  amountRefunded: number;
  currency: string;
  createdAt: string;
}
