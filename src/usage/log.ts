import { randomBase62 } from "../auth/keys";

// The usage log: one row per image-operation request that passed authentication.

export const USAGE_SOURCES = ["rest", "mcp", "cli"] as const;
export type UsageSource = (typeof USAGE_SOURCES)[number];

export const USAGE_PAGE = { default: 20, max: 100 } as const;

export interface UsageRecord {
  accountId: string;
  keyPrefix: string;
  requestId: string;
  tool: string;
  source: UsageSource;
  model: string;
  prompt: string;
  statusCode: number;
  latencyMs: number;
  creditsDeducted: number;
  creditsRefunded?: number;
  createdAt?: string;
}

/** A log entry as the API shows it (spec 2.3 plus the fields from decisions). */
export interface UsageEntry {
  id: string;
  model: string;
  prompt: string;
  status: string;
  latency: string;
  creditsDeducted: number;
  creditsRefunded: number;
  tool: string;
  source: UsageSource;
  keyPrefix: string;
  requestId: string;
  createdAt: string;
}

/** A usage_log row as D1 returns it. */
export interface UsageLogRow {
  id: string;
  key_prefix: string;
  request_id: string;
  tool: string;
  source: UsageSource;
  model: string;
  prompt: string;
  status_code: number;
  latency_ms: number;
  credits_deducted: number;
  credits_refunded: number;
  created_at: string;
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 409: "Conflict",
  413: "Payload Too Large", 422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error",
  502: "Bad Gateway", 504: "Gateway Timeout",
};

/** `200 OK`, the form the spec shows. */
export function statusLine(code: number): string {
  return `${code} ${STATUS_TEXT[code] ?? ""}`.trim();
}

/** Seconds with an `s` suffix, as the spec shows latency. */
export function formatLatency(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}

export async function recordUsage(db: D1Database, record: UsageRecord): Promise<string> {
  const id = "log_" + randomBase62(20);
  await db
    .prepare(
      `INSERT INTO usage_log (id, account_id, key_prefix, request_id, tool, source, model, prompt, status_code,
                              latency_ms, credits_deducted, credits_refunded, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(id, record.accountId, record.keyPrefix, record.requestId, record.tool, record.source, record.model,
      record.prompt, record.statusCode, Math.round(record.latencyMs), record.creditsDeducted,
      record.creditsRefunded ?? 0, record.createdAt ?? new Date().toISOString())
    .run();
  return id;
}

/** Newest first, at most USAGE_PAGE.max entries whatever is asked. */
export async function listUsage(db: D1Database, accountId: string, limit: number): Promise<UsageEntry[]> {
  const capped = Math.min(Math.max(1, Math.trunc(limit)), USAGE_PAGE.max);
  const { results } = await db
    .prepare("SELECT * FROM usage_log WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
    .bind(accountId, capped)
    .all<UsageLogRow>();
  return results.map(usageEntryOf);
}

export function usageEntryOf(row: UsageLogRow): UsageEntry {
  return {
    id: row.id,
    model: row.model,
    prompt: row.prompt,
    status: statusLine(row.status_code),
    latency: formatLatency(row.latency_ms),
    creditsDeducted: row.credits_deducted,
    creditsRefunded: row.credits_refunded,
    tool: row.tool,
    source: row.source,
    keyPrefix: row.key_prefix,
    requestId: row.request_id,
    createdAt: row.created_at,
  };
}
