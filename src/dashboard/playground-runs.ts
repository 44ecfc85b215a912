import { randomBase62 } from "../ids/random";
import type { BilledResult } from "../billing/billed-call";
import type { Env } from "../env";
import type { PixelgateError } from "../errors";

// Playground runs, kept so that the page after a run's redirect (post/redirect/get) can show it
// any number of times while the run happens once. Each rendered form carries a fresh token; the
// POST claims it (one row per account and token), so a resubmitted form finds its run instead
// of running and billing again. The result body and an uploaded picture live in R2.

export const RUN_TOKEN = /^[0-9A-Za-z]{24}$/;
/** Runs (and their R2 objects) older than this are removed when the account runs again. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** A run still "running" after this was cut off (the request ended before it did). */
const ABANDONED_MS = 10 * 60 * 1000;

export function newRunToken(): string {
  return randomBase62(24);
}

export interface KeptUpload {
  /** The R2 key of the bytes: always under this account's prefix. */
  key: string;
  name: string;
}

export interface RunError {
  code: string;
  message: string;
  param?: string;
}

export interface PlaygroundRun {
  token: string;
  tool: string;
  /** "abandoned": it never recorded an end; the usage log says whether it was charged. */
  state: "running" | "done" | "failed" | "abandoned";
  /** The text fields as typed, to refill the form with. */
  form: Record<string, string>;
  upload: KeptUpload | null;
  error: RunError | null;
}

const resultKey = (accountId: string, token: string) => `playground/${accountId}/runs/${token}.json`;
const uploadPrefix = (accountId: string) => `playground/${accountId}/uploads/`;

/** Claims the token for a run; false when a run with it exists already (the form was resubmitted). */
export async function claimRun(env: Env, accountId: string, token: string, tool: string, form: Record<string, string>): Promise<boolean> {
  await pruneRuns(env, accountId);
  const inserted = await env.DB.prepare(
    "INSERT OR IGNORE INTO playground_runs (account_id, token, tool, state, form, created_at) VALUES (?, ?, ?, 'running', ?, ?)",
  ).bind(accountId, token, tool, JSON.stringify(form), Date.now()).run();
  return inserted.meta.changes === 1;
}

export async function findRun(db: D1Database, accountId: string, token: string): Promise<PlaygroundRun | null> {
  if (!RUN_TOKEN.test(token)) return null;
  const row = await db
    .prepare("SELECT token, tool, state, form, upload_key, upload_name, error, created_at FROM playground_runs WHERE account_id = ? AND token = ?")
    .bind(accountId, token)
    .first<{ token: string; tool: string; state: "running" | "done" | "failed"; form: string; upload_key: string | null; upload_name: string | null; error: string | null; created_at: number }>();
  if (!row) return null;
  return {
    token: row.token,
    tool: row.tool,
    state: row.state === "running" && Date.now() - row.created_at > ABANDONED_MS ? "abandoned" : row.state,
    form: JSON.parse(row.form) as Record<string, string>,
    upload: row.upload_key ? { key: row.upload_key, name: row.upload_name ?? "your file" } : null,
    error: row.error ? (JSON.parse(row.error) as RunError) : null,
  };
}

/** Records how the run ended: its result body in R2, or its error. */
export async function finishRun(env: Env, accountId: string, token: string, upload: KeptUpload | null, outcome: { ok: true; output: BilledResult } | { ok: false; error: PixelgateError }): Promise<void> {
  if (outcome.ok) {
    await env.FILES.put(resultKey(accountId, token), JSON.stringify(outcome.output), { httpMetadata: { contentType: "application/json" } });
  }
  const error = outcome.ok ? null : JSON.stringify({ code: outcome.error.code, message: outcome.error.message, param: outcome.error.param });
  await env.DB.prepare("UPDATE playground_runs SET state = ?, upload_key = ?, upload_name = ?, error = ? WHERE account_id = ? AND token = ?")
    .bind(outcome.ok ? "done" : "failed", upload?.key ?? null, upload?.name ?? null, error, accountId, token)
    .run();
}

export async function runResult(bucket: R2Bucket, accountId: string, token: string): Promise<BilledResult | null> {
  const stored = await bucket.get(resultKey(accountId, token));
  return stored ? ((await stored.json()) as BilledResult) : null;
}

/** Keeps an uploaded picture for this run and the re-runs of its form. */
export async function keepUpload(bucket: R2Bucket, accountId: string, token: string, file: File): Promise<KeptUpload> {
  const key = `${uploadPrefix(accountId)}${token}`;
  await bucket.put(key, await file.arrayBuffer(), { httpMetadata: { contentType: file.type || "application/octet-stream" }, customMetadata: { name: file.name } });
  return { key, name: file.name || "your file" };
}

/** A kept upload of this account, by the key its form carried; null for anything else. */
export async function findUpload(bucket: R2Bucket, accountId: string, key: string): Promise<{ upload: KeptUpload; bytes: Uint8Array; type: string } | null> {
  if (!key.startsWith(uploadPrefix(accountId)) || !RUN_TOKEN.test(key.slice(uploadPrefix(accountId).length))) return null;
  const stored = await bucket.get(key);
  if (!stored) return null;
  const bytes = new Uint8Array(await stored.arrayBuffer());
  return { upload: { key, name: stored.customMetadata?.name ?? "your file" }, bytes, type: stored.httpMetadata?.contentType ?? "application/octet-stream" };
}

/** Removes the account's old runs, their results, and uploads no remaining run uses. */
async function pruneRuns(env: Env, accountId: string): Promise<void> {
  const cutoff = Date.now() - KEEP_MS;
  const old = await env.DB.prepare("DELETE FROM playground_runs WHERE account_id = ? AND created_at < ? RETURNING token, upload_key")
    .bind(accountId, cutoff)
    .all<{ token: string; upload_key: string | null }>();
  if (old.results.length === 0) return;
  const uploads = [...new Set(old.results.flatMap((row) => (row.upload_key ? [row.upload_key] : [])))];
  const stillUsed = new Set<string>();
  for (const key of uploads) {
    if (await env.DB.prepare("SELECT 1 FROM playground_runs WHERE upload_key = ? LIMIT 1").bind(key).first()) stillUsed.add(key);
  }
  await env.FILES.delete([...old.results.map((row) => resultKey(accountId, row.token)), ...uploads.filter((key) => !stillUsed.has(key))]);
}
