// The usage log: one entry per image-operation request that passed authentication (a batch
// writes one per item), failures included, and one per credit movement a Stripe payment made
// (source `stripe`: a purchase's grant, a refund's removal).
//
// An entry is born in the account's ledger (durable-objects/account-ledger.ts), in the same
// step as the credit movement it records, and travels from the ledger's outbox to D1 through a
// queue (usage/delivery.ts). D1 is the log that /v1/usage and the dashboard read; entries the
// ledger has not yet delivered are merged in (listUsage), so a call's entry is visible at once.

import { randomBase62 } from "../ids/random";

export const USAGE_SOURCES = ["rest", "mcp", "cli", "stripe"] as const;
export type UsageSource = (typeof USAGE_SOURCES)[number];

export const USAGE_PAGE = { default: 20, max: 100 } as const;

/** What the worker tells the ledger about a call before it is settled. */
export interface EntryDraft {
  /** The entry's id, one per call (newEntryId); settling is idempotent by it. */
  id: string;
  requestId: string;
  keyPrefix: string;
  tool: string;
  source: UsageSource;
  model: string;
  prompt: string;
  /** When the request arrived (ms since the epoch). */
  startedAt: number;
}

/** A settled entry, as the ledger writes it and D1 stores it. */
export interface UsageRecord extends Omit<EntryDraft, "startedAt"> {
  accountId: string;
  /** The entry's position in its account's ledger: orders entries of the same millisecond. */
  seq: number;
  statusCode: number;
  /** The error code a failed call was answered with; null for a success (and entries from before it was kept). */
  errorCode: string | null;
  latencyMs: number;
  creditsDeducted: number;
  creditsRefunded: number;
  /** Credits this entry added to the balance (a Stripe purchase); 0 for calls. */
  creditsGranted: number;
  /** The worker died before answering; the ledger's alarm settled the call and refunded it. */
  interrupted: boolean;
  createdAt: string;
}

/** A log entry as the API shows it: the documented fields plus tool, source, key and request. */
export interface UsageEntry {
  id: string;
  model: string;
  prompt: string;
  status: string;
  errorCode: string | null;
  latency: string;
  creditsDeducted: number;
  creditsRefunded: number;
  creditsGranted: number;
  interrupted: boolean;
  tool: string;
  source: UsageSource;
  keyPrefix: string;
  requestId: string;
  createdAt: string;
}

/** A usage_log row as D1 returns it. */
export interface UsageLogRow {
  id: string;
  account_id: string;
  seq: number;
  key_prefix: string;
  request_id: string;
  tool: string;
  source: UsageSource;
  model: string;
  prompt: string;
  status_code: number;
  error_code: string | null;
  latency_ms: number;
  credits_deducted: number;
  credits_refunded: number;
  credits_granted: number;
  interrupted: number;
  created_at: string;
}

/**
 * A new entry id: one per call (a batch item is a call), so each settles on its own. Random, not
 * derived from the request id: one MCP request may carry several tool calls.
 */
export function newEntryId(): string {
  return "log_" + randomBase62(20);
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 409: "Conflict",
  413: "Payload Too Large", 422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error",
  502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
};

/** `200 OK`, the form the API shows. */
export function statusLine(code: number): string {
  return `${code} ${STATUS_TEXT[code] ?? ""}`.trim();
}

/** Seconds with an `s` suffix. */
export function formatLatency(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}

export function recordOfRow(row: UsageLogRow): UsageRecord {
  return {
    id: row.id, accountId: row.account_id, seq: row.seq, requestId: row.request_id, keyPrefix: row.key_prefix,
    tool: row.tool, source: row.source, model: row.model, prompt: row.prompt, statusCode: row.status_code,
    errorCode: row.error_code ?? null, latencyMs: row.latency_ms, creditsDeducted: row.credits_deducted, creditsRefunded: row.credits_refunded,
    creditsGranted: row.credits_granted, interrupted: row.interrupted === 1, createdAt: row.created_at,
  };
}

export function usageEntryOf(record: UsageRecord): UsageEntry {
  return {
    id: record.id,
    model: record.model,
    prompt: record.prompt,
    status: statusLine(record.statusCode),
    errorCode: record.errorCode ?? null,
    latency: formatLatency(record.latencyMs),
    creditsDeducted: record.creditsDeducted,
    creditsRefunded: record.creditsRefunded,
    creditsGranted: record.creditsGranted,
    interrupted: record.interrupted,
    tool: record.tool,
    source: record.source,
    keyPrefix: record.keyPrefix,
    requestId: record.requestId,
    createdAt: record.createdAt,
  };
}

/** Newest first: by time, then by the ledger's sequence within the same millisecond. */
export function newestFirst(a: UsageRecord, b: UsageRecord): number {
  return a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.seq - a.seq;
}
