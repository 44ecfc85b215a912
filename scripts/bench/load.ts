// A closed-loop load generator: `concurrency` lanes each send one request, wait for the answer,
// and send the next, until `count` requests are done or the deadline passes. Closed loop keeps
// exactly `concurrency` requests in flight, which is what "8 in-flight" means.

export interface LoadRun {
  /** Latency of each completed request in ms (completion order). */
  latencies: number[];
  /** Responses that were not the expected success, by status (or "error" for network failures). */
  failures: Map<string, number>;
  elapsedMs: number;
  /** True when the deadline stopped the run before `count` requests. */
  stoppedEarly: boolean;
}

/** `send` performs request number `i` and returns "ok" or a short failure label. */
export type Send = (i: number) => Promise<"ok" | string>;

export async function runClosedLoop(count: number, concurrency: number, deadlineMs: number, send: Send): Promise<LoadRun> {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let next = 0;
  let stoppedEarly = false;
  const started = performance.now();
  const stopAt = started + deadlineMs;

  async function lane(): Promise<void> {
    while (next < count) {
      if (performance.now() > stopAt) {
        stoppedEarly = true;
        return;
      }
      const i = next++;
      const sentAt = performance.now();
      let outcome: string;
      try {
        outcome = await send(i);
      } catch (err) {
        outcome = `error: ${(err as Error).message}`;
      }
      latencies.push(performance.now() - sentAt);
      if (outcome !== "ok") failures.set(outcome, (failures.get(outcome) ?? 0) + 1);
    }
  }

  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return { latencies, failures, elapsedMs: performance.now() - started, stoppedEarly };
}

export interface LatencySummary {
  requests: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Completed requests per second of wall time spent in the runs. */
  perSecond: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Merges several runs of the same request (e.g. interleaved rounds) into one summary. */
export function summarize(runs: LoadRun[]): LatencySummary {
  const all = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const failed = runs.reduce((sum, run) => sum + [...run.failures.values()].reduce((a, b) => a + b, 0), 0);
  const elapsedMs = runs.reduce((sum, run) => sum + run.elapsedMs, 0);
  return {
    requests: all.length,
    failed,
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    meanMs: all.reduce((a, b) => a + b, 0) / Math.max(1, all.length),
    perSecond: all.length / (elapsedMs / 1000),
  };
}

/** All failures of several runs, e.g. { "429": 3 }, for the error message. */
export function failuresOf(runs: LoadRun[]): Record<string, number> {
  const merged: Record<string, number> = {};
  for (const run of runs) for (const [label, n] of run.failures) merged[label] = (merged[label] ?? 0) + n;
  return merged;
}
