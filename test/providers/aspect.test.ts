import { describe, expect, it } from "vitest";
import { megapixelSize, parseAspectRatio } from "../../src/providers/aspect";

// Sizes for upstreams that take any width and height in a range (FLUX 1.1 [pro] custom sizes:
// multiples of 32 up to 1440; Workers AI SDXL: multiples of 64 up to 2048).
const FLUX_PRO = { multiple: 32, min: 256, max: 1440 };
const SDXL = { multiple: 64, min: 256, max: 2048 };
const RATIOS = ["1:1", "16:9", "9:16", "21:9", "9:21", "3:2", "7:3", "4:1", "1:4"];

describe("megapixelSize", () => {
  for (const bounds of [FLUX_PRO, SDXL]) {
    for (const label of RATIOS) {
      it(`${label} within ${bounds.max} in steps of ${bounds.multiple} keeps the ratio`, () => {
        const ratio = parseAspectRatio(label);
        const { width, height } = megapixelSize(ratio, bounds);
        for (const side of [width, height]) {
          expect(side % bounds.multiple).toBe(0);
          expect(side).toBeGreaterThanOrEqual(bounds.min);
          expect(side).toBeLessThanOrEqual(bounds.max);
        }
        // The ratio holds to the rounding: the height is within one step of width / ratio.
        expect(Math.abs(height - width / (ratio.width / ratio.height))).toBeLessThanOrEqual(bounds.multiple);
        expect(width * height / (1024 * 1024)).toBeGreaterThan(0.45); // about a megapixel, less where the cap cuts in
        expect(width * height / (1024 * 1024)).toBeLessThan(1.25);
      });
    }
  }

  it("shrinks both sides together when the cap cuts the long one (4:1 under 1440 is not 1440x512)", () => {
    expect(megapixelSize(parseAspectRatio("4:1"), FLUX_PRO)).toEqual({ width: 1408, height: 352 }); // exactly 4:1
    expect(megapixelSize(parseAspectRatio("1:4"), { multiple: 64, min: 256, max: 1920 })).toEqual({ width: 448, height: 1792 });
  });

  it("a square is a megapixel", () => {
    expect(megapixelSize(parseAspectRatio("1:1"), SDXL)).toEqual({ width: 1024, height: 1024 });
  });
});
