// Phase 3: what the billed path adds to a call. A tiny compress through POST /v1/compress (key,
// reservation with its hold in the account's ledger, the work, settlement with the usage entry,
// the envelope) against the same work unbilled (validate, prepare, run; no key, no ledger, no
// log) on the same bench worker (scripts/bench/tools-worker.ts), interleaved in ABBA rounds.
// The usage log no longer writes to D1 on the request path: its entries leave the ledger through
// the queue, so what is left is two ledger steps and the key check.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { assertAllOk, createBenchKeys, interleaved, KeyRotation, rowOf, type BenchKeys, type GatewayRow } from "./gateway.ts";
import type { Send } from "./load.ts";
import { runClosedLoop } from "./load.ts";
import { cleanups, startLocalWorker } from "./processes.ts";

export const BILLED_PLAN = { warmup: 40, requests: 400, concurrency: 1, perKey: 55 } as const;
export const BILLED_GOAL_P50_MS = 3;

export interface BilledResult {
  keys: number;
  inputBytes: number;
  rows: GatewayRow[];
  addedP50Ms: number;
  addedP99Ms: number;
}

const ADMIN_TOKEN = "bench-billed-admin";

async function tinyPngDataUri(): Promise<string> {
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: "#3366cc" } }).png().toBuffer();
  return `data:image/png;base64,${png.toString("base64")}`;
}

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body, signal: AbortSignal.timeout(30_000) });
}

export async function measureBilled(log: (line: string) => void): Promise<BilledResult> {
  mkdirSync(".wrangler", { recursive: true });
  const persistTo = mkdtempSync(path.join(".wrangler", "bench-billed-"));
  const removeState = () => rmSync(persistTo, { recursive: true, force: true });
  cleanups.add(removeState);
  const worker = await startLocalWorker({
    label: "billed bench",
    config: "scripts/bench/wrangler.tools.toml",
    persistTo,
    readyPath: "/__bench/noop",
    vars: (baseUrl) => ({ ADMIN_TOKEN, PUBLIC_BASE_URL: baseUrl }),
  });
  try {
    const body = JSON.stringify({ image: await tinyPngDataUri(), quality: 70, targetFormat: "webp" });
    const total = 1 + BILLED_PLAN.warmup + BILLED_PLAN.requests;
    const keys = Math.ceil(total / BILLED_PLAN.perKey);
    const bench: BenchKeys = { accountIds: [], secrets: [] };
    await createBenchKeys({ baseUrl: worker.baseUrl, adminToken: ADMIN_TOKEN }, keys, bench, total);
    const rotation = new KeyRotation(bench.secrets);
    const check = (response: Response) => response.arrayBuffer().then(() => (response.status === 200 ? "ok" : String(response.status)));
    const sends: { baseline: Send; auth: Send } = {
      baseline: async () => check(await post(`${worker.baseUrl}/__bench/unbilled/compress_image`, body)),
      auth: async () => check(await post(`${worker.baseUrl}/v1/compress`, body, { Authorization: `Bearer ${rotation.next()}` })),
    };
    const probe = await post(`${worker.baseUrl}/v1/compress`, body, { Authorization: `Bearer ${rotation.next()}` });
    if (probe.status !== 200) throw new Error(`probe POST /v1/compress answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);
    await probe.arrayBuffer();
    log(`${keys} keys; warm-up ${BILLED_PLAN.warmup} + ${BILLED_PLAN.warmup}, then ${BILLED_PLAN.requests} + ${BILLED_PLAN.requests} at concurrency ${BILLED_PLAN.concurrency}...`);
    assertAllOk("billed warm-up", [
      await runClosedLoop(BILLED_PLAN.warmup, BILLED_PLAN.concurrency, 60_000, sends.baseline),
      await runClosedLoop(BILLED_PLAN.warmup, BILLED_PLAN.concurrency, 60_000, sends.auth),
    ]);
    const { runs, cpu } = await interleaved(BILLED_PLAN.requests, BILLED_PLAN.concurrency, sends, worker.group.pgid);
    assertAllOk("billed measurement", [...runs.baseline, ...runs.auth]);
    const unbilled = rowOf("compress (unbilled)", BILLED_PLAN.concurrency, runs.baseline, cpu.baseline);
    const billed = rowOf("POST /v1/compress", BILLED_PLAN.concurrency, runs.auth, cpu.auth);
    return { keys, inputBytes: body.length, rows: [unbilled, billed], addedP50Ms: billed.p50Ms - unbilled.p50Ms, addedP99Ms: billed.p99Ms - unbilled.p99Ms };
  } finally {
    await worker.group.stop();
    cleanups.delete(removeState);
    removeState();
  }
}
