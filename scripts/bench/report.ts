// Formatting of the benchmark report: the human-readable tables and the RESULT JSON line.
import { GATEWAY_PLAN, GOALS, type GatewayResult } from "./gateway.ts";
import { LEDGER_GOAL_PER_SECOND, type LedgerResult } from "./ledger.ts";

const ms = (value: number) => value.toFixed(2);
const rate = (value: number) => Math.round(value).toString();
const verdict = (met: boolean) => (met ? "ok" : "MISSED");
const round3 = (value: number) => Math.round(value * 1000) / 1000;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => "  " + cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export function gatewayReport(result: GatewayResult): string {
  const rows = result.rows.map((row) => [
    row.endpoint === "GET /v1" ? "GET /v1 (baseline, no auth)" : "GET /v1/me (authenticated)",
    String(row.concurrency),
    String(row.requests),
    ms(row.p50Ms),
    ms(row.p99Ms),
    ms(row.meanMs),
    rate(row.perSecond),
    row.serverCpuMs === null ? "n/a" : ms(row.serverCpuMs),
    ms(row.clientCpuMs),
  ]);
  const comparisons = result.comparisons.map((c) =>
    `  concurrency ${c.concurrency}: added latency p50 = ${ms(c.addedP50Ms)} ms (goal <= ${GOALS.addedP50Ms} ms) ${verdict(c.addedP50Ms <= GOALS.addedP50Ms)}, ` +
    `p99 = ${ms(c.addedP99Ms)} ms (goal <= ${GOALS.addedP99Ms} ms) ${verdict(c.addedP99Ms <= GOALS.addedP99Ms)}; ` +
    `throughput ${c.throughputRatio.toFixed(2)}x the baseline` +
    (c.addedServerCpuMs === null ? "" : `; server CPU +${ms(c.addedServerCpuMs)} ms/request`));
  const breakdown = result.rows
    .filter((row) => row.concurrency === 1 && row.serverCpuByCommand)
    .map((row) => `${row.endpoint} ` + Object.entries(row.serverCpuByCommand!).filter(([, v]) => v >= 0.005).map(([k, v]) => `${k} ${ms(v)}`).join(" + "));
  return [
    `Server ${result.baseUrl} (${result.startedHere ? "started by this script" : "already running"}); ` +
      `${result.authRequests} authenticated requests over ${result.keys} keys/accounts; ` +
      `body sizes ${result.responseBytes.baseline} B (/v1), ${result.responseBytes.auth} B (/v1/me).`,
    "",
    table(["request", "conc", "requests", "p50 ms", "p99 ms", "mean ms", "req/s", "server CPU ms/req", "client CPU ms/req"], rows),
    "",
    ...(breakdown.length ? [`  server CPU ms/request by process at concurrency 1: ${breakdown.join("; ")}`] : []),
    ...(result.reloads ? [`  WARNING: wrangler rebuilt the worker ${result.reloads} time(s) during the measurement (source files changed); figures are disturbed.`] : []),
    ...comparisons,
    "",
    `  With a closed loop, mean latency = in-flight / throughput (Little's law); once the CPUs are busy, the`,
    `  concurrency ${GATEWAY_PLAN.loadConcurrency} "added latency" mostly restates the throughput loss as queueing. Concurrency 1 isolates per-request cost.`,
  ].join("\n");
}

export function ledgerReport(result: LedgerResult): string {
  const rows = result.rows.map((row) => [
    { snapshot: "snapshot() (baseline, read only)", reserve: "reserve({slots: 1, credits: 1})", settle: "settled call (reserve + hold, settle + entry)" }[row.op],
    String(row.calls),
    String(row.ok),
    String(Math.round(row.wallMs)),
    rate(row.perSecond),
    `${rate(row.slowestRoundPerSecond)}-${rate(row.fastestRoundPerSecond)}`,
    String(row.workerClockMs),
    row.serverCpuMs === null ? "n/a" : (row.serverCpuMs * 1000).toFixed(0),
  ]);
  const reserve = result.rows.find((row) => row.op === "reserve")!;
  const settle = result.rows.find((row) => row.op === "settle")!;
  const consumer = result.consumer.map((c) => [String(c.batch), String(c.rows), String(Math.round(c.wallMs)), rate(c.rowsPerSecond)]);
  const warning = result.reloads
    ? [`  WARNING: wrangler rebuilt the bench worker ${result.reloads} time(s) during the measurement (source files changed); figures are disturbed.`]
    : [];
  return [
    `One ledger, ${result.keys} rotating key ids, concurrency ${result.concurrency}, ${result.rounds} interleaved rounds; ` +
      "the calls come from the bench worker in the same workerd.",
    "calls/s = all calls / wall time measured by this script (slowest-fastest round beside it); workerd's own clock is for comparison.",
    "",
    table(["call", "calls", "ok", "wall ms", "calls/s", "rounds calls/s", "workerd clock ms", "server CPU us/call"], rows),
    "",
    `  reservations/s = ${rate(reserve.perSecond)} (goal >= ${LEDGER_GOAL_PER_SECOND}/s) ${verdict(reserve.perSecond >= LEDGER_GOAL_PER_SECOND)}`,
    `  settled calls/s = ${rate(settle.perSecond)} (goal >= ${LEDGER_GOAL_PER_SECOND}/s) ${verdict(settle.perSecond >= LEDGER_GOAL_PER_SECOND)}; ` +
      `all ${result.delivery.entries} entries in D1 ${Math.round(result.delivery.waitedMs)} ms after the last settle (D1 rows ${result.delivery.rowsInD1})`,
    "",
    "The queue consumer's D1 writer (INSERT OR IGNORE, one db.batch per write), local D1:",
    table(["rows per write", "rows", "wall ms", "rows/s"], consumer),
    `  balance: opening ${result.openingSeen} read from D1, ${result.startBalance} after the grant, final ${result.finalBalance} ` +
      `= ${result.startBalance} - ${result.startBalance - result.expectedFinal} successful reservations (checked)`,
    ...warning,
  ].join("\n");
}

