// Formatting for `npm run bench:codecs`: the timing and memory tables, the pixel-limit analysis
// and the RESULT JSON line. MB here is 2^20 bytes throughout.
import type { MemoryReport } from "./codecs-memory-child.ts";
import { MiB, pixelsAtBudget, type Point } from "./codecs-memory.ts";
import type { TimingResult } from "./codecs-timing.ts";

export const MEMORY_BUDGET = 100 * MiB;

export interface MemoryRow {
  id: string;
  label: string;
  group: LimitGroup;
  megapixels: number;
  pixels: number;
  report: MemoryReport;
  /** The work budget the case's tool call draws on (src/codecs/work-steps.ts); null: none. */
  work?: { kind: "codec" | "upscale" | "model"; route?: string; pixels: number } | null;
}

const mb = (bytes: number | null | undefined) => (bytes === null || bytes === undefined ? "n/a" : (bytes / MiB).toFixed(1));
const verdict = (met: boolean | null) => (met === null ? "-" : met ? "ok" : "MISSED");

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => "  " + cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function kb(bytes: number | null): string {
  return bytes === null ? "-" : (bytes / 1024).toFixed(0);
}

export function timingTable(results: TimingResult[]): string {
  const rows = results.map((r) => [
    r.label,
    String(r.megapixels),
    String(r.runs),
    r.serviceMs.toFixed(1),
    r.sharpMs.toFixed(1),
    r.ratio.toFixed(2),
    r.goalRatio === null ? "-" : `<= ${r.goalRatio.toFixed(1)}`,
    verdict(r.met),
    kb(r.serviceBytes),
    kb(r.sharpBytes),
    r.sharpCpuPerWall.toFixed(2),
  ]);
  return table(["case", "MP", "runs", "service ms", "sharp ms", "ratio", "goal", "", "service KB", "sharp KB", "sharp cpu/wall"], rows);
}

/**
 * The peak if the decoder's WASM memory had been released before encoding: the measured encode
 * stage minus whatever decoder memory survived the full GC between the stages (it stays
 * constant while the encoder runs, so subtracting it is exact).
 */
export function peakIfReleased(r: MemoryReport): number {
  const kept = r.decoderMemoryAfterGc;
  const stages = r.stages;
  return Math.max(stages.decode?.total ?? 0, (stages.between?.total ?? 0) - kept, (stages.encode?.total ?? 0) - kept);
}

/** WASM memory committed beyond what the codecs asked for (emscripten grows by up to 20% more). */
export function growthSlack(r: MemoryReport): number {
  return r.instances.reduce((n, i) => n + Math.max(0, i.bytes - i.requested), 0);
}

export function memoryTable(rows: MemoryRow[]): string {
  const body = rows.map(({ label, megapixels, report: r }) =>
    r.ok
      ? [
          r.beyondLimit ? `${label} *` : label,
          String(megapixels),
          mb(r.peak.total),
          r.peak.stage,
          mb(r.peak.wasm),
          mb(r.peak.js),
          mb(r.heap),
          mb(r.stages.between?.total),
          mb(r.decoderMemoryAfterGc),
          mb(peakIfReleased(r)),
          mb(growthSlack(r)),
          mb(r.rssDelta),
          r.peak.total <= MEMORY_BUDGET ? "ok" : "over",
        ]
      : isPixelLimitRefusal(r.error ?? "")
        ? [label, String(megapixels), "refused", "over the service's pixel limit", "", "", "", "", "", "", "", "", ""]
        : [label, String(megapixels), "BROKEN", r.error ?? "", "", "", "", "", "", "", "", "", ""],
  );
  return table(
    ["case", "MP", "peak MB", "at", "WASM MB", "JS MB", "heap MB", "between MB", "decoder kept MB", "if released MB", "grow slack MB", "RSS delta MB", "<=100"],
    body,
  );
}

/**
 * AVIF needs several times the memory of the other codecs, so it gets a limit of its own. The
 * tool cases (a local upscale, an MCP preview) suggest no pixel limit: theirs is a table of
 * their own (providers/upscale-limits.ts), checked against their estimates.
 */
export type LimitGroup = "other" | "avif" | "tool";

export const GROUP_LABEL: Record<LimitGroup, string> = {
  other: "every operation without AVIF",
  avif: "AVIF in or out (convert to AVIF, decode an AVIF upload)",
  tool: "the local upscale and MCP previews (limits of their own)",
};

interface LimitPick {
  id: string;
  pixels: number;
}

interface MeasuredPick {
  megapixels: number;
  pixels: number;
  worstCase: string;
  worstPeak: number;
}

