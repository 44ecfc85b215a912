import { env } from "cloudflare:workers";
import { writeUsage } from "../../src/usage/delivery";
import type { UsageRecord } from "../../src/usage/log";
import { newestUsage } from "../../src/usage/read";

// The usage log as tests read and seed it: seeded entries go into D1 through the queue
// consumer's own writer; a call's entries are read through the same merged view /v1/usage uses
// (delivered to D1 or still in the ledger's outbox).

let seeded = 0;

export type SeededEntry = Omit<UsageRecord, "id" | "seq" | "interrupted" | "creditsRefunded" | "createdAt"> &
  Partial<Pick<UsageRecord, "id" | "interrupted" | "creditsRefunded" | "createdAt">>;

/** Writes one entry straight into D1, as if delivered; returns its id. */
export async function recordUsage(db: D1Database, entry: SeededEntry): Promise<string> {
  const id = entry.id ?? `log_seeded_${Date.now()}_${++seeded}`;
  await writeUsage(db, [{ creditsRefunded: 0, interrupted: false, createdAt: new Date().toISOString(), ...entry, id, seq: seeded }]);
  return id;
}

export interface LogRow {
  id: string;
  tool: string;
  source: string;
  status_code: number;
  credits_deducted: number;
  credits_refunded: number;
  request_id: string;
  key_prefix: string;
  interrupted: boolean;
}

/** The account's entries, oldest first, delivered or not. */
export async function usageRows(accountId: string): Promise<LogRow[]> {
  const records = await newestUsage(env, accountId, 1000);
  return records.reverse().map((record) => ({
    id: record.id,
    tool: record.tool,
    source: record.source,
    status_code: record.statusCode,
    credits_deducted: record.creditsDeducted,
    credits_refunded: record.creditsRefunded,
    request_id: record.requestId,
    key_prefix: record.keyPrefix,
    interrupted: record.interrupted,
  }));
}

/** Waits (bounded) until the account's ledger has no undelivered entries, i.e. D1 has them all. */
export async function usageDelivered(accountId: string, timeoutMs = 15_000): Promise<void> {
  const ledger = env.LEDGER.getByName(accountId);
  const deadline = Date.now() + timeoutMs;
  while ((await ledger.backlog()).undeliveredEntries > 0) {
    if (Date.now() > deadline) throw new Error(`usage entries of ${accountId} not delivered to D1 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
