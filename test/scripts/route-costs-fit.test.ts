import { describe, expect, it } from "vitest";
import { raisesFor, type PeakEstimate } from "../../scripts/bench/route-costs-estimates.ts";
import { formatRouteCosts } from "../../scripts/bench/route-costs-file.ts";
import type { RecordedPeak, RouteCostTable } from "../../src/codecs/recode-cost.ts";

// The bench's fit of the cost table (scripts/bench/route-costs-fit.ts) on made-up peaks: what
// it raises for a peak that passes its estimate with the margin, and the data file's layout.

const MiB = 2 ** 20;

const table: RouteCostTable = {
  about: "",
  margin: 0.05,
  rampPerPixel: 64,
  avifCells: {} as RouteCostTable["avifCells"],
  resize: {} as RouteCostTable["resize"],
  terms: { "a row: big": { floorMiB: 5, fixedMiB: 10, perPixel: 2 }, "a row: small": { floorMiB: 5, fixedMiB: 10, perPixel: 2 }, upload: { perInputByte: 2 } },
  outputs: {},
  webp: {} as RouteCostTable["webp"],
  readLimit: {},
  peaks: [],
};

function measured(key: string, pixels: number, peakMiB: number, estimateMiB: number, floorMiB = 5, fixedMiB = 10, perPixel = 2): PeakEstimate {
  const peak: RecordedPeak = { case: `${key}-${pixels}`, megapixels: pixels / 1e6, measured: "2026-11-27", input: "jpeg", target: "webp", quality: 70, pixels, inputBytes: 0, outputBytes: 0, row: "a row", keys: [key, "upload"], facts: null, peak: peakMiB * MiB, estimate: estimateMiB * MiB };
  return { peak, row: "a row", keys: peak.keys, estimate: estimateMiB * MiB, floor: floorMiB * MiB, fixed: fixedMiB * MiB, perPixel, pixels, admitted: true };
}

describe("the cost table's fit", () => {
  it("raises the fixed part of the stage's own terms by the largest shortfall, margin included; a peak with room raises nothing", () => {
    const raises = raisesFor(table, [measured("a row: big", 4e6, 20, 30), measured("a row: big", 1e6, 20, 19), measured("a row: big", 12e6, 40, 41)]);
    // 40 MiB at 12 MP is under 41 but not by 5%: short too, by less than the 1 MP peak, whose shortfall stands.
    expect(raises).toHaveLength(1);
    expect(raises[0]).toMatchObject({ key: "a row: big", field: "fixedMiB", case: "a row: big-1000000" });
    expect(raises[0]!.miB).toBeCloseTo(20 * 1.05 - 19, 6);
    expect(raisesFor(table, [measured("a row: big", 4e6, 20, 30)])).toEqual([]);
  });

  it("raises the floor of a call priced at its floor, or still on the ramp up to its fixed part", () => {
    const [atFloor] = raisesFor(table, [measured("a row: small", 1000, 16, 14, 14, 10)]);
    expect(atFloor).toMatchObject({ key: "a row: small", field: "floorMiB" });
    expect(atFloor!.miB).toBeCloseTo(16 * 1.05 - 14, 6);
    // 5 MiB and 64 bytes a pixel for 16,000 pixels: 6 MiB of a fixed part of 10.
    expect(raisesFor(table, [measured("a row: small", 16_000, 8, 7)])[0]).toMatchObject({ field: "floorMiB" });
  });

  it("keeps one entry a line, so two branches adding terms or peaks merge", () => {
    const text = formatRouteCosts({ ...table, peaks: [measured("a row: big", 1e6, 20, 19).peak] });
    expect(text.split("\n").filter((line) => line.startsWith('  "a row: ')).length).toBe(2);
    expect(text.split("\n").filter((line) => line.startsWith('  {"case":')).length).toBe(1);
    expect(JSON.parse(text)).toMatchObject({ margin: 0.05, peaks: [{ case: "a row: big-1000000" }] });
  });
});