export interface GroupLimit {
  group: LimitGroup;
  worst: { firstRequest: LimitPick; laterRequest: LimitPick; released: LimitPick };
  /** Largest measured size at which every case of the group stays within the budget. */
  largestMeasuredWithin: MeasuredPick | null;
  largestMeasuredWithinReleased: MeasuredPick | null;
  suggestedLimit: number;
  suggestedLimitAfterFix: number;
}

export interface LimitAnalysis {
  /** Per case: pixels at which each reading reaches the budget. */
  perCase: { id: string; label: string; group: LimitGroup; firstRequest: number; laterRequest: number; released: number }[];
  groups: GroupLimit[];
  hardMaxPixels: number;
}

type Reading = "firstRequest" | "laterRequest" | "released";

function worstOf(perCase: LimitAnalysis["perCase"], key: Reading): LimitPick {
  let pick: LimitPick = { id: "-", pixels: Number.POSITIVE_INFINITY };
  for (const c of perCase) if (c[key] < pick.pixels) pick = { id: c.id, pixels: c[key] };
  return pick;
}

/** Rounded down to a quarter megapixel and held to the hard ceiling: a limit people can read. */
function roundLimit(pixels: number, hardMax: number): number {
  if (!Number.isFinite(pixels)) return hardMax;
  return Math.min(hardMax, Math.floor(pixels / 250_000) * 250_000);
}

function largestWithin(rows: MemoryRow[], peak: (r: MemoryReport) => number): MeasuredPick | null {
  let within: MeasuredPick | null = null;
  for (const pixels of [...new Set(rows.map((r) => r.pixels))].sort((a, b) => a - b)) {
    const atSize = rows.filter((r) => r.pixels === pixels);
    const worstRow = atSize.reduce((a, b) => (peak(b.report) > peak(a.report) ? b : a));
    if (peak(worstRow.report) > MEMORY_BUDGET) break;
    within = { megapixels: worstRow.megapixels, pixels, worstCase: worstRow.id, worstPeak: peak(worstRow.report) };
  }
  return within;
}

/**
 * Three readings of the budget, because the first codec instance of an isolate is never freed
 * (see the notes the main script prints):
 *   first request  as measured in a fresh process (its own decoder is the one kept);
 *   later request  the request's peak with its decoder released, plus the largest codec memory
 *                  an earlier request of the same group and size could have left behind;
 *   released       the request alone, as it will be once every instance is released.
 */
export function analyseLimit(rows: MemoryRow[], hardMaxPixels: number): LimitAnalysis {
  const ok = rows.filter((r) => r.report.ok);
  const largestInstance = new Map<string, number>(); // by group and pixel count
  for (const r of ok) {
    const key = `${r.group}:${r.pixels}`;
    const biggest = Math.max(0, ...r.report.instances.map((i) => i.bytes));
    largestInstance.set(key, Math.max(largestInstance.get(key) ?? 0, biggest));
  }
  const perCase = [...new Set(ok.map((r) => r.id))].map((id) => {
    const mine = ok.filter((r) => r.id === id);
    const points = (value: (r: MemoryRow) => number): Point[] => mine.map((r) => ({ pixels: r.pixels, bytes: value(r) }));
    return {
      id,
      label: mine[0]!.label,
      group: mine[0]!.group,
      firstRequest: pixelsAtBudget(points((r) => r.report.peak.total), MEMORY_BUDGET),
      laterRequest: pixelsAtBudget(points((r) => peakIfReleased(r.report) + (largestInstance.get(`${r.group}:${r.pixels}`) ?? 0)), MEMORY_BUDGET),
      released: pixelsAtBudget(points((r) => peakIfReleased(r.report)), MEMORY_BUDGET),
    };
  });
  const groups = (["other", "avif"] as const)
    .filter((group) => perCase.some((c) => c.group === group))
    .map((group): GroupLimit => {
      const cases = perCase.filter((c) => c.group === group);
      const worst = { firstRequest: worstOf(cases, "firstRequest"), laterRequest: worstOf(cases, "laterRequest"), released: worstOf(cases, "released") };
      const groupRows = ok.filter((r) => r.group === group);
      return {
        group,
        worst,
        largestMeasuredWithin: largestWithin(groupRows, (r) => r.peak.total),
        largestMeasuredWithinReleased: largestWithin(groupRows, peakIfReleased),
        suggestedLimit: roundLimit(Math.min(worst.firstRequest.pixels, worst.laterRequest.pixels), hardMaxPixels),
        suggestedLimitAfterFix: roundLimit(worst.released.pixels, hardMaxPixels),
      };
    });
  return { perCase, groups, hardMaxPixels };
}

const mp = (pixels: number) => (Number.isFinite(pixels) ? `${(pixels / 1e6).toFixed(2)} MP` : "never");

