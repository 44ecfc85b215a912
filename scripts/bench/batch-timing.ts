// One case of `npm run bench:batch`: each item alone as a single call (one after another, each
// timed), then all of them as one POST /v1/batch; the run's ratio is the batch's time over the
// slowest single item. Timed from outside over loopback, as a client sees it.
import type { BatchCase } from "./batch-cases.ts";

export interface CaseRun {
  slowestSingleMs: number;
  batchMs: number;
  ratio: number;
}

/** Returns a key with room for `slots` more requests in its 60-per-60-s window. */
export type KeySource = (slots: number) => Promise<string>;

async function post(baseUrl: string, path: string, key: string, body: unknown): Promise<{ ms: number; status: number; json: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  return { ms, status: response.status, json: JSON.parse(text) as Record<string, unknown> };
}

export async function runCase(baseUrl: string, c: BatchCase, nextKey: KeySource): Promise<CaseRun> {
  const key = await nextKey(c.items.length * 2);
  let slowestSingleMs = 0;
  for (const item of c.items) {
    const single = await post(baseUrl, item.path, key, item.args);
    if (single.status !== 200) throw new Error(`${c.name}: single ${item.path} answered ${single.status}: ${JSON.stringify(single.json).slice(0, 300)}`);
    slowestSingleMs = Math.max(slowestSingleMs, single.ms);
  }
  const batch = await post(baseUrl, "/v1/batch", key, { requests: c.items.map(({ tool, args }) => ({ tool, args })) });
  const results = (batch.json.results ?? []) as Array<{ success: boolean; status: number; data: unknown }>;
  const failed = results.filter((result) => !result.success);
  if (batch.status !== 200 || results.length !== c.items.length || failed.length > 0) {
    throw new Error(`${c.name}: batch answered ${batch.status} with ${failed.length} failed of ${results.length}: ${JSON.stringify(failed[0] ?? batch.json).slice(0, 300)}`);
  }
  return { slowestSingleMs, batchMs: batch.ms, ratio: batch.ms / slowestSingleMs };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
