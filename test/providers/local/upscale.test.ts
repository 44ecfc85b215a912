// The local Lanczos upscaler: exact output sizes, flat areas kept flat, edges kept sharp with
// bounded ringing, no colour bleeding from transparent pixels, and the output-size limit
// refused up front with a message that says what would fit.

import { describe, expect, it } from "vitest";
import type { RasterImage } from "../../../src/codecs/index.ts";
import { assertUpscaleFits, MAX_UPSCALE_OUTPUT_PIXELS, upscaleLanczos } from "../../../src/providers/local/upscale.ts";
import { image, pixelAt } from "../../codecs/support.ts";
import { prng } from "../../support/prng.ts";
import { thrown } from "../../support/thrown.ts";

const FACTORS = [2, 4, 8] as const;


function distinctPixels(img: RasterImage): Set<string> {
  const seen = new Set<string>();
  for (let i = 0; i < img.data.length; i += 4) seen.add(img.data.subarray(i, i + 4).join());
  return seen;
}

describe("upscaleLanczos", () => {
  for (const factor of FACTORS) {
    it(`${factor}x gives exactly width*${factor} x height*${factor}`, () => {
      const random = prng(factor);
      const source = image(13, 7, () => [random() * 255, random() * 255, random() * 255, 255]);
      const out = upscaleLanczos(source, factor);
      expect([out.width, out.height, out.data.length]).toEqual([13 * factor, 7 * factor, 13 * 7 * factor * factor * 4]);
    });

    it(`${factor}x keeps a constant image constant, opaque or translucent`, () => {
      for (const colour of [[12, 200, 77, 255], [200, 100, 50, 128]] as const) {
        const out = upscaleLanczos(image(9, 5, () => [...colour]), factor);
        expect([...distinctPixels(out)]).toEqual([colour.join()]);
      }
    });
  }

  it("keeps a step edge sharp and in place, with ringing under 15% of the step (Lanczos-3 rings about 12%)", () => {
    const dark = 50, bright = 200, factor = 4;
    const source = image(16, 4, (x) => (x < 8 ? [dark, dark, dark, 255] : [bright, bright, bright, 255]));
    const out = upscaleLanczos(source, factor);
    const row = Array.from({ length: out.width }, (_, x) => pixelAt(out, x, 8)[0]!);
    const ringing = 0.15 * (bright - dark);
    expect(Math.min(...row)).toBeGreaterThanOrEqual(dark - ringing);
    expect(Math.max(...row)).toBeLessThanOrEqual(bright + ringing);
    // Far from the edge (more than the 3-pixel window) the plateaus are exact.
    expect(row.slice(0, 5 * factor).every((v) => v === dark)).toBe(true);
    expect(row.slice(11 * factor).every((v) => v === bright)).toBe(true);
    // The edge crosses mid-grey exactly where it was (between source pixels 7 and 8) ...
    expect(row[8 * factor - 1]).toBeLessThan((dark + bright) / 2);
    expect(row[8 * factor]).toBeGreaterThan((dark + bright) / 2);
    // ... within one source pixel (not smeared like a bilinear ramp) ...
    expect(row[7 * factor]).toBeLessThan(dark + ringing);
    expect(row[9 * factor - 1]).toBeGreaterThan(bright - ringing);
    // ... and rises monotonically across it, apart from the small ringing lobes.
    for (let x = 7 * factor; x < 9 * factor - 1; x++) expect(row[x + 1]!).toBeGreaterThanOrEqual(row[x]!);
  });

  it("lends no colour from transparent pixels to visible ones", () => {
    // Opaque red beside transparent pixels that store pure green: a filter on straight
    // (non-premultiplied) RGBA would tint the red edge green.
    const source = image(12, 6, (x) => (x < 6 ? [255, 0, 0, 255] : [0, 255, 0, 0]));
    const out = upscaleLanczos(source, 4);
    let visible = 0, edge = 0;
    for (let y = 0; y < out.height; y++) {
      for (let x = 0; x < out.width; x++) {
        const [r, g, b, a] = pixelAt(out, x, y) as [number, number, number, number];
        if (a === 0) continue;
        visible++;
        if (a < 255) edge++;
        expect([g, b]).toEqual([0, 0]);
        expect(r).toBeGreaterThan(0);
      }
    }
    expect(edge).toBeGreaterThan(0); // the alpha edge itself was resampled
    expect(visible).toBeGreaterThan(0);
    expect(pixelAt(out, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(out, out.width - 1, 0)[3]).toBe(0);
  });

  it("refuses an output over the limit before doing any work", () => {
    const error = thrown(() => upscaleLanczos(image(1025, 1024, () => [0, 0, 0, 255]), 2));
    expect(error.code).toBe("image_too_large");
  });
});

describe("assertUpscaleFits", () => {
  it("lets the everyday 512 -> 2048 (4x) and 256 -> 2048 (8x) through, and no more", () => {
    expect(MAX_UPSCALE_OUTPUT_PIXELS).toBe(2048 * 2048);
    expect(() => assertUpscaleFits(512, 512, 4)).not.toThrow();
    expect(() => assertUpscaleFits(256, 256, 8)).not.toThrow();
    expect(thrown(() => assertUpscaleFits(513, 512, 4)).code).toBe("image_too_large");
  });

  const cases = [
    { factor: 2, fits: [1024, 1024], over: [1025, 1024], maxInput: "1,048,576" },
    { factor: 4, fits: [512, 512], over: [512, 513], maxInput: "262,144" },
    { factor: 8, fits: [256, 256], over: [257, 256], maxInput: "65,536" },
  ] as const;
  for (const { factor, fits, over, maxInput } of cases) {
    it(`${factor}x: accepts ${fits.join("x")}, refuses ${over.join("x")} naming the largest input that fits`, () => {
      expect(() => assertUpscaleFits(fits[0], fits[1], factor)).not.toThrow();
      const error = thrown(() => assertUpscaleFits(over[0], over[1], factor, "scaleFactor"));
      expect(error.code).toBe("image_too_large");
      expect(error.param).toBe("scaleFactor");
      expect(error.message).toContain(`${over[0] * factor}x${over[1] * factor}`);
      expect(error.message).toContain(`at most ${maxInput} pixels`);
      const [, w, h] = /e\.g\. (\d+)x(\d+) at this aspect ratio/.exec(error.message)!;
      expect(Number(w) * Number(h) * factor * factor).toBeLessThanOrEqual(MAX_UPSCALE_OUTPUT_PIXELS);
      expect(() => assertUpscaleFits(Number(w), Number(h), factor)).not.toThrow();
    });
  }

  it("defaults the parameter to image and refuses an unknown factor", () => {
    expect(thrown(() => assertUpscaleFits(4000, 4000, 2)).param).toBe("image");
    expect(thrown(() => assertUpscaleFits(10, 10, 3 as 2)).code).toBe("invalid_parameter");
  });
});
