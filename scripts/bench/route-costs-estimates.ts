// Every recorded peak's estimate, computed again by the planner from src/codecs/route-costs.json
// as it is now (the same calls test/codecs/measured-peaks.test.ts makes), and what the fit
// would raise for those that pass theirs with the table's margin.
import { loadCodecs } from "./codecs-service.ts";
import type { CostTerms, RecordedPeak, RouteCostTable } from "../../src/codecs/recode-cost.ts";

const MiB = 2 ** 20;

export interface PeakEstimate {
  peak: RecordedPeak;
  row: string;
  keys: readonly string[];
  estimate: number;
  floor: number;
  fixed: number;
  /** The price's bytes a pixel at this size (its pixels' terms and predicted file). */
  perPixel: number;
  /** The pixels the stage that sets the estimate is priced at (a resized call's encode: the answer's). */
  pixels: number;
  /** Whether the service takes this call at all (its pixels within the route's limit for this upload). */
  admitted: boolean;
}

interface Planner {
  peakEstimate(peak: RecordedPeak): { row: string; price: { keys: readonly string[]; floor: number; fixed: number; perPixel: number }; pixels: number; estimate: number; admitted: boolean };
}

/** src/codecs/peak-estimate.ts for each peak: the same call the test makes. */
export async function estimatesOf(peaks: readonly RecordedPeak[]): Promise<PeakEstimate[]> {
  const planner = (await loadCodecs()) as unknown as Planner;
  return peaks.map((peak) => {
    const { row, price, pixels, estimate, admitted } = planner.peakEstimate(peak);
    return { peak, row, keys: price.keys, estimate, floor: price.floor, fixed: price.fixed, perPixel: price.perPixel, pixels, admitted };
  });
}

export interface Raise {
  key: string;
  field: keyof Pick<CostTerms, "fixedMiB" | "floorMiB">;
  miB: number;
  case: string;
  megapixels: number;
  peakMiB: number;
  estimateMiB: number;
}

/** For each stage's own terms, the largest shortfall of a peak (margin added) under its estimate. */
export function raisesFor(table: RouteCostTable, estimates: readonly PeakEstimate[]): Raise[] {
  const raises = new Map<string, Raise>();
  for (const e of estimates) {
    const missing = e.peak.peak * (1 + table.margin) - e.estimate;
    if (missing <= 0) continue;
    const key = e.keys[0]!;
    // Priced at its floor, or too small to reach its fixed part (on the ramp up from the floor),
    // a call is held up by its floor; else by its fixed part. A raise of the fixed part that
    // overshoots the ramp is made up by the floor in the next round.
    const ramp = e.floor + table.rampPerPixel * e.pixels;
    const atFloor = Math.min(e.fixed, ramp) + e.perPixel * e.pixels <= e.floor;
    const field = atFloor || ramp < e.fixed ? "floorMiB" : "fixedMiB";
    const id = `${key}\u0000${field}`;
    if ((raises.get(id)?.miB ?? 0) >= missing / MiB) continue;
    raises.set(id, { key, field, miB: missing / MiB, case: e.peak.case, megapixels: e.peak.megapixels, peakMiB: e.peak.peak / MiB, estimateMiB: e.estimate / MiB });
  }
  return [...raises.values()];
}
