// Phase 1: what authentication adds to a request. GET /v1/me (key lookup in D1, rate-limit slot
// and balance from the account's AccountLedger) against GET /v1 (no auth) on the same server, at
// the same concurrency, with the two interleaved so drift (GC, JIT, disk cache) hits both alike.
import { existsSync, readFileSync } from "node:fs";
import { DEV_VARS_FILE, parseDevVars } from "../dev-settings.ts";
import { CpuTally, sampleCpu } from "./cpu.ts";
import { failuresOf, runClosedLoop, summarize, type LatencySummary, type LoadRun, type Send } from "./load.ts";
import { ChildGroup, childEnv, freePort, waitUntilServing } from "./processes.ts";

export const GATEWAY_PLAN = {
  /** Requests per endpoint before measuring (also touches every key and ledger once). */
  warmup: 200,
  /** Requests per endpoint at concurrency 1: latency without queueing. */
  latencyRequests: 1_000,
  /** Requests per endpoint at `loadConcurrency`: throughput and latency under load. */
  loadRequests: 3_000,
  loadConcurrency: 8,
  /** Each measurement is split into this many alternating (ABBA) rounds. */
  rounds: 4,
  /** No single run may take longer than this; a slower server gives fewer samples, not a hang. */
  runDeadlineMs: 60_000,
} as const;

/**
 * The per-key limit: WINDOW_LIMIT requests per WINDOW_MS in durable-objects/account-ledger.ts.
 * That module imports cloudflare:workers so Node cannot load it; the probe request checks that
 * the server's X-RateLimit-Limit header still says the same.
 */
const REQUESTS_PER_KEY_PER_WINDOW = 60;

export const GOALS = { addedP50Ms: 2, addedP99Ms: 10 } as const;

export interface Gateway {
  baseUrl: string;
  adminToken: string;
  /** Set when this script started the server (and must stop it). */
  group?: ChildGroup;
}

export interface GatewayRow extends LatencySummary {
  endpoint: "GET /v1" | "GET /v1/me" | "compress (unbilled)" | "POST /v1/compress";
  concurrency: number;
  /** CPU ms per request in this client, and in the server's processes (null: not started here). */
  clientCpuMs: number;
  serverCpuMs: number | null;
  serverCpuByCommand: Record<string, number> | null;
}

export interface GatewayComparison {
  concurrency: number;
  addedP50Ms: number;
  addedP99Ms: number;
  /** Authenticated throughput as a fraction of the baseline's. */
  throughputRatio: number;
  /** Extra server CPU per authenticated request (null when the server was not started here). */
  addedServerCpuMs: number | null;
}

export interface GatewayResult {
  baseUrl: string;
  startedHere: boolean;
  keys: number;
  authRequests: number;
  responseBytes: { baseline: number; auth: number };
  /** Worker rebuilds during the measurement (null when the server was not started here). */
  reloads: number | null;
  rows: GatewayRow[];
  comparisons: GatewayComparison[];
}

/** Total authenticated requests of a run: one probe, the warm-up and both measurements. */
export function authRequestCount(plan = GATEWAY_PLAN): number {
  return 1 + plan.warmup + plan.latencyRequests + plan.loadRequests;
}

/**
 * Keys needed so that no key exceeds its window even if the whole run fits in one window:
 * requests are spread round-robin, so each key gets at most ceil(total / keys) of them.
 */
export function keysNeeded(plan = GATEWAY_PLAN): number {
  return Math.ceil(authRequestCount(plan) / REQUESTS_PER_KEY_PER_WINDOW);
}

function assertPlan(plan = GATEWAY_PLAN): void {
  const keys = keysNeeded(plan);
  if (Math.ceil(authRequestCount(plan) / keys) > REQUESTS_PER_KEY_PER_WINDOW) throw new Error("key rotation would exceed the rate limit");
  // The warm-up must reach every key so that first-use costs (last_used_at write, ledger load
  // from D1) stay out of the measurement.
  if (plan.warmup < keys) throw new Error(`warm-up (${plan.warmup}) must be at least the key count (${keys})`);
  for (const count of [plan.latencyRequests, plan.loadRequests]) {
    if (count % plan.rounds !== 0) throw new Error(`request counts must divide into ${plan.rounds} rounds`);
  }
}

