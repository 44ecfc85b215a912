import { ledgerOf } from "../accounts/ledger";
import type { Env } from "../env";
import { usageDatabaseFor } from "./database";
import { newestFirst, recordOfRow, USAGE_PAGE, usageEntryOf, type UsageEntry, type UsageLogRow, type UsageRecord } from "./log";

// Reading the log with read-your-writes: D1 holds what was delivered, the account's ledger what
// it has written but not yet seen delivered. An entry can be in both for a moment (written to
// D1, acknowledgement on its way), so the two are merged by id.

/** The newest `limit` entries of the account, delivered or not, newest first. */
export async function newestUsage(env: Env, accountId: string, limit: number): Promise<UsageRecord[]> {
  const [delivered, pending] = await Promise.all([
    usageDatabaseFor(env, accountId)
      .prepare("SELECT * FROM usage_log WHERE account_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?")
      .bind(accountId, limit)
      .all<UsageLogRow>(),
    ledgerOf(env, accountId).undeliveredUsage(limit),
  ]);
  const byId = new Map<string, UsageRecord>();
  for (const record of [...pending, ...delivered.results.map(recordOfRow)]) byId.set(record.id, record);
  return [...byId.values()].sort(newestFirst).slice(0, limit);
}

/** GET /v1/usage: newest first, at most USAGE_PAGE.max entries whatever is asked. */
export async function listUsage(env: Env, accountId: string, limit: number): Promise<UsageEntry[]> {
  const capped = Math.min(Math.max(1, Math.trunc(limit)), USAGE_PAGE.max);
  return (await newestUsage(env, accountId, capped)).map(usageEntryOf);
}
