import type { EntryDraft } from "../src/usage/log";

// Holds: the calls whose credits the ledger has taken and whose outcome it has not yet heard.
// A hold is written in the same step as the deduction, so a call that dies with its worker
// (an isolate torn down, a crashed process) still leaves a record the ledger can settle itself
// once the deadline passes. Kept in the object's SQLite storage, which commits with the balance.

export interface Hold {
  draft: EntryDraft;
  credits: number;
  /** After this the call cannot still be running: the ledger settles it as interrupted. */
  deadline: number;
  /** The Idempotency-Key the call runs under, released if the call is interrupted. */
  idempotency: { key: string; fingerprint: string } | null;
}

interface HoldRow extends Record<string, SqlStorageValue> {
  draft: string;
  credits: number;
  deadline: number;
  idempotency: string | null;
}

function holdOf(row: HoldRow): Hold {
  return { draft: JSON.parse(row.draft), credits: row.credits, deadline: row.deadline, idempotency: row.idempotency ? JSON.parse(row.idempotency) : null };
}

export class Holds {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS holds (
      id TEXT PRIMARY KEY, deadline INTEGER NOT NULL, credits INTEGER NOT NULL, draft TEXT NOT NULL, idempotency TEXT)`);
    sql.exec("CREATE INDEX IF NOT EXISTS holds_by_deadline ON holds (deadline)");
  }

  open(hold: Hold): void {
    this.sql.exec(
      "INSERT INTO holds (id, deadline, credits, draft, idempotency) VALUES (?, ?, ?, ?, ?)",
      hold.draft.id, hold.deadline, hold.credits, JSON.stringify(hold.draft), hold.idempotency ? JSON.stringify(hold.idempotency) : null,
    );
  }

  /** Removes and returns the hold; undefined when it was already settled (settling is idempotent). */
  take(id: string): Hold | undefined {
    const row = this.sql.exec<HoldRow>("DELETE FROM holds WHERE id = ? RETURNING draft, credits, deadline, idempotency", id).toArray()[0];
    return row ? holdOf(row) : undefined;
  }

  /** Removes and returns every hold whose deadline has passed. */
  takeExpired(now: number): Hold[] {
    return this.sql.exec<HoldRow>("DELETE FROM holds WHERE deadline <= ? RETURNING draft, credits, deadline, idempotency", now).toArray().map(holdOf);
  }

  nextDeadline(): number | null {
    return this.sql.exec<{ next: number | null }>("SELECT MIN(deadline) AS next FROM holds").one().next;
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM holds").one().n;
  }
}
