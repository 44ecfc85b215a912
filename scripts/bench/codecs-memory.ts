// Parent side of the peak-memory measurement: one fresh child process per case and size
// (codecs-memory-child.ts), and the pixel count at which each operation reaches the budget.
import { spawn } from "node:child_process";
import path from "node:path";
import type { MemoryReport, MemorySpec } from "./codecs-memory-child.ts";

const CHILD = path.join(import.meta.dirname, "codecs-memory-child.ts");
/** A 12 MP AVIF encode takes well under a minute here; anything past this is a hang. */
const CHILD_TIMEOUT_MS = 240_000;

export const MiB = 1024 * 1024;

/** Runs one case in a child we start and stop ourselves (by its pid, never by name). */
export function measureMemory(spec: MemorySpec): Promise<MemoryReport> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", CHILD, JSON.stringify(spec)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((l) => l.startsWith("MEMORY "));
      if (line) {
        resolve(JSON.parse(line.slice("MEMORY ".length)) as MemoryReport);
        return;
      }
      const why = signal ? `killed by ${signal}` : `exit ${code}`;
      resolve({ id: spec.id, ok: false, error: `child ${why}: ${stderr.trim().split("\n").slice(-3).join(" | ")}` } as MemoryReport);
    });
  });
}

/**
 * The case measured in `runs` fresh children, one after another: the report of the run whose
 * peak is the median (the lower middle of an even count), and every run's peak, lowest first.
 * A peak can move between runs by when V8 collects a codec instance the call has dropped (the
 * instance's memory counts until then). A failed run is reported as it failed.
 */
export async function medianMemory(runs: number, spec: MemorySpec): Promise<{ report: MemoryReport; peaks: number[] }> {
  const reports: MemoryReport[] = [];
  for (let i = 0; i < runs; i++) {
    const report = await measureMemory(spec);
    if (!report.ok) return { report, peaks: [] };
    reports.push(report);
  }
  reports.sort((a, b) => a.peak.total - b.peak.total);
  return { report: reports[(reports.length - 1) >> 1]!, peaks: reports.map((r) => r.peak.total) };
}

export interface Point {
  pixels: number;
  bytes: number;
}

/**
 * The pixel count at which peak memory reaches `budget`, on the piecewise-linear curve through
 * the measured points, extended past the last point with the last segment's slope (peak memory
 * grows linearly with pixels once fixed costs are small). Infinity when it never gets there.
 */
export function pixelsAtBudget(points: Point[], budget: number): number {
  const sorted = [...points].sort((a, b) => a.pixels - b.pixels);
  if (sorted.length === 0) return Number.NaN;
  if (sorted[0]!.bytes >= budget) return sorted[0]!.pixels * (budget / sorted[0]!.bytes);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (b.bytes >= budget) return a.pixels + ((budget - a.bytes) * (b.pixels - a.pixels)) / (b.bytes - a.bytes);
  }
  if (sorted.length === 1) return sorted[0]!.pixels * (budget / sorted[0]!.bytes);
  const a = sorted.at(-2)!;
  const b = sorted.at(-1)!;
  const slope = (b.bytes - a.bytes) / (b.pixels - a.pixels);
  return slope <= 0 ? Number.POSITIVE_INFINITY : b.pixels + (budget - b.bytes) / slope;
}
