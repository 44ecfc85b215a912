import { env } from "cloudflare:workers";
import type { LedgerBacklog } from "../../durable-objects/account-ledger";
import { writeUsage } from "../../src/usage/delivery";
import type { UsageRecord } from "../../src/usage/log";
import { newestUsage } from "../../src/usage/read";

// The usage log as tests read and seed it: seeded entries go into D1 through the queue
// consumer's own writer; a call's entries are read through the same merged view /v1/usage uses
// (delivered to D1 or still in the ledger's outbox).

let seeded = 0;

export type SeededEntry = Omit<UsageRecord, "id" | "seq" | "interrupted" | "creditsRefunded" | "creditsGranted" | "createdAt" | "errorCode"> &
  Partial<Pick<UsageRecord, "id" | "interrupted" | "creditsRefunded" | "creditsGranted" | "createdAt" | "errorCode">>;

/** Writes one entry straight into D1, as if delivered; returns its id. */
export async function recordUsage(db: D1Database, entry: SeededEntry): Promise<string> {
  const id = entry.id ?? `log_seeded_${Date.now()}_${++seeded}`;
  await writeUsage(db, [{ creditsRefunded: 0, creditsGranted: 0, interrupted: false, createdAt: new Date().toISOString(), errorCode: null, ...entry, id, seq: seeded }]);
  return id;
}

export interface LogRow {
  id: string;
  tool: string;
  source: string;
  status_code: number;
  error_code: string | null;
  credits_deducted: number;
  credits_refunded: number;
  request_id: string;
  key_prefix: string;
  interrupted: boolean;
}

/**
 * The account's entries, oldest first, delivered or not. A successful call's settlement may still
 * be on its way when its answer arrives, so this first waits (bounded) for the account's open
 * holds to settle, unless the test keeps one open on purpose.
 */
export async function usageRows(accountId: string, options: { whileHeld?: boolean } = {}): Promise<LogRow[]> {
  if (!options.whileHeld) await settled(accountId);
  const records = await newestUsage(env, accountId, 1000);
  return records.reverse().map((record) => ({
    id: record.id,
    tool: record.tool,
    source: record.source,
    status_code: record.statusCode,
    error_code: record.errorCode ?? null,
    credits_deducted: record.creditsDeducted,
    credits_refunded: record.creditsRefunded,
    request_id: record.requestId,
    key_prefix: record.keyPrefix,
    interrupted: record.interrupted,
  }));
}

async function waitForLedger(accountId: string, done: (backlog: LedgerBacklog) => boolean, what: string, timeoutMs: number): Promise<void> {
  const ledger = env.LEDGER.getByName(accountId);
  const deadline = Date.now() + timeoutMs;
  while (!done(await ledger.backlog())) {
    if (Date.now() > deadline) throw new Error(`${what} of ${accountId} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits (bounded) until the account's ledger has no open holds. */
export function settled(accountId: string, timeoutMs = 10_000): Promise<void> {
  return waitForLedger(accountId, (backlog) => backlog.openHolds === 0, "holds not settled", timeoutMs);
}

/** Waits (bounded) until the account's ledger has no undelivered entries, i.e. D1 has them all. */
export function usageDelivered(accountId: string, timeoutMs = 15_000): Promise<void> {
  return waitForLedger(accountId, (backlog) => backlog.undeliveredEntries === 0, "usage entries not delivered to D1", timeoutMs);
}