// ---- server ---------------------------------------------------------------------------------

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function loopbackUrl(raw: string): string {
  const url = new URL(raw);
  if (!LOOPBACK_HOSTS.has(url.hostname) && !url.hostname.startsWith("127.")) {
    throw new Error(`PIXELGATE_URL must point at this machine (loopback), got ${raw}`);
  }
  return url.origin;
}

/** Same order as the worker sees it with `npm start`: the environment first, then .dev.vars. */
function adminToken(): string {
  const file = existsSync(DEV_VARS_FILE) ? parseDevVars(readFileSync(DEV_VARS_FILE, "utf8")) : {};
  const token = process.env.ADMIN_TOKEN || file.ADMIN_TOKEN || "";
  if (!token) throw new Error(`No ADMIN_TOKEN in the environment or ${DEV_VARS_FILE}; the operator API is needed to create bench keys.`);
  return token;
}

/** What answers GET /v1 at `origin`: Pixelgate, something else, or nothing. */
async function whoAnswers(origin: string): Promise<"pixelgate" | "other" | "nothing"> {
  try {
    const response = await fetch(`${origin}/v1`, { signal: AbortSignal.timeout(3_000) });
    const index = (await response.json().catch(() => null)) as { name?: unknown } | null;
    return response.ok && index?.name === "Pixelgate" ? "pixelgate" : "other";
  } catch {
    return "nothing";
  }
}

/** Uses the server at PIXELGATE_URL when one answers, otherwise starts `npm start` on a free port. */
export async function acquireGateway(log: (line: string) => void): Promise<Gateway> {
  const configured = loopbackUrl(process.env.PIXELGATE_URL || "http://localhost:8787");
  const found = await whoAnswers(configured);
  if (found === "other") throw new Error(`Something other than Pixelgate answers GET ${configured}/v1; set PIXELGATE_URL or free the port.`);
  if (found === "pixelgate") {
    log(`Using the server already running at ${configured}.`);
    return { baseUrl: configured, adminToken: adminToken() };
  }
  const port = await freePort();
  log(`No server at ${configured}; starting scripts/start.ts on port ${port} (migrations, seed, wrangler dev)...`);
  const group = new ChildGroup("scripts/start.ts", process.execPath, ["scripts/start.ts"], childEnv({ PORT: String(port) }));
  // 127.0.0.1 rather than localhost: start.ts binds wrangler dev to 127.0.0.1 only.
  const baseUrl = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  if (!(await waitUntilServing(`${baseUrl}/v1`, group, 180_000))) {
    await group.stop();
    throw new Error(`The server did not start (scripts/start.ts on port ${port}). Its last output:\n${group.tail()}`);
  }
  log(`Server up after ${((performance.now() - startedAt) / 1000).toFixed(1)} s.`);
  return { baseUrl, adminToken: adminToken(), group };
}

// ---- operator API ---------------------------------------------------------------------------

