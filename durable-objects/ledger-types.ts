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
