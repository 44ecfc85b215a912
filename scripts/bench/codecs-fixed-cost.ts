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
  tinyBursts?: TinyBurstsResult;
}

/** Answers of one burst by status and error code ("200", "503 service_busy", ...). */
type Answers = Record<string, number>;

export interface TinyBurstsResult {
  /** 200 tiny compress calls at once over five keys of five accounts (40 credits each). */
  twoHundred: Answers;
  /** 80 at once on one account with 40 credits (two keys, inside the rate limit). */
  eightyOnForty: Answers;
}

async function newKey(gateway: Gateway, accountId: string): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/admin/v1/accounts/${accountId}/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${gateway.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "codec bench" }),
  });
  if (response.status !== 201) throw new Error(`creating a bench key answered ${response.status}`);
  return ((await response.json()) as { secret: string }).secret;
}

/** Sends `count` compress calls with `body` at once, the i-th with `keyOf(i)`, and counts the answers. */
async function burstOf(gateway: Gateway, count: number, body: string, keyOf: (i: number) => string): Promise<Answers> {
  const answers: Answers = {};
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await fetch(`${gateway.baseUrl}/v1/compress`, { method: "POST", headers: { Authorization: `Bearer ${keyOf(i)}`, "Content-Type": "application/json" }, body });
      const text = await response.text();
      const code = response.status === 200 ? "" : ` ${(JSON.parse(text) as { error?: { code?: string } }).error?.code ?? "?"}`;
      const label = `${response.status}${code}`;
      answers[label] = (answers[label] ?? 0) + 1;
    }),
  );
  return answers;
}

/**
 * Small work at once, as a new user tried it (issue 27): 200 tiny compress calls over five keys,
 * and 80 on an account with 40 credits. All 200 must succeed; the 80 must be exactly 40
 * successes and 40 insufficient_credits, none service_busy.
 */
export async function measureTinyBursts(gateway: Gateway, body: string, keys: BenchKeys): Promise<TinyBurstsResult> {
  const five: BenchKeys = { accountIds: [], secrets: [] };
  const one: BenchKeys = { accountIds: [], secrets: [] };
  try {
    await createBenchKeys(gateway, 5, five, 40);
    const twoHundred = await burstOf(gateway, 200, body, (i) => five.secrets[i % 5]!);
    await createBenchKeys(gateway, 1, one, 40);
    const second = await newKey(gateway, one.accountIds[0]!);
    const eightyOnForty = await burstOf(gateway, 80, body, (i) => (i % 2 === 0 ? one.secrets[0]! : second));
    return { twoHundred, eightyOnForty };
  } finally {
    keys.accountIds.push(...five.accountIds, ...one.accountIds); // deleted with the rest
  }
}

export function tinyBurstsReport({ twoHundred, eightyOnForty }: TinyBurstsResult): string {
  const list = (answers: Answers) => Object.entries(answers).map(([label, n]) => `${n} x ${label}`).join(", ");
  const allServed = twoHundred["200"] === 200;
  const split = eightyOnForty["200"] === 40 && eightyOnForty["400 insufficient_credits"] === 40;
  return [
    `  200 tiny compress calls at once (five keys): ${list(twoHundred)} (${allServed ? "all served" : "NOT all served"})`,
    `  80 at once on an account with 40 credits: ${list(eightyOnForty)} (${split ? "40 and 40, as they should" : "NOT 40 successes and 40 insufficient_credits"})`,
  ].join("\n");
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
    const tinyBursts = await measureTinyBursts(gateway, body, keys);
    return {
      ...(burst ? { burst } : {}),
      tinyBursts,
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
