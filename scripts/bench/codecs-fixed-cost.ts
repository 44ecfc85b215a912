// The fixed cost of one tiny compress, end to end: POST /v1/compress of a 16x16 PNG to WebP
// against a local server (started here unless one answers at PIXELGATE_URL), next to GET /v1/me
// on the same server (authentication, the rate-limit slot and the balance: everything a billed
// call does besides its own work) and next to sharp doing the same decode + encode in this
// process. Requests run one at a time; the figures are medians.
import sharp from "sharp";
import { acquireGateway, createBenchKeys, deleteBenchAccounts, type BenchKeys, type Gateway } from "./gateway.ts";

export interface FixedCostResult {
  requests: number;
  compressMs: number;
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

async function timed(count: number, send: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await send();
    times.push(performance.now() - started);
  }
  return times;
}

async function credit(gateway: Gateway, accountId: string, amount: number): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}/admin/v1/accounts/${accountId}/credits`, {
    method: "POST",
    headers: { Authorization: `Bearer ${gateway.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ amount, reason: "codec bench" }),
  });
  if (!response.ok) throw new Error(`crediting the bench account answered ${response.status}`);
}

export async function measureFixedCost(log: (line: string) => void, burstPhoto?: { jpeg: Uint8Array; width: number; height: number }): Promise<FixedCostResult> {
  const gateway = await acquireGateway(log);
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
    await timed(10, compress); // warm-up: code tiered up, caches filled
    const compressTimes = await timed(REQUESTS, compress);
    const meTimes = await timed(REQUESTS, me);
    const sharpTimes = await timed(REQUESTS, async () => {
      await sharp(png).webp({ quality: 70 }).toBuffer();
    });
    const compressMs = median(compressTimes);
    const meMs = median(meTimes);
    const burst = burstPhoto && (await measureBurst(gateway, keys.secrets.at(-1)!, burstPhoto.jpeg, burstPhoto.width, burstPhoto.height));
    return {
      ...(burst ? { burst } : {}),
      requests: REQUESTS,
      compressMs,
      meMs,
      compressOwnMs: compressMs - meMs,
      sharpMs: median(sharpTimes),
      goalMs: GOAL_MS,
      met: compressMs <= GOAL_MS,
    };
  } finally {
    await deleteBenchAccounts(gateway, keys.accountIds).catch(() => 0);
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
    `  tiny compress (16x16 PNG to WebP) end to end: ${ms(result.compressMs)} median of ${result.requests} (goal <= ${result.goalMs} ms: ${result.met ? "ok" : "MISSED"})`,
    `  GET /v1/me on the same server (auth, rate-limit slot, balance): ${ms(result.meMs)}; compress's own part: ${ms(result.compressOwnMs)}`,
    `  sharp, the same decode + WebP encode in process: ${ms(result.sharpMs)}`,
  ].join("\n");
}
