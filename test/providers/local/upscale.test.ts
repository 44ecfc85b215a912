// The local Lanczos upscaler: exact output sizes, flat areas kept flat, edges kept sharp with
// bounded ringing, no colour bleeding from transparent pixels, and the output-size limit
// refused up front with a message that says what would fit.

import { describe, expect, it } from "vitest";
import { encodeImage, readHeader, type RasterImage } from "../../../src/codecs/index.ts";
import { ISOLATE_CODEC_BUDGET } from "../../../src/codecs/limits.ts";
import { pictureRows, pictureRowsBytes, rasterPicture } from "../../../src/codecs/picture-rows.ts";
import { upscaleLanczos, upscaleRows } from "../../../src/providers/local/upscale.ts";
import { assertUpscaleFits, estimateUpscaleBytes, UPSCALE_OUTPUT_LIMITS } from "../../../src/providers/upscale-limits.ts";
import { image, pixelAt } from "../../codecs/support.ts";
import { noise } from "../../support/pictures.ts";
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

describe("upscaleRows", () => {
  it("hands out the same pixels as the whole upscale, a band at a time, each band made only when asked for", () => {
    const random = prng(7);
    // Translucent and opaque: both of the vertical pass's endings.
    for (const alpha of [255, 0] as const) {
      const source = image(300, 100, () => [random() * 255, random() * 255, random() * 255, alpha === 255 ? 255 : random() * 255]);
      const whole = upscaleLanczos(source, 4);
      const rows = upscaleRows(rasterPicture(source), 4);
      expect([rows.width, rows.height, rows.alpha]).toEqual([1200, 400, alpha !== 255]);
      const first = rows.bands.next();
      expect(first.done).toBe(false);
      // A band is a few rows (at most 1 MB), not the image; each is valid until the next is asked for.
      expect(first.value!.length).toBeLessThan(whole.data.length);
      expect(first.value!.length % (1200 * 4)).toBe(0);
      const bands = [first.value!.slice()];
      for (const band of rows.bands) bands.push(band.slice());
      expect(bands.length).toBeGreaterThan(1);
      const joined = new Uint8ClampedArray(whole.data.length);
      let at = 0;
      for (const band of bands) (joined.set(band, at), (at += band.length));
      expect(at).toBe(whole.data.length);
      expect(Buffer.from(joined).equals(Buffer.from(whole.data))).toBe(true);
    }
  });
});

describe("assertUpscaleFits", () => {
  const RASTER = UPSCALE_OUTPUT_LIMITS.raster;
  const STREAMED = UPSCALE_OUTPUT_LIMITS.streamed;

  it("the upscale tool's limit is 8192 x 8192: 4x of a 1024 render, 8x to 8192, 2x of a 12 MP photo", () => {
    expect(STREAMED).toBe(8192 * 8192);
    expect(() => assertUpscaleFits(1024, 1024, 4, "image", STREAMED)).not.toThrow();
    expect(() => assertUpscaleFits(2048, 2048, 4, "image", STREAMED)).not.toThrow();
    expect(() => assertUpscaleFits(1024, 1024, 8, "image", STREAMED)).not.toThrow();
    expect(() => assertUpscaleFits(4032, 3024, 2, "image", STREAMED)).not.toThrow();
    const error = thrown(() => assertUpscaleFits(6000, 4000, 2, "image", STREAMED));
    expect(error.code).toBe("image_too_large");
    expect(error.message).toContain("(8192 x 8192)");
  });

  it("an upscale step of the local editor (a whole raster) stops at 2048 x 2048", () => {
    expect(RASTER).toBe(2048 * 2048);
    expect(() => assertUpscaleFits(512, 512, 4, "prompt", RASTER)).not.toThrow();
    expect(() => assertUpscaleFits(256, 256, 8, "prompt", RASTER)).not.toThrow();
    expect(thrown(() => assertUpscaleFits(513, 512, 4, "prompt", RASTER)).code).toBe("image_too_large");
  });

  const cases = [
    { factor: 2, fits: [1024, 1024], over: [1025, 1024], maxInput: "1,048,576" },
    { factor: 4, fits: [512, 512], over: [512, 513], maxInput: "262,144" },
    { factor: 8, fits: [256, 256], over: [257, 256], maxInput: "65,536" },
  ] as const;
  for (const { factor, fits, over, maxInput } of cases) {
    it(`${factor}x at the raster limit: accepts ${fits.join("x")}, refuses ${over.join("x")} naming the largest input that fits`, () => {
      expect(() => assertUpscaleFits(fits[0], fits[1], factor, "image", RASTER)).not.toThrow();
      const error = thrown(() => assertUpscaleFits(over[0], over[1], factor, "scaleFactor", RASTER));
      expect(error.code).toBe("image_too_large");
      expect(error.param).toBe("scaleFactor");
      expect(error.message).toContain(`${over[0] * factor}x${over[1] * factor}`);
      expect(error.message).toContain(`at most ${maxInput} pixels`);
      const [, w, h] = /e\.g\. (\d+)x(\d+) at this aspect ratio/.exec(error.message)!;
      expect(Number(w) * Number(h) * factor * factor).toBeLessThanOrEqual(RASTER);
      expect(() => assertUpscaleFits(Number(w), Number(h), factor, "image", RASTER)).not.toThrow();
    });
  }

  it("refuses an unknown factor", () => {
    expect(thrown(() => assertUpscaleFits(10, 10, 3 as 2, "image", STREAMED)).code).toBe("invalid_parameter");
  });
});

