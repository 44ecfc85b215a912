import { ledgerOf } from "../accounts/ledger";
import type { Env } from "../env";
import { usageDatabaseFor } from "./database";
import type { UsageRecord } from "./log";

// The queue consumer that carries usage-log entries from the account ledgers' outboxes into D1.
// Delivery is at least once (a ledger re-sends what it has not seen acknowledged), so rows are
// inserted with INSERT OR IGNORE by entry id: a second copy changes nothing. Only after D1 has an
// entry is its ledger told to drop it from the outbox.

/** One queue message: entries of one account, in ledger order. */
export interface UsageMessage {
  accountId: string;
  entries: UsageRecord[];
}

const COLUMNS = [
  "id", "account_id", "seq", "key_prefix", "request_id", "tool", "source", "model", "prompt", "status_code",
  "error_code", "latency_ms", "credits_deducted", "credits_refunded", "credits_granted", "interrupted", "created_at",
] as const;
/** D1 binds at most 100 parameters per statement. */
const ROWS_PER_STATEMENT = Math.floor(100 / COLUMNS.length);

function valuesOf(entry: UsageRecord): unknown[] {
  return [
    entry.id, entry.accountId, entry.seq, entry.keyPrefix, entry.requestId, entry.tool, entry.source, entry.model,
    entry.prompt, entry.statusCode, entry.errorCode ?? null, Math.round(entry.latencyMs), entry.creditsDeducted, entry.creditsRefunded,
    entry.creditsGranted, entry.interrupted ? 1 : 0, entry.createdAt,
  ];
}

/** Writes entries to one database in a single round trip (one implicit transaction). */
export async function writeUsage(db: D1Database, entries: UsageRecord[]): Promise<void> {
  const statements: D1PreparedStatement[] = [];
  for (let start = 0; start < entries.length; start += ROWS_PER_STATEMENT) {
    const chunk = entries.slice(start, start + ROWS_PER_STATEMENT);
    const placeholders = chunk.map(() => `(${COLUMNS.map(() => "?").join(", ")})`).join(", ");
    statements.push(db.prepare(`INSERT OR IGNORE INTO usage_log (${COLUMNS.join(", ")}) VALUES ${placeholders}`).bind(...chunk.flatMap(valuesOf)));
  }
  if (statements.length > 0) await db.batch(statements);
}

function groupBy<K, T>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/**
 * The queue handler. Writes each database's entries in one batch, then acknowledges each
 * account's entries to its ledger. A message whose write or acknowledgement failed is retried
 * (and would be re-sent by its ledger anyway); the others are acknowledged.
 */
export async function deliverUsage(batch: MessageBatch<UsageMessage>, env: Env): Promise<void> {
  const byDatabase = groupBy(batch.messages, (message) => usageDatabaseFor(env, message.body.accountId));
  await Promise.all(
    [...byDatabase].map(async ([db, messages]) => {
      try {
        await writeUsage(db, messages.flatMap((message) => message.body.entries));
      } catch (error) {
        console.error("usage delivery: D1 write failed; retrying", error);
        for (const message of messages) message.retry();
        return;
      }
      await Promise.all(
        [...groupBy(messages, (message) => message.body.accountId)].map(async ([accountId, ofAccount]) => {
          try {
            await ledgerOf(env, accountId).acknowledgeUsage(ofAccount.flatMap((message) => message.body.entries.map((entry) => entry.id)));
            for (const message of ofAccount) message.ack();
          } catch (error) {
            console.error(`usage delivery: acknowledging to the ledger of ${accountId} failed; retrying`, error);
            for (const message of ofAccount) message.retry();
          }
        }),
      );
    }),
  );
}
