// `npm run bench:tools`: for each model tool on the built-in local models, the time a call
// spends in the service around the provider (auth, validation, input loading, reserve, store,
// log, response) next to the provider call itself, median and p99, and their ratio.
//
// Both are timed from outside over loopback against one bench worker (scripts/bench/
// tools-worker.ts: the real app plus a route that runs only a prepared call's provider stage):
//   full      POST /v1/<tool>                      the whole billed call
//   provider  POST /__bench/provider/<prepared>     runModel() alone on the same prepared call
//   noop      GET  /__bench/noop                    the HTTP round trip both include
// around = full - provider, per sample pair (the pairs are interleaved so load drifts hit both).
// Exits non-zero only when something is broken (a call failed), never on a number.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cleanups, REPO_ROOT, runScript, startLocalWorker, type LocalWorker } from "./bench/processes.ts";
import { percentile } from "./bench/load.ts";
import { toolCases, type ToolCase } from "./bench/tools-inputs.ts";

const SAMPLES = Number(process.env.BENCH_TOOLS_SAMPLES ?? 60);
const WARMUP = 5;
const CONFIG = "scripts/bench/wrangler.tools.toml";
const ADMIN_TOKEN = "bench-tools-admin";
/** Calls per key stay under the 60 per 60 s window. */
const CALLS_PER_KEY = 55;

process.chdir(REPO_ROOT);

function startWorker(): Promise<LocalWorker> {
  mkdirSync(path.join(".wrangler"), { recursive: true });
  const persistTo = mkdtempSync(path.join(".wrangler", "bench-tools-"));
  cleanups.add(() => rmSync(persistTo, { recursive: true, force: true }));
  return startLocalWorker({
    label: "tools bench",
    config: CONFIG,
    persistTo,
    readyPath: "/__bench/noop",
    vars: (baseUrl) => ({ ADMIN_TOKEN, PUBLIC_BASE_URL: baseUrl }),
  });
}

async function request(url: string, init: RequestInit = {}): Promise<{ ms: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(120_000) });
  const text = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url} answered ${response.status}: ${text.slice(0, 400)}`);
  return { ms, body: JSON.parse(text === "ok" ? '"ok"' : text) };
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** Keys that can pay for every call: one account, a key per CALLS_PER_KEY calls. */
async function benchKeys(baseUrl: string, calls: number): Promise<string[]> {
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const { body } = await request(`${baseUrl}/admin/v1/accounts`, json({ name: "tools bench", email: `bench-${Date.now()}@example.com`, credits: 1_000_000 }, admin));
  const accountId = (body as { account: { id: string } }).account.id;
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(calls / CALLS_PER_KEY) + 1; i++) {
    const created = await request(`${baseUrl}/admin/v1/accounts/${accountId}/keys`, json({ name: `bench ${i}` }, admin));
    keys.push((created.body as { secret: string }).secret);
  }
  return keys;
}

interface Row {
  tool: string;
  full: number[];
  provider: number[];
  around: number[];
}

async function measure(baseUrl: string, c: ToolCase, nextKey: () => string): Promise<Row> {
  const { body } = await request(`${baseUrl}/__bench/prepare`, json({ tool: c.tool, args: c.args }));
  const id = (body as { id: string }).id;
  const row: Row = { tool: c.tool, full: [], provider: [], around: [] };
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const full = await request(baseUrl + c.path, json(c.args, { Authorization: `Bearer ${nextKey()}` }));
    const provider = await request(`${baseUrl}/__bench/provider/${id}`, { method: "POST" });
    if (i < WARMUP) continue;
    row.full.push(full.ms);
    row.provider.push(provider.ms);
    row.around.push(full.ms - provider.ms);
  }
  return row;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const fmt = (ms: number) => ms.toFixed(1).padStart(8);

async function main(): Promise<number> {
  const cases = await toolCases();
  console.log(`Starting the bench worker (${CONFIG})...`);
  const { group, baseUrl } = await startWorker();
  try {
    const keys = await benchKeys(baseUrl, cases.length * (WARMUP + SAMPLES));
    let used = 0;
    const nextKey = () => keys[Math.floor(used++ / CALLS_PER_KEY)]!;
    const noop: number[] = [];
    for (let i = 0; i < 200; i++) noop.push((await request(`${baseUrl}/__bench/noop`)).ms);
    const rows: Row[] = [];
    for (const c of cases) {
      console.log(`  . ${c.tool}: ${WARMUP} warm-up + ${SAMPLES} sample pairs`);
      rows.push(await measure(baseUrl, c, nextKey));
    }
    const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
    console.log(`\n=== Pixelgate tools benchmark (local provider, ${SAMPLES} samples per tool, ${os.availableParallelism()} CPUs, load ${load}) ===`);
    console.log(`HTTP round trip (GET /__bench/noop): median ${percentile(sorted(noop), 50).toFixed(2)} ms, p99 ${percentile(sorted(noop), 99).toFixed(2)} ms\n`);
    console.log("tool                         provider ms          around it ms       around/provider   whole call ms");
    console.log("                            median      p99     median      p99      (median)          median");
    const result: Record<string, unknown>[] = [];
    for (const row of rows) {
      const [p, a, f] = [sorted(row.provider), sorted(row.around), sorted(row.full)];
      const ratio = percentile(a, 50) / percentile(p, 50);
      console.log(
        `${row.tool.padEnd(26)}${fmt(percentile(p, 50))} ${fmt(percentile(p, 99))}   ${fmt(percentile(a, 50))} ${fmt(percentile(a, 99))}   ${ratio.toFixed(2).padStart(10)}x     ${fmt(percentile(f, 50))}`,
      );
      result.push({ tool: row.tool, providerP50: percentile(p, 50), providerP99: percentile(p, 99), aroundP50: percentile(a, 50), aroundP99: percentile(a, 99), ratio });
    }
    console.log("\n'around' = whole call minus provider stage: auth, validation, input loading, reservation, R2 store, usage log, JSON.");
    console.log("Both include one loopback HTTP round trip, so it cancels out of 'around'.");
    console.log(`\nRESULT ${JSON.stringify({ samples: SAMPLES, tools: result })}`);
    return 0;
  } finally {
    await group.stop();
  }
}

runScript(main, { watchdogMs: 30 * 60_000, watchdogMessage: "WATCHDOG: bench:tools passed 30 minutes; stopped." });
