// Phase 2: reservations per second that ONE account's AccountLedger sustains. Runs the bench
// worker (ledger-worker.js) under its own wrangler config and state directory, asks it to fire
// the RPCs from inside workerd, and checks the books afterwards: every reservation succeeded and
// the final balance is exactly the starting balance minus the successes.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { CpuTally, sampleCpu } from "./cpu.ts";
import { ChildGroup, cleanups, startLocalWorker, type LocalWorker } from "./processes.ts";

export const LEDGER_PLAN = {
  reservations: 20_000,
  /** Whole settled calls (reserve with a hold, then settle, writing the usage entry): two RPCs each. */
  settles: 8_000,
  /** Rows the consumer's D1 writer inserts per batch size measured. */
  consumerRows: 2_000,
  consumerBatches: [1, 10, 100, 1_000],
  concurrency: 50,
  /** Calls of each kind before measuring (JIT, first load of the keys' windows). */
  warmup: 1_000,
  /** The measured calls of each kind are split into this many interleaved rounds. */
  rounds: 4,
  /** Opening balance put in D1; the ledger must read it on first touch. */
  openingCredits: 1_000,
  /** Per /run call; a slow ledger gives a partial count (reported as broken), not a hang. */
  runDeadlineMs: 120_000,
} as const;

export const LEDGER_GOAL_PER_SECOND = 1_000;

/** What the bench worker's /run answers (scripts/bench/ledger-worker.js, `run`). */
interface RunResult {
  op: "reserve" | "snapshot" | "settle";
  completed: number;
  ok: number;
  rateLimited: number;
  insufficient: number;
  /** Workerd's clock, which only moves on outside I/O. */
  elapsedMs: number;
  stoppedEarly: boolean;
  balanceAfter: number;
}

const CONFIG = "scripts/bench/wrangler.ledger.toml";
/**
 * Separate from .wrangler/state so the bench never touches the dev database or ledgers, and one
 * directory per run (removed afterwards) so every run starts from the same empty state and two
 * runs at once cannot share it.
 */
const PERSIST_ROOT = path.join(".wrangler", "bench-ledger");

export interface LedgerRow {
  op: "snapshot" | "reserve" | "settle";
  calls: number;
  ok: number;
  /** Node-side time of the whole /run request; calls/s is computed from this. */
  wallMs: number;
  perSecond: number;
  /** The spread between rounds: a wide one means the machine, not the ledger, set the pace. */
  slowestRoundPerSecond: number;
  fastestRoundPerSecond: number;
  /**
   * The worker's own measure, for comparison. Workerd only advances its clock when its event
   * loop waits on outside I/O, so it can under-report (by ~30% here with wrangler's local trace
   * collection on).
   */
  workerClockMs: number;
  /** CPU ms per call of the bench server's processes (workerd does nearly all of it). */
  serverCpuMs: number | null;
}

export interface LedgerResult {
  /** Worker rebuilds during the measurement (the ledger's source changed meanwhile). */
  reloads: number;
  concurrency: number;
  keys: number;
  rounds: number;
  openingSeen: number;
  startBalance: number;
  finalBalance: number;
  expectedFinal: number;
  rows: LedgerRow[];
  /** After the settled calls: how long until D1 held every one of their entries. */
  delivery: { entries: number; rowsInD1: number; waitedMs: number };
  /** The queue consumer's writer into local D1: rows/s by rows per write. */
  consumer: Array<{ batch: number; rows: number; wallMs: number; rowsPerSecond: number }>;
}

interface Measured {
  result: RunResult;
  wallMs: number;
  serverCpuMs: number | null;
}

class LedgerWorker {
  readonly baseUrl: string;
  readonly account: string;

  constructor(baseUrl: string, account: string) {
    this.baseUrl = baseUrl;
    this.account = account;
  }