/** What else shapes the figures: a busy 2-core machine measures the neighbours as much as us. */
export interface Environment {
  cpus: number;
  loadBefore: number[];
  loadAfter: number[];
  localTracing: string;
}

export function environmentReport(env: Environment, gateway?: GatewayResult): string {
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(" ");
  const lines = [
    `  ${env.cpus} CPUs; load average ${load(env.loadBefore)} before, ${load(env.loadAfter)} after (1/5/15 min; above ${env.cpus} means other work competed).`,
    `  Servers started here run with X_LOCAL_OBSERVABILITY=${env.localTracing} (wrangler's local trace store ${env.localTracing === "false" ? "off" : "ON: every request and ledger call is also written to SQLite"}).`,
    "  Every request goes client -> wrangler's proxy workerd -> the worker's workerd; GET /v1 pays that path too, so the difference is the auth cost.",
  ];
  if (gateway && !gateway.startedHere) lines.push("  Phase 1 used an already-running server: its tracing setting and load are whatever it was started with.");
  return lines.join("\n");
}

export function resultJson(problems: string[], env: Environment, gateway?: GatewayResult, ledger?: LedgerResult) {
  const reserve = ledger?.rows.find((row) => row.op === "reserve");
  return {
    ok: problems.length === 0,
    problems,
    environment: env,
    gateway: gateway && {
      baseUrl: gateway.baseUrl,
      startedHere: gateway.startedHere,
      keys: gateway.keys,
      authRequests: gateway.authRequests,
      reloads: gateway.reloads,
      rows: gateway.rows.map((row) => ({
        ...row,
        p50Ms: round3(row.p50Ms),
        p99Ms: round3(row.p99Ms),
        meanMs: round3(row.meanMs),
        perSecond: round3(row.perSecond),
        clientCpuMs: round3(row.clientCpuMs),
        serverCpuMs: row.serverCpuMs === null ? null : round3(row.serverCpuMs),
        serverCpuByCommand: row.serverCpuByCommand && Object.fromEntries(Object.entries(row.serverCpuByCommand).map(([k, v]) => [k, round3(v)])),
      })),
      comparisons: gateway.comparisons.map((c) => ({
        concurrency: c.concurrency,
        addedP50Ms: round3(c.addedP50Ms),
        addedP99Ms: round3(c.addedP99Ms),
        throughputRatio: round3(c.throughputRatio),
        addedServerCpuMs: c.addedServerCpuMs === null ? null : round3(c.addedServerCpuMs),
        p50GoalMet: c.addedP50Ms <= GOALS.addedP50Ms,
        p99GoalMet: c.addedP99Ms <= GOALS.addedP99Ms,
      })),
      goals: GOALS,
    },
    ledger: ledger && {
      ...ledger,
      rows: ledger.rows.map((row) => ({
        ...row,
        perSecond: round3(row.perSecond),
        wallMs: round3(row.wallMs),
        slowestRoundPerSecond: round3(row.slowestRoundPerSecond),
        fastestRoundPerSecond: round3(row.fastestRoundPerSecond),
        serverCpuMs: row.serverCpuMs === null ? null : round3(row.serverCpuMs),
      })),
      reservationsPerSecond: reserve && round3(reserve.perSecond),
      goalPerSecond: LEDGER_GOAL_PER_SECOND,
      goalMet: reserve !== undefined && reserve.perSecond >= LEDGER_GOAL_PER_SECOND,
    },
  };
}
