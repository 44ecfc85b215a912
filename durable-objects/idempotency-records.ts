// Idempotency records of one account (see src/billing/idempotency.ts), kept by its AccountLedger so a
// first request, its concurrent duplicates and later replays are decided one at a time, in the
// same single-threaded object that takes the credits. Each method is synchronous: no other
// request of the account can run between reading a record and writing it.
//
// A record only says where the stored answer is (an R2 key): answers can be tens of MB of
// base64, far over what a Durable Object value may hold.

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A record still "running" after this long belongs to a request that died without finishing
 * (an isolate torn down mid-call); a new request with the key may take it over. No request of
 * ours runs this long: the upstream limit is 60 s and Workers end requests long before.
 */
export const ABANDONED_AFTER_MS = 10 * 60 * 1000;
const PREFIX = "idem:";

interface RunningRecord {
  state: "running";
  fingerprint: string;
  startedAt: number;
}

interface DoneRecord {
  state: "done";
  fingerprint: string;
  startedAt: number;
  status: number;
  /** Where the answer's body is stored (R2). */
  bodyKey: string;
}

type IdempotencyRecord = RunningRecord | DoneRecord;

export type IdempotencyBegin =
  | { outcome: "proceed" }
  | { outcome: "replay"; status: number; bodyKey: string }
  | { outcome: "in_progress"; retryAfterSeconds: number }
  | { outcome: "conflict" };

export class IdempotencyRecords {
  constructor(
    private readonly kv: SyncKvStorage,
    private readonly scheduleSweep: (at: number) => void,
  ) {}

  /** Claims `key` for a request with this body fingerprint, or says what to answer instead. */
  begin(key: string, fingerprint: string, now: number): IdempotencyBegin {
    const record = this.live(key, now);
    if (record && record.fingerprint !== fingerprint) return { outcome: "conflict" };
    if (record?.state === "done") return { outcome: "replay", status: record.status, bodyKey: record.bodyKey };
    if (record?.state === "running" && now - record.startedAt < ABANDONED_AFTER_MS) {
      return { outcome: "in_progress", retryAfterSeconds: 1 };
    }
    this.kv.put<IdempotencyRecord>(PREFIX + key, { state: "running", fingerprint, startedAt: now });
    this.scheduleSweep(now + IDEMPOTENCY_TTL_MS);
    return { outcome: "proceed" };
  }

  /** The first request finished after a charge: its answer is what later duplicates get. */
  complete(key: string, fingerprint: string, status: number, bodyKey: string): void {
    const record = this.kv.get<IdempotencyRecord>(PREFIX + key);
    if (record?.state !== "running" || record.fingerprint !== fingerprint) return;
    this.kv.put<IdempotencyRecord>(PREFIX + key, { ...record, state: "done", status, bodyKey });
  }

  /** The first request failed before any charge: nothing is kept, the client may retry. */
  abandon(key: string, fingerprint: string): void {
    const record = this.kv.get<IdempotencyRecord>(PREFIX + key);
    if (record?.state === "running" && record.fingerprint === fingerprint) this.kv.delete(PREFIX + key);
  }

  /**
   * Deletes the records older than 24 h; returns the R2 keys of their stored answers and when
   * the next record expires (null when none is left).
   */
  sweep(now: number): { bodyKeys: string[]; nextExpiry: number | null } {
    const bodyKeys: string[] = [];
    let nextExpiry: number | null = null;
    for (const [name, record] of this.kv.list<IdempotencyRecord>({ prefix: PREFIX })) {
      const expiry = record.startedAt + IDEMPOTENCY_TTL_MS;
      if (expiry <= now) {
        this.kv.delete(name);
        if (record.state === "done") bodyKeys.push(record.bodyKey);
      } else if (nextExpiry === null || expiry < nextExpiry) {
        nextExpiry = expiry;
      }
    }
    return { bodyKeys, nextExpiry };
  }

  private live(key: string, now: number): IdempotencyRecord | undefined {
    const record = this.kv.get<IdempotencyRecord>(PREFIX + key);
    // Expired but not yet swept: as good as absent; begin() overwrites it.
    return record && record.startedAt + IDEMPOTENCY_TTL_MS > now ? record : undefined;
  }
}