function measured(pick: MeasuredPick | null): string {
  return pick ? `${pick.megapixels} MP (worst ${pick.worstCase}, ${mb(pick.worstPeak)} MB)` : "none of the measured sizes";
}

export function limitReport(limit: LimitAnalysis, currentLimit: number): string {
  const rows = limit.perCase.map((c) => [c.label, c.group, mp(c.firstRequest), mp(c.laterRequest), mp(c.released)]);
  const lines = [
    "  Pixel count at which each case's peak reaches 100 MB (piecewise linear through the measured",
    "  sizes, extended with the last slope). first request: as measured; later request: released",
    "  peak + the largest codec memory an earlier request may have left (the leak); if released: fixed.",
    table(["case", "group", "first request", "later request", "if released"], rows),
  ];
  for (const g of limit.groups) {
    lines.push(
      "",
      `  ${GROUP_LABEL[g.group]}:`,
      `    largest measured size within 100 MB, as is:        ${measured(g.largestMeasuredWithin)}`,
      `    largest measured size within 100 MB, if released:  ${measured(g.largestMeasuredWithinReleased)}`,
      `    worst case reaches 100 MB at: first request ${g.worst.firstRequest.id} ${mp(g.worst.firstRequest.pixels)}, ` +
        `later request ${g.worst.laterRequest.id} ${mp(g.worst.laterRequest.pixels)}, if released ${g.worst.released.id} ${mp(g.worst.released.pixels)}`,
      `    suggested limit as is: ${g.suggestedLimit} pixels; once decoder instances are released: ${g.suggestedLimitAfterFix} pixels`,
    );
  }
  lines.push("", `  Current MAX_DECODE_PIXELS: ${currentLimit} (hard ceiling ${limit.hardMaxPixels})`);
  return lines.join("\n");
}

function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function resultJson(input: {
  problems: string[];
  sizes: number[];
  timing: TimingResult[];
  memory: MemoryRow[];
  limit: LimitAnalysis | null;
  webp12: MemoryReport | undefined;
  elapsedS: number;
}): Record<string, unknown> {
  const timingGoals = input.timing.filter((t) => t.met !== null);
  return {
    ok: input.problems.length === 0,
    problems: input.problems,
    sizesMP: input.sizes,
    elapsedS: round(input.elapsedS, 1),
    timing: input.timing.map((t) => ({
      id: t.id,
      mp: t.megapixels,
      runs: t.runs,
      serviceMs: round(t.serviceMs, 1),
      sharpMs: round(t.sharpMs, 1),
      ratio: round(t.ratio, 2),
      goal: t.goalRatio,
      met: t.met,
      serviceBytes: t.serviceBytes,
      sharpBytes: t.sharpBytes,
    })),
    memory: input.memory.map((m) => ({
      id: m.id,
      mp: m.megapixels,
      ok: m.report.ok,
      peakMB: m.report.ok ? round(m.report.peak.total / MiB, 1) : null,
      wasmMB: m.report.ok ? round(m.report.peak.wasm / MiB, 1) : null,
      jsMB: m.report.ok ? round(m.report.peak.js / MiB, 1) : null,
      decoderKeptMB: m.report.ok ? round(m.report.decoderMemoryAfterGc / MiB, 1) : null,
      ifReleasedMB: m.report.ok ? round(peakIfReleased(m.report) / MiB, 1) : null,
      growSlackMB: m.report.ok ? round(growthSlack(m.report) / MiB, 1) : null,
      rssDeltaMB: m.report.ok && m.report.rssDelta !== null ? round(m.report.rssDelta / MiB, 1) : null,
    })),
    goals: {
      timeRatiosMet: timingGoals.filter((t) => t.met).length,
      timeRatiosMissed: timingGoals.filter((t) => !t.met).map((t) => `${t.id}@${t.megapixels}`),
      webp12mpWithin100MB: input.webp12?.ok ? input.webp12.peak.total <= MEMORY_BUDGET : null,
      webp12mpPeakMB: input.webp12?.ok ? round(input.webp12.peak.total / MiB, 1) : null,
    },
    limit: input.limit && {
      groups: input.limit.groups.map((g) => ({
        group: g.group,
        worst: g.worst,
        largestMeasuredWithin: g.largestMeasuredWithin,
        largestMeasuredWithinReleased: g.largestMeasuredWithinReleased,
        suggestedMaxPixels: g.suggestedLimit,
        suggestedMaxPixelsAfterFix: g.suggestedLimitAfterFix,
      })),
    },
  };
}

/** The service refuses images over its pixel limit and uploads over its size limit (codecs-memory-child.ts UPLOAD_REFUSED): expected, not a failure. */
export function isPixelLimitRefusal(message: string): boolean {
  return /at most \d+ pixels can be (processed|read|written)|over the service's upload limit/.test(message);
}
