// `npm run bench:batch`: does a batch run its items in parallel? Against a worker of its own and
// the fake upstream in this process (as `npm run stress`), each case (scripts/bench/batch-cases.ts)
// is run several times: its items one by one as single calls, then together as one 10-item
// POST /v1/batch. Printed per case: the slowest single item, the batch, and their ratio (median
// over the runs). Goal for I/O-bound items (a provider answering after a fixed delay): ratio at
// most 1.3. CPU-bound items share the isolate's one thread, so their ratio is printed for
// information only. Exits non-zero only when something is broken (a call failed), never on a number.
//
//   npm run bench:batch [-- --runs 7 --delay 400 --items 10]
import os from "node:os";
import { parseArgs } from "node:util";
import { startFakeUpstream } from "../test/upstream/server.ts";
import { batchCases, delayRows } from "./bench/batch-cases.ts";
import { median, runCase, type CaseRun } from "./bench/batch-timing.ts";
import { REPO_ROOT, runScript } from "./bench/processes.ts";
import { admin } from "./stress/accounts.ts";
import { makePictures } from "./stress/inputs.ts";
import { startWorker } from "./stress/worker.ts";

const { values: options } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    delay: { type: "string", default: "400" },
    items: { type: "string", default: "10" },
  },
});
const RUNS = Number(options.runs);
const DELAY_MS = Number(options.delay);
const ITEMS = Number(options.items);
const GOAL = 1.3;
const ADMIN_TOKEN = `bench-batch-admin-${process.pid}`;
const WATCHDOG_MS = 20 * 60_000;
/** Requests per key stay under the 60-per-60-s window. */
const SLOTS_PER_KEY = 55;

process.chdir(REPO_ROOT);
const log = (line: string) => console.log(`  . ${line}`);

async function main(): Promise<number> {
  const pictures = await makePictures();
  const upstreamOrigin = await startFakeUpstream();
  const worker = await startWorker({ label: "bench-batch", upstreamOrigin, upstreamTimeoutMs: 30_000, adminToken: ADMIN_TOKEN, models: delayRows(DELAY_MS), log });
  try {
    const { account } = await admin<{ account: { id: string } }>(worker.baseUrl, ADMIN_TOKEN, "/admin/v1/accounts", { name: "batch bench", email: `bench-batch-${Date.now()}@example.com`, credits: 1_000_000 });
    let key = "";
    let used = SLOTS_PER_KEY;
    // A fresh key whenever the current one's window would overflow.
    const nextKey = async (slots: number) => {
      if (used + slots > SLOTS_PER_KEY) {
        key = (await admin<{ secret: string }>(worker.baseUrl, ADMIN_TOKEN, `/admin/v1/accounts/${account.id}/keys`, { name: "bench" })).secret;
        used = 0;
      }
      used += slots;
      return key;
    };
    const rows: Array<{ name: string; kind: string; runs: CaseRun[] }> = [];
    for (const c of batchCases(pictures, ITEMS)) {
      log(`${c.name}: 1 warm-up + ${RUNS} runs of ${c.items.length} single calls and one ${c.items.length}-item batch`);
      await runCase(worker.baseUrl, c, nextKey);
      const runs: CaseRun[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await runCase(worker.baseUrl, c, nextKey));
      rows.push({ name: c.name, kind: c.kind, runs });
    }
    const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
    console.log(`\n=== Pixelgate batch parallelism (${ITEMS}-item POST /v1/batch vs its slowest item alone; median of ${RUNS} runs; upstream delay ${DELAY_MS} ms; ${os.availableParallelism()} CPUs, load ${load}) ===`);
    console.log(`${"case".padEnd(40)}${"kind".padEnd(6)}${"slowest item ms".padStart(16)}${"batch ms".padStart(10)}${"ratio".padStart(8)}  ratio range   goal`);
    const result = [];
    for (const row of rows) {
      const ratios = row.runs.map((run) => run.ratio);
      const ratio = median(ratios);
      const goal = row.kind === "io" ? (ratio <= GOAL ? `met (<= ${GOAL})` : `MISSED (> ${GOAL})`) : "info";
      console.log(
        `${row.name.padEnd(40)}${row.kind.padEnd(6)}${median(row.runs.map((r) => r.slowestSingleMs)).toFixed(0).padStart(16)}${median(row.runs.map((r) => r.batchMs)).toFixed(0).padStart(10)}${ratio.toFixed(2).padStart(8)}  ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`.padEnd(98) + `  ${goal}`,
      );
      result.push({ name: row.name, kind: row.kind, ratio, slowestItemMs: median(row.runs.map((r) => r.slowestSingleMs)), batchMs: median(row.runs.map((r) => r.batchMs)) });
    }
    console.log(`\nI/O-bound items wait on the provider concurrently, so a batch costs about its slowest item. CPU-bound items run on the`);
    console.log(`isolate's one thread one after another, so their batch costs about the sum of the items (ratio near ${ITEMS} at best).`);
    if (worker.group.reloads > 0) console.log(`WARNING: the worker reloaded ${worker.group.reloads} time(s) during the bench`);
    console.log(`\nRESULT ${JSON.stringify({ runs: RUNS, items: ITEMS, delayMs: DELAY_MS, goal: GOAL, cases: result })}`);
    return 0;
  } finally {
    await worker.stop();
  }
}

runScript(main, { watchdogMs: WATCHDOG_MS, watchdogMessage: `WATCHDOG: bench:batch passed ${WATCHDOG_MS / 60_000} minutes; stopped.` });
