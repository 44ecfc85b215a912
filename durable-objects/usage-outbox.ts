import type { UsageRecord } from "../src/usage/log";

// The ledger's outbox of usage-log entries. An entry is written here in the same step as the
// credit movement it describes, sent to the usage queue, and deleted only when the queue's
// consumer reports it written to D1 (acknowledge). Until then it is also what makes a call's
// entry visible on the next /v1/usage (newest), and what the ledger re-sends when an
// acknowledgement does not come (claim with a resend delay).

interface OutboxRow extends Record<string, SqlStorageValue> {
  seq: number;
  entry: string;
}

const recordOf = (row: OutboxRow): UsageRecord => ({ ...JSON.parse(row.entry), seq: row.seq });

export class UsageOutbox {
  constructor(private readonly sql: SqlStorage) {
    // AUTOINCREMENT: a sequence number is never reused, even after the outbox empties.
    sql.exec(`CREATE TABLE IF NOT EXISTS usage_outbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, entry TEXT NOT NULL, bytes INTEGER NOT NULL, sent_at INTEGER)`);
  }

  /** Adds an entry; returns it with its sequence number. A second entry with the same id is dropped. */
  append(entry: Omit<UsageRecord, "seq">): UsageRecord | undefined {
    const text = JSON.stringify(entry);
    const row = this.sql
      .exec<{ seq: number }>("INSERT OR IGNORE INTO usage_outbox (id, entry, bytes) VALUES (?, ?, ?) RETURNING seq", entry.id, text, text.length)
      .toArray()[0];
    return row ? { ...entry, seq: row.seq } : undefined;
  }

  /** The newest `limit` undelivered entries, newest first. */
  newest(limit: number): UsageRecord[] {
    return this.sql.exec<OutboxRow>("SELECT seq, entry FROM usage_outbox ORDER BY seq DESC LIMIT ?", limit).toArray().map(recordOf);
  }

  /**
   * Marks for sending, oldest first, the entries never sent or sent more than `resendAfterMs`
   * ago, up to `maxCount` entries and about `maxBytes` of JSON (a queue message's size limit).
   */
  claim(now: number, resendAfterMs: number, maxCount: number, maxBytes: number): UsageRecord[] {
    const rows = this.sql
      .exec<OutboxRow & { bytes: number }>(
        "SELECT seq, entry, bytes FROM usage_outbox WHERE sent_at IS NULL OR sent_at <= ? ORDER BY seq LIMIT ?",
        now - resendAfterMs, maxCount,
      )
      .toArray();
    let total = 0;
    const taken = rows.filter((row, index) => (total += row.bytes) <= maxBytes || index === 0);
    if (taken.length > 0) {
      this.sql.exec("UPDATE usage_outbox SET sent_at = ? WHERE seq IN (SELECT value FROM json_each(?))", now, JSON.stringify(taken.map((row) => row.seq)));
    }
    return taken.map(recordOf);
  }

  /** The send failed: these entries go out again with the next claim. */
  release(ids: string[]): void {
    this.sql.exec("UPDATE usage_outbox SET sent_at = NULL WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(ids));
  }

  /** Everything goes out again with the next claim (a new instance cannot know what its predecessor sent). */
  releaseAll(): void {
    this.sql.exec("UPDATE usage_outbox SET sent_at = NULL WHERE sent_at IS NOT NULL");
  }

  /** D1 has these entries: they leave the outbox. */
  acknowledge(ids: string[]): void {
    this.sql.exec("DELETE FROM usage_outbox WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(ids));
  }

  /** When the oldest entry becomes due for (re)sending; null when the outbox is empty. */
  nextDue(resendAfterMs: number): number | null {
    const row = this.sql.exec<{ unsent: number; oldest: number | null }>(
      "SELECT COUNT(*) - COUNT(sent_at) AS unsent, MIN(sent_at) AS oldest FROM usage_outbox",
    ).one();
    if (row.unsent > 0) return 0;
    return row.oldest === null ? null : row.oldest + resendAfterMs;
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM usage_outbox").one().n;
  }
}
