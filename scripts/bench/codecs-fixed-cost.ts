// The fixed cost of one tiny compress, end to end: POST /v1/compress of a 16x16 PNG to WebP
// against a local server (started here unless one answers at PIXELGATE_URL), next to
//   - an empty Worker (scripts/bench/empty-worker.js) under its own `wrangler dev` on the same
//     machine: what the local runtime costs any request (wrangler's proxy, miniflare's entry
//     worker, the HTTP hops), none of which a deployed Worker pays. Compress minus this is
//     Pixelgate's own fixed cost, the figure the goal is about; it does not move with the
//     machine's load the way the end-to-end figure does;
//   - GET /v1/me on the same server (authentication, the rate-limit slot and the balance:
//     everything a billed call does besides its own work);
//   - sharp doing the same decode + encode in this process.
// Requests run one at a time, the three kinds in turn; the figures are medians.
import path from "node:path";
import sharp from "sharp";
import { acquireGateway, createBenchKeys, deleteBenchAccounts, type BenchKeys, type Gateway } from "./gateway.ts";
import { REPO_ROOT, startLocalWorker } from "./processes.ts";

export interface FixedCostResult {
  requests: number;
  compressMs: number;
  /** The empty Worker under the same local runtime. */
  emptyMs: number;
  /** compress minus the empty Worker: Pixelgate's own fixed cost (the goal). */
  addedMs: number;
  meMs: number;
  /** compress minus /v1/me: what the compress path itself adds. */
  compressOwnMs: number;
  sharpMs: number;
  goalMs: number;
  met: boolean;
  burst?: BurstResult;
}

const GOAL_MS = 10;
const REQUESTS = 120;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(send: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await send();
  return performance.now() - started;
}

async function credit(gateway: Gateway, accountId: string, amount: number): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}/admin/v1/accounts/${accountId}/credits`, {
    method: "POST",
    headers: { Authorization: `Bearer ${gateway.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ amount, reason: "codec bench" }),
  });
  if (!response.ok) throw new Error(`crediting the bench account answered ${response.status}`);
}

async function startEmptyWorker() {
  return startLocalWorker({
    label: "empty",
    config: path.join(REPO_ROOT, "scripts", "bench", "wrangler.empty.toml"),
    persistTo: path.join(REPO_ROOT, ".wrangler", "bench-empty"),
    readyPath: "/",
    migrate: false,
  });
}

export async function measureFixedCost(log: (line: string) => void, burstPhoto?: { jpeg: Uint8Array; width: number; height: number }): Promise<FixedCostResult> {
  const gateway = await acquireGateway(log);
  const empty = await startEmptyWorker();
  const keys: BenchKeys = { accountIds: [], secrets: [] };
  // One key per 50 requests keeps every key inside its 60-per-minute window.
  const keyCount = Math.ceil((3 * REQUESTS) / 50);
  try {
    await createBenchKeys(gateway, keyCount, keys);
    for (const id of keys.accountIds) await credit(gateway, id, REQUESTS);
    const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: { r: 40, g: 120, b: 200, alpha: 1 } } }).png().toBuffer();
    const body = JSON.stringify({ image: `data:image/png;base64,${png.toString("base64")}`, quality: 70, targetFormat: "webp" });
    let turn = 0;
    const key = () => keys.secrets[Math.floor(turn++ / 50) % keys.secrets.length]!;
    const compress = async () => {
      const response = await fetch(`${gateway.baseUrl}/v1/compress`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key()}`, "Content-Type": "application/json" },
        body,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`compress answered ${response.status}: ${text.slice(0, 200)}`);
    };
    const me = async () => {
      const response = await fetch(`${gateway.baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${key()}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`/v1/me answered ${response.status}`);
    };
    const nothing = async () => {
      const response = await fetch(`${empty.baseUrl}/`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`the empty worker answered ${response.status}`);
    };
    for (let i = 0; i < 10; i++) for (const send of [compress, me, nothing]) await send(); // warm-up: code tiered up, caches filled
    const times = { compress: [] as number[], me: [] as number[], empty: [] as number[] };
    // In turn, so a change in the machine's load touches all three alike.
    for (let i = 0; i < REQUESTS; i++) {
      times.compress.push(await timed(compress));
      times.me.push(await timed(me));
      times.empty.push(await timed(nothing));
    }
    const sharpTimes: number[] = [];
    for (let i = 0; i < REQUESTS; i++) sharpTimes.push(await timed(async () => void (await sharp(png).webp({ quality: 70 }).toBuffer())));
    const [compressMs, meMs, emptyMs] = [median(times.compress), median(times.me), median(times.empty)];
    const burst = burstPhoto && (await measureBurst(gateway, keys.secrets.at(-1)!, burstPhoto.jpeg, burstPhoto.width, burstPhoto.height));
    return {
      ...(burst ? { burst } : {}),
      requests: REQUESTS,
      compressMs,
      emptyMs,
      addedMs: compressMs - emptyMs,
      meMs,
      compressOwnMs: compressMs - meMs,
      sharpMs: median(sharpTimes),
      goalMs: GOAL_MS,
      met: compressMs - emptyMs <= GOAL_MS,
    };
  } finally {
    await deleteBenchAccounts(gateway, keys.accountIds).catch(() => 0);
    await empty.group.stop();
    await gateway.group?.stop();
  }
}

export interface BurstResult {
  width: number;
  height: number;
  statuses: number[];
  /** Wall time of each call, from the moment all four were sent. */
  wallMs: number[];
}

/**
 * Four compress calls of the largest photo the WebP limit allows, sent at once: the memory gate
 * admits them one or two at a time and the others wait, so all four must answer 200.
 */
export async function measureBurst(gateway: Gateway, secret: string, jpeg: Uint8Array, width: number, height: number): Promise<BurstResult> {
  const body = JSON.stringify({ image: `data:image/jpeg;base64,${Buffer.from(jpeg).toString("base64")}`, quality: 70, targetFormat: "webp" });
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const response = await fetch(`${gateway.baseUrl}/v1/compress`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body,
      });
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    }),
  );
  return { width, height, statuses: answers.map((a) => a.status), wallMs: answers.map((a) => a.ms) };
}

export function burstReport(burst: BurstResult): string {
  const ok = burst.statuses.every((status) => status === 200);
  return `  four ${burst.width}x${burst.height} JPEG -> WebP compress calls at once: ${burst.statuses.join(", ")} after ${burst.wallMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(", ")} (${ok ? "all succeeded" : "NOT all succeeded"})`;
}

export function fixedCostReport(result: FixedCostResult): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return [
    `  tiny compress (16x16 PNG to WebP) end to end: ${ms(result.compressMs)} median of ${result.requests}`,
    `  an empty Worker under the same local runtime (the floor any request pays here): ${ms(result.emptyMs)}`,
    `  Pixelgate's own fixed cost (compress minus the empty Worker): ${ms(result.addedMs)} (goal <= ${result.goalMs} ms: ${result.met ? "ok" : "MISSED"})`,
    `  GET /v1/me on the same server (auth, rate-limit slot, balance): ${ms(result.meMs)}; compress's own part: ${ms(result.compressOwnMs)}`,
    `  sharp, the same decode + WebP encode in process: ${ms(result.sharpMs)}`,
  ].join("\n");
}
