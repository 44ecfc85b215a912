// `npm run bench:gateway`: two local measurements, printed as a report plus one `RESULT {json}` line.
//
//   Phase 1  gateway overhead: GET /v1/me (API key lookup in D1, rate-limit slot and balance in
//            the account's AccountLedger) against GET /v1 (no auth) on the same wrangler dev server.
//            Uses the server at PIXELGATE_URL (default http://localhost:8787) when one answers,
//            otherwise starts scripts/start.ts on a free port and stops it afterwards.
//   Phase 2  reservations per second of ONE account's AccountLedger, driven over RPC inside
//            workerd by scripts/bench/ledger-worker.js with its own config and state directory.
//
// Exits non-zero only when something is broken (a server did not start, a count or balance is
// wrong); a missed goal is printed as MISSED. All traffic stays on loopback, every loop is
// bounded in count and time, and a watchdog stops everything if the run ever hangs.
import os from "node:os";
import { acquireGateway, measureGateway, type GatewayResult } from "./bench/gateway.ts";
import { measureLedger, type LedgerResult } from "./bench/ledger.ts";
import { BILLED_GOAL_P50_MS, measureBilled, type BilledResult } from "./bench/billed.ts";
import { ChildGroup, LOCAL_TRACING, REPO_ROOT, runCleanups } from "./bench/processes.ts";
import { environmentReport, gatewayReport, ledgerReport, resultJson, type Environment } from "./bench/report.ts";

const WATCHDOG_MS = 15 * 60_000;

// dev-settings.ts and the wrangler configs use paths relative to the repository root.
process.chdir(REPO_ROOT);

/** Set once Ctrl-C or the watchdog ends the run; the main flow then stops printing and exits. */
let shuttingDown = false;
const log = (line: string) => {
  if (!shuttingDown) console.log(`  . ${line}`);
};

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function main(): Promise<number> {
  const problems: string[] = [];
  let gateway: GatewayResult | undefined;
  let ledger: LedgerResult | undefined;
  let billed: BilledResult | undefined;
  const loadBefore = os.loadavg();

  /** Runs one phase; a failure is reported as BROKEN and the next phase still runs. */
  async function phase<T>(n: number, title: string, measure: () => Promise<T>): Promise<T | undefined> {
    if (shuttingDown) return undefined;
    console.log(`${n > 1 ? "\n" : ""}Phase ${n}: ${title}`);
    try {
      return await measure();
    } catch (err) {
      problems.push(`phase ${n}: ${describe(err)}`);
      log(`phase ${n} failed: ${describe(err)}`);
      return undefined;
    }
  }
  gateway = await phase(1, "gateway overhead (GET /v1/me vs GET /v1)", async () => {
    const server = await acquireGateway(log);
    try {
      return await measureGateway(server, log);
    } finally {
      // Stopped before the next phase so two workerd instances do not compete for the CPU.
      await server.group?.stop();
    }
  });
  ledger = await phase(2, "reservations and settled calls per second on one account's AccountLedger", () => measureLedger(log));
  billed = await phase(3, "billed path overhead (POST /v1/compress vs the same compress unbilled)", () => measureBilled(log));

  if (shuttingDown) return 130;
  const env: Environment = { cpus: os.availableParallelism(), loadBefore, loadAfter: os.loadavg(), localTracing: LOCAL_TRACING };
  console.log("\n=== Pixelgate gateway benchmark ===\n");
  console.log("Setup");
  console.log(environmentReport(env, gateway));
  console.log("");
  console.log("Phase 1: gateway overhead");
  console.log(gateway ? gatewayReport(gateway) : "  (no result, see BROKEN below)");
  console.log("\nPhase 2: AccountLedger reservations");
  console.log(ledger ? ledgerReport(ledger) : "  (no result, see BROKEN below)");
  console.log("\nPhase 3: billed path overhead (a tiny compress)");
  console.log(billed ? billedReport(billed) : "  (no result, see BROKEN below)");
  for (const problem of problems) console.log(`\nBROKEN ${problem}`);
  console.log(`\nRESULT ${JSON.stringify({ ...resultJson(problems, env, gateway, ledger), billed: billed && { addedP50Ms: billed.addedP50Ms, addedP99Ms: billed.addedP99Ms } })}`);
  return problems.length === 0 ? 0 : 1;
}

function billedReport(result: BilledResult): string {
  const lines = result.rows.map((row) => `  ${row.endpoint.padEnd(22)} ${row.requests} requests  p50 ${row.p50Ms.toFixed(2)} ms  p99 ${row.p99Ms.toFixed(2)} ms  server CPU ${row.serverCpuMs === null ? "n/a" : row.serverCpuMs.toFixed(2)} ms/req`);
  const met = result.addedP50Ms <= BILLED_GOAL_P50_MS ? "met" : "MISSED";
  return [
    `Request body ${result.inputBytes} B (a 16x16 PNG as a data URI), ${result.keys} keys/accounts, ABBA rounds at concurrency 1.`,
    ...lines,
    `  added by billing: p50 ${result.addedP50Ms.toFixed(2)} ms (goal <= ${BILLED_GOAL_P50_MS} ms) ${met}, p99 ${result.addedP99Ms.toFixed(2)} ms`,
  ].join("\n");
}

async function shutdown(code: number, reason?: string): Promise<void> {
  if (shuttingDown) {
    if (reason) process.exit(code); // a second Ctrl-C: leave at once
    return;
  }
  shuttingDown = true;
  if (reason) console.error(reason);
  await ChildGroup.stopAll();
  runCleanups();
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void shutdown(130, `\nInterrupted (${signal}); stopping child processes.`));
// Kept referenced on purpose: even if every other handle were gone, the run still ends here.
setTimeout(() => void shutdown(2, `Watchdog: the benchmark took over ${WATCHDOG_MS / 60_000} minutes; stopping.`), WATCHDOG_MS);

main().then(
  (code) => shutdown(code),
  (err) => shutdown(1, `BROKEN ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
);