describe("upscaleRows from a file's bands", () => {
  it("reads a JPEG a band at a time and gives what the whole decode's upscale gives, opaque", async () => {
    const bytes = await encodeImage(noise(301, 97), "jpeg");
    const header = readHeader(bytes, "jpeg");
    const picture = await pictureRows(bytes, header);
    // The row source's bands: several, each a few rows, each valid until the next is asked for.
    const whole = new Uint8ClampedArray(301 * 97 * 4);
    let at = 0;
    let bands = 0;
    for (const band of picture.bands()) (whole.set(band.data, at), (at += band.data.length), bands++);
    expect(bands).toBeGreaterThan(1);
    const rows = upscaleRows(await pictureRows(bytes, header), 2);
    expect([rows.width, rows.height, rows.alpha]).toEqual([602, 194, false]);
    const expected = upscaleLanczos({ width: 301, height: 97, data: whole }, 2).data;
    const got = new Uint8ClampedArray(expected.length);
    at = 0;
    for (const band of rows.bands) (got.set(band, at), (at += band.length));
    expect(at).toBe(expected.length);
    expect(Buffer.from(got).equals(Buffer.from(expected))).toBe(true);
  });
});

describe("estimateUpscaleBytes", () => {
  it("grows with the output's width, not its area: 8x of 1024 x 1024 fits the isolate's budget, far under the 256 MB output raster", async () => {
    const png = await encodeImage(noise(1024, 1024), "png");
    const source = { ...readHeader(png, "png"), bytes: png };
    const at8 = estimateUpscaleBytes(source, 8);
    expect(at8).toBeLessThan(8192 * 8192 * 4 / 4);
    expect(at8).toBeLessThan(ISOLATE_CODEC_BUDGET);
    expect(estimateUpscaleBytes(source, 2)).toBeLessThanOrEqual(at8);
  });

  it("2x of a 12 MP JPEG fits the isolate's codec budget: its rows are read in bands, never as a 48 MB raster", async () => {
    const jpeg = await encodeImage(noise(4032, 3024), "jpeg");
    const photo = { ...readHeader(jpeg, "jpeg"), bytes: jpeg };
    const estimate = estimateUpscaleBytes(photo, 2);
    expect(estimate).toBeLessThan(ISOLATE_CODEC_BUDGET);
    // The reading's price and the working set, both counted.
    expect(estimate).toBeGreaterThan(pictureRowsBytes(jpeg, photo) + 8064 * 112);
  }, 60_000);
});