  async call<T>(method: "GET" | "POST", route: string, params: Record<string, string | number> = {}, timeoutMs = 30_000): Promise<T> {
    const query = new URLSearchParams({ account: this.account, ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) });
    const response = await fetch(`${this.baseUrl}${route}?${query}`, { method, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    if (!response.ok) throw new Error(`bench worker ${route} answered ${response.status}: ${text.slice(0, 2000)}`);
    return JSON.parse(text) as T;
  }

  async run(op: RunResult["op"], n: number, keys: number, offset: number, serverPgid?: number): Promise<Measured> {
    const cpu = new CpuTally();
    const before = sampleCpu(serverPgid);
    const started = performance.now();
    const result = await this.call<RunResult>(
      "POST",
      "/run",
      { op, n, concurrency: LEDGER_PLAN.concurrency, keys, offset, deadlineMs: LEDGER_PLAN.runDeadlineMs },
      LEDGER_PLAN.runDeadlineMs + 30_000,
    );
    const wallMs = performance.now() - started;
    cpu.add(before, sampleCpu(serverPgid));
    return { result, wallMs, serverCpuMs: cpu.perRequest(result.completed).serverMs };
  }
}

/** Applies the migrations to a fresh bench database and starts `wrangler dev` on free ports. */
function startLedgerWorker(persistTo: string, log: (line: string) => void): Promise<LocalWorker> {
  log(`Applying migrations to the bench D1 in ${persistTo}...`);
  return startLocalWorker({ label: "ledger bench", config: CONFIG, persistTo, readyPath: "/health" });
}

/** Sums the rounds of one call type into a row (rates from total calls over total wall time). */
function rowOf(op: LedgerRow["op"], rounds: Measured[]): LedgerRow {
  const sum = (pick: (m: Measured) => number) => rounds.reduce((total, m) => total + pick(m), 0);
  const calls = sum((m) => m.result.completed);
  // The HTTP round trip to the bench worker is a few ms against seconds of calls, so wall time
  // is a fair (slightly conservative) measure of the ledger.
  const wallMs = sum((m) => m.wallMs);
  const rates = rounds.map((m) => m.result.completed / (m.wallMs / 1000));
  const cpuKnown = rounds.every((m) => m.serverCpuMs !== null);
  return {
    op,
    calls,
    ok: sum((m) => m.result.ok),
    wallMs,
    perSecond: calls / (wallMs / 1000),
    slowestRoundPerSecond: Math.min(...rates),
    fastestRoundPerSecond: Math.max(...rates),
    workerClockMs: sum((m) => m.result.elapsedMs),
    serverCpuMs: cpuKnown ? sum((m) => m.serverCpuMs! * m.result.completed) / Math.max(1, calls) : null,
  };
}

/** Every reservation must succeed: the key rotation keeps windows open and the grant covers all. */
function assertAllReserved(label: string, result: RunResult, n: number): void {
  if (result.stoppedEarly || result.completed !== n || result.ok !== n) {
    throw new Error(`${label}: ${result.ok} of ${n} reservations succeeded (rate limited ${result.rateLimited}, insufficient ${result.insufficient}, stopped early ${result.stoppedEarly})`);
  }
}

export async function measureLedger(log: (line: string) => void): Promise<LedgerResult> {
  mkdirSync(PERSIST_ROOT, { recursive: true });
  const persistTo = mkdtempSync(path.join(PERSIST_ROOT, "run-"));
  const removeState = () => rmSync(persistTo, { recursive: true, force: true });
  cleanups.add(removeState);
  try {
    const { group, baseUrl } = await startLedgerWorker(persistTo, log);
    try {
      // The state directory is new, so this account and its ledger start from nothing.
      return await measureWith(new LedgerWorker(baseUrl, "acct_ledger_bench"), group, log);
    } finally {
      await group.stop();
    }
  } finally {
    cleanups.delete(removeState);
    removeState();
  }
}

async function measureWith(worker: LedgerWorker, group: ChildGroup, log: (line: string) => void): Promise<LedgerResult> {
  const { reservations, rounds, warmup } = LEDGER_PLAN;
  if (reservations % rounds !== 0) throw new Error(`reservations must divide into ${rounds} rounds`);
  const { windowLimit } = await worker.call<{ windowLimit: number }>("GET", "/health");
  const totalReservations = warmup + reservations + LEDGER_PLAN.settles;
  // Key ids rotate round-robin over one counter for the whole run, so each takes at most
  // ceil(total / keys) slots: never more than the window allows, even if all fits in a minute.
  const keys = Math.ceil(totalReservations / windowLimit);
  if (Math.ceil(totalReservations / keys) > windowLimit) throw new Error("key rotation would exceed the rate limit");
  log(`${totalReservations} reservations in all, at most ${windowLimit} per key per minute -> ${keys} key ids on one ledger.`);

  const setup = await worker.call<{ openingSeen: number; balanceAfterGrant: number }>("POST", "/setup", {
    opening: LEDGER_PLAN.openingCredits,
    grant: totalReservations,
  });
  if (setup.openingSeen !== LEDGER_PLAN.openingCredits) {
    throw new Error(`the ledger started at ${setup.openingSeen} credits, but D1 says ${LEDGER_PLAN.openingCredits}`);
  }
  const startBalance = setup.balanceAfterGrant;

  const reloadsBefore = group.reloads;
  log(`Warm-up: ${warmup} snapshot() and ${warmup} reserve() calls...`);
  await worker.run("snapshot", warmup, keys, 0);
  const warm = (await worker.run("reserve", warmup, keys, 0)).result;
  assertAllReserved("warm-up", warm, warmup);

  // Interleaved ABBA rounds, so a burst of load from elsewhere on the machine hits both kinds.
  log(`Measuring ${reservations} snapshot() and ${reservations} reserve() calls at concurrency ${LEDGER_PLAN.concurrency}, in ${rounds} rounds...`);
  const perRound = reservations / rounds;
  const measured = { snapshot: [] as Measured[], reserve: [] as Measured[] };
  let last: RunResult = warm;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["snapshot", "reserve"] as const) : (["reserve", "snapshot"] as const);
    for (const op of order) {
      const m = await worker.run(op, perRound, keys, warmup + round * perRound, group.pgid);
      if (op === "reserve") assertAllReserved(`round ${round + 1}`, m.result, perRound);
      else if (m.result.completed !== perRound) throw new Error(`round ${round + 1}: ${m.result.completed} of ${perRound} snapshot() calls completed`);
      measured[op].push(m);
      last = m.result;
    }
  }

  // Whole settled calls, each writing its usage entry through the outbox and the queue to D1.
  log(`Measuring ${LEDGER_PLAN.settles} settled calls (reserve with a hold + settle) in ${rounds} rounds...`);
  const settles: Measured[] = [];
  const settlesPerRound = LEDGER_PLAN.settles / rounds;
  for (let round = 0; round < rounds; round++) {
    const m = await worker.run("settle", settlesPerRound, keys, warmup + reservations + round * settlesPerRound, group.pgid);
    assertAllReserved(`settle round ${round + 1}`, m.result, settlesPerRound);
    settles.push(m);
    last = m.result;
  }
  const delivery = await waitForDelivery(worker, LEDGER_PLAN.settles);
  log(`D1 held all ${delivery.rowsInD1} entries ${Math.round(delivery.waitedMs)} ms after the last settle.`);

  const reserved = warm.ok + [...measured.reserve, ...settles].reduce((total, m) => total + m.result.ok, 0);
  const expectedFinal = startBalance - reserved;
  if (last.balanceAfter !== expectedFinal) {
    throw new Error(`final balance ${last.balanceAfter}, expected ${expectedFinal} (start ${startBalance} minus ${reserved} reservations)`);
  }
  log(`Measuring the consumer's D1 writer: ${LEDGER_PLAN.consumerRows} rows at ${LEDGER_PLAN.consumerBatches.join(", ")} rows per write...`);
  const consumer = [];
  for (const batch of LEDGER_PLAN.consumerBatches) {
    const started = performance.now();
    await worker.call("POST", "/write-usage", { rows: LEDGER_PLAN.consumerRows, batch }, 300_000);
    const wallMs = performance.now() - started;
    consumer.push({ batch, rows: LEDGER_PLAN.consumerRows, wallMs, rowsPerSecond: LEDGER_PLAN.consumerRows / (wallMs / 1000) });
  }
  return {
    reloads: group.reloads - reloadsBefore,
    concurrency: LEDGER_PLAN.concurrency,
    keys,
    rounds,
    openingSeen: setup.openingSeen,
    startBalance,
    finalBalance: last.balanceAfter,
    expectedFinal,
    rows: [rowOf("snapshot", measured.snapshot), rowOf("reserve", measured.reserve), rowOf("settle", settles)],
    delivery,
    consumer,
  };
}

/** Polls until D1 holds every settled call's entry and the ledger's outbox is empty (bounded). */
async function waitForDelivery(worker: LedgerWorker, entries: number): Promise<LedgerResult["delivery"]> {
  const started = performance.now();
  for (;;) {
    const state = await worker.call<{ undeliveredEntries: number; rowsInD1: number }>("GET", "/backlog");
    if (state.undeliveredEntries === 0 && state.rowsInD1 >= entries) return { entries, rowsInD1: state.rowsInD1, waitedMs: performance.now() - started };
    if (performance.now() - started > 120_000) {
      throw new Error(`after 120 s D1 had ${state.rowsInD1} of ${entries} entries and the outbox ${state.undeliveredEntries} undelivered`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