async function admin<T>(gateway: Gateway, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(gateway.baseUrl + path, {
    method,
    headers: { Authorization: `Bearer ${gateway.adminToken}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  if (!response.ok) {
    const hint = response.status === 401 ? ` (is ADMIN_TOKEN the one the server at ${gateway.baseUrl} was started with?)` : "";
    throw new Error(`${method} ${path} answered ${response.status}${hint}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as T;
}

export interface BenchKeys {
  accountIds: string[];
  secrets: string[];
}

/** A fresh account with one key for each key needed, so requests also spread over many ledgers. */
export async function createBenchKeys(gateway: Gateway, count: number, into: BenchKeys, credits = 0): Promise<void> {
  const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const run = await runClosedLoop(count, 4, 120_000, async (i) => {
    const { account } = await admin<{ account: { id: string } }>(gateway, "POST", "/admin/v1/accounts", {
      name: `Gateway bench ${i}`,
      email: `bench-${runId}-${i}@example.com`,
      credits,
    });
    into.accountIds.push(account.id);
    const { secret } = await admin<{ secret: string }>(gateway, "POST", `/admin/v1/accounts/${account.id}/keys`, { name: "bench" });
    into.secrets.push(secret);
    return "ok";
  });
  if (into.secrets.length !== count) {
    throw new Error(`created ${into.secrets.length} of ${count} bench keys: ${JSON.stringify(failuresOf([run]))}`);
  }
}

/**
 * Deletes the bench accounts (their ledgers are cleared too) so repeated runs do not pile up
 * accounts in the dev database. Their key rows stay, as for any deleted account.
 */
export async function deleteBenchAccounts(gateway: Gateway, accountIds: string[]): Promise<number> {
  const run = await runClosedLoop(accountIds.length, 4, 60_000, async (i) => {
    await admin(gateway, "DELETE", `/admin/v1/accounts/${accountIds[i]}`);
    return "ok";
  });
  return run.latencies.length - [...run.failures.values()].reduce((a, b) => a + b, 0);
}

// ---- measurement ----------------------------------------------------------------------------

function baselineSend(baseUrl: string): Send {
  return async () => {
    const response = await fetch(`${baseUrl}/v1`, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.status === 200 ? "ok" : String(response.status);
  };
}

/**
 * Hands out the bench keys in strict rotation with one counter for the whole run (probe,
 * warm-up, measurements), so the per-key arithmetic in keysNeeded holds for every request.
 */
export class KeyRotation {
  private readonly secrets: string[];
  used = 0;

  constructor(secrets: string[]) {
    this.secrets = secrets;
  }

  next(): string {
    return this.secrets[this.used++ % this.secrets.length]!;
  }
}

function fetchMe(baseUrl: string, keys: KeyRotation): Promise<Response> {
  return fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${keys.next()}` }, signal: AbortSignal.timeout(10_000) });
}

function authSend(baseUrl: string, keys: KeyRotation): Send {
  return async () => {
    const response = await fetchMe(baseUrl, keys);
    await response.arrayBuffer();
    return response.status === 200 ? "ok" : String(response.status);
  };
}

/** One request of each kind: checks the server's limit matches our arithmetic, notes body sizes. */
async function probe(baseUrl: string, keys: KeyRotation): Promise<{ baseline: number; auth: number }> {
  const baseline = await fetch(`${baseUrl}/v1`, { signal: AbortSignal.timeout(10_000) });
  const baselineBytes = (await baseline.arrayBuffer()).byteLength;
  const response = await fetchMe(baseUrl, keys);
  const authBytes = (await response.arrayBuffer()).byteLength;
  const limit = Number(response.headers.get("X-RateLimit-Limit"));
  if (response.status !== 200 || limit !== REQUESTS_PER_KEY_PER_WINDOW) {
    throw new Error(`probe GET /v1/me answered ${response.status} with X-RateLimit-Limit ${limit}; expected 200 and ${REQUESTS_PER_KEY_PER_WINDOW}`);
  }
  return { baseline: baselineBytes, auth: authBytes };
}

/** Runs `count` requests of each endpoint in ABBA rounds; returns the runs and CPU per endpoint. */
export async function interleaved(count: number, concurrency: number, sends: { baseline: Send; auth: Send }, serverPgid: number | undefined) {
  const runs = { baseline: [] as LoadRun[], auth: [] as LoadRun[] };
  const cpu = { baseline: new CpuTally(), auth: new CpuTally() };
  const perRound = count / GATEWAY_PLAN.rounds;
  for (let round = 0; round < GATEWAY_PLAN.rounds; round++) {
    const order = round % 2 === 0 ? (["baseline", "auth"] as const) : (["auth", "baseline"] as const);
    for (const which of order) {
      const before = sampleCpu(serverPgid);
      runs[which].push(await runClosedLoop(perRound, concurrency, GATEWAY_PLAN.runDeadlineMs, sends[which]));
      cpu[which].add(before, sampleCpu(serverPgid));
    }
  }
  return { runs, cpu };
}

export function rowOf(endpoint: GatewayRow["endpoint"], concurrency: number, runs: LoadRun[], cpu: CpuTally): GatewayRow {
  const summary = summarize(runs);
  const { clientMs, serverMs, serverByCommand } = cpu.perRequest(summary.requests);
  return { endpoint, concurrency, ...summary, clientCpuMs: clientMs, serverCpuMs: serverMs, serverCpuByCommand: serverByCommand };
}

export function assertAllOk(label: string, runs: LoadRun[]): void {
  const failures = failuresOf(runs);
  if (Object.keys(failures).length > 0) throw new Error(`${label}: unexpected responses ${JSON.stringify(failures)}`);
}

export async function measureGateway(gateway: Gateway, log: (line: string) => void): Promise<GatewayResult> {
  assertPlan();
  const keys = keysNeeded();
  log(`${authRequestCount()} authenticated requests in all, at most ${REQUESTS_PER_KEY_PER_WINDOW} per key per minute -> ${keys} keys.`);
  const bench: BenchKeys = { accountIds: [], secrets: [] };
  try {
    await createBenchKeys(gateway, keys, bench);
    log(`Created ${keys} accounts with one key each.`);
    const rotation = new KeyRotation(bench.secrets);
    const sends = { baseline: baselineSend(gateway.baseUrl), auth: authSend(gateway.baseUrl, rotation) };
    const responseBytes = await probe(gateway.baseUrl, rotation);
    const reloadsBefore = gateway.group?.reloads;

    const warm = [
      await runClosedLoop(GATEWAY_PLAN.warmup, GATEWAY_PLAN.loadConcurrency, GATEWAY_PLAN.runDeadlineMs, sends.baseline),
      await runClosedLoop(GATEWAY_PLAN.warmup, GATEWAY_PLAN.loadConcurrency, GATEWAY_PLAN.runDeadlineMs, sends.auth),
    ];
    assertAllOk("warm-up", warm);

    const rows: GatewayRow[] = [];
    const comparisons: GatewayComparison[] = [];
    for (const [concurrency, count] of [[1, GATEWAY_PLAN.latencyRequests], [GATEWAY_PLAN.loadConcurrency, GATEWAY_PLAN.loadRequests]] as const) {
      log(`Measuring ${count} + ${count} requests at concurrency ${concurrency}...`);
      const { runs, cpu } = await interleaved(count, concurrency, sends, gateway.group?.pgid);
      assertAllOk(`concurrency ${concurrency}`, [...runs.baseline, ...runs.auth]);
      const baseline = rowOf("GET /v1", concurrency, runs.baseline, cpu.baseline);
      const auth = rowOf("GET /v1/me", concurrency, runs.auth, cpu.auth);
      rows.push(baseline, auth);
      comparisons.push({
        concurrency,
        addedP50Ms: auth.p50Ms - baseline.p50Ms,
        addedP99Ms: auth.p99Ms - baseline.p99Ms,
        throughputRatio: auth.perSecond / baseline.perSecond,
        addedServerCpuMs: auth.serverCpuMs === null || baseline.serverCpuMs === null ? null : auth.serverCpuMs - baseline.serverCpuMs,
      });
    }
    return {
      baseUrl: gateway.baseUrl,
      startedHere: gateway.group !== undefined,
      keys,
      authRequests: rotation.used,
      responseBytes,
      reloads: gateway.group && reloadsBefore !== undefined ? gateway.group.reloads - reloadsBefore : null,
      rows,
      comparisons,
    };
  } finally {
    const deleted = await deleteBenchAccounts(gateway, bench.accountIds).catch(() => 0);
    log(`Deleted ${deleted} of ${bench.accountIds.length} bench accounts.`);
  }
}
