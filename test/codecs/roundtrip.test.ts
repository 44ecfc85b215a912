// Every output format: encode a generated image, recognise it, read its header, decode it
// back and compare the pixels, including what each format does with alpha.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, imageHasAlpha, readHeader, sniffFormat, type ImageFormat, type RasterImage } from "../../src/codecs/index.ts";
import { gradient, gradientWithAlpha, maxDiff, meanDiff, pixelAt } from "./support.ts";

const W = 64;
const H = 40; // not square: a swapped width/height fails

async function roundTrip(source: RasterImage, format: ImageFormat, quality?: number) {
  const bytes = await encodeImage(source, format, quality === undefined ? {} : { quality });
  expect(sniffFormat(bytes)).toBe(format);
  const header = readHeader(bytes, format);
  expect(header).toEqual({ format, width: source.width, height: source.height });
  const decoded = await decodeImage(bytes, header);
  expect([decoded.width, decoded.height]).toEqual([source.width, source.height]);
  return { bytes, decoded };
}

const transparentQuarter = (x: number) => x < W / 4;
const halfBand = (x: number) => x >= W / 2 && x < (W * 3) / 4;
const opaquePart = (x: number) => !transparentQuarter(x) && !halfBand(x);

// Mean error allowed on the opaque gradient for each lossy format at its convert setting.
const LOSSY: Record<string, number> = { jpeg: 3, webp: 4, avif: 6, tiff: 3 };

describe("opaque gradient round trip", () => {
  for (const format of ["png", "jpeg", "webp", "avif", "gif", "bmp", "tiff"] as const) {
    it(`${format}: decodes back to the same picture`, async () => {
      const source = gradient(W, H);
      const { decoded } = await roundTrip(source, format);
      expect(imageHasAlpha(decoded)).toBe(false);
      if (format === "png" || format === "bmp") {
        expect(maxDiff(source, decoded)).toBe(0); // lossless
      } else if (format === "gif") {
        // <= 256 colours from a 2,000-colour gradient: close, not exact.
        expect(meanDiff(source, decoded)).toBeLessThan(4);
        expect(maxDiff(source, decoded, undefined, 3)).toBeLessThan(24);
      } else {
        expect(meanDiff(source, decoded)).toBeLessThan(LOSSY[format]!);
      }
    });
  }
});

describe("alpha handling per format", () => {
  for (const format of ["png", "webp", "avif"] as const) {
    it(`${format} keeps transparency`, async () => {
      const source = gradientWithAlpha(W, H);
      const { decoded } = await roundTrip(source, format);
      expect(imageHasAlpha(decoded)).toBe(true);
      if (format === "png") {
        expect(maxDiff(source, decoded)).toBe(0); // lossless, alpha included
        return;
      }
      // Lossy: fully transparent stays (almost) fully transparent, the half band about half,
      // the opaque part opaque, and the colours close where they are visible.
      for (const [x, y] of [[2, 5], [10, 30]] as const) expect(pixelAt(decoded, x, y)[3]).toBeLessThanOrEqual(8);
      expect(Math.abs(pixelAt(decoded, W / 2 + 4, 20)[3]! - 128)).toBeLessThanOrEqual(12);
      expect(pixelAt(decoded, W - 2, 20)[3]).toBeGreaterThanOrEqual(245);
      expect(meanDiff(source, decoded, (x) => opaquePart(x))).toBeLessThan(LOSSY[format]!);
    });
  }

  for (const format of ["jpeg", "tiff", "bmp"] as const) {
    it(`${format} composites alpha onto black`, async () => {
      const source = gradientWithAlpha(W, H);
      const { decoded } = await roundTrip(source, format);
      expect(imageHasAlpha(decoded)).toBe(false);
      // The transparent quarter stored white; flattened it must be black, not white.
      const tolerance = format === "bmp" ? 0 : 10;
      for (const [x, y] of [[2, 5], [8, 30], [12, 12]] as const) {
        const [r, g, b] = pixelAt(decoded, x, y);
        expect(Math.max(r!, g!, b!)).toBeLessThanOrEqual(tolerance);
      }
      // The half band is the colour at half brightness.
      const x = W / 2 + 6;
      const original = pixelAt(source, x, 20);
      const flattened = pixelAt(decoded, x, 20);
      for (let c = 0; c < 3; c++) expect(Math.abs(flattened[c]! - Math.round((original[c]! * 128) / 255))).toBeLessThanOrEqual(format === "bmp" ? 1 : 12);
    });
  }

  it("gif keeps 1-bit transparency: alpha < 128 is clear, the rest opaque", async () => {
    const source = gradientWithAlpha(W, H);
    // Make the band straddle the threshold: left half alpha 127, right half alpha 128.
    for (let y = 0; y < H; y++) {
      for (let x = W / 2; x < (W * 3) / 4; x++) source.data[(y * W + x) * 4 + 3] = x < (W * 5) / 8 ? 127 : 128;
    }
    const { decoded } = await roundTrip(source, "gif");
    for (let y = 0; y < H; y += 7) {
      for (let x = 0; x < W; x++) {
        const alpha = pixelAt(decoded, x, y)[3];
        const expected = x < W / 4 || (x >= W / 2 && x < (W * 5) / 8) ? 0 : 255;
        expect(alpha, `alpha at ${x},${y}`).toBe(expected);
      }
    }
  });

  it("encodeImage leaves the caller's pixels untouched when it flattens", async () => {
    const source = gradientWithAlpha(W, H);
    const before = source.data.slice();
    await encodeImage(source, "jpeg");
    await encodeImage(source, "bmp");
    expect(source.data).toEqual(before);
  });
});

describe("quality option", () => {
  it("jpeg and webp: lower quality, smaller file", async () => {
    const source = gradient(256, 256);
    for (const format of ["jpeg", "webp"] as const) {
      const high = await encodeImage(source, format, { quality: 95 });
      const low = await encodeImage(source, format, { quality: 20 });
      expect(low.length, format).toBeLessThan(high.length);
    }
  });

  it("absent quality means the fixed convert settings (jpeg/webp 80, avif 50)", async () => {
    const source = gradient(96, 96);
    for (const [format, q] of [["jpeg", 80], ["webp", 80], ["avif", 50]] as const) {
      const fixed = await encodeImage(source, format);
      const explicit = await encodeImage(source, format, { quality: q });
      expect(fixed, format).toEqual(explicit);
      const other = await encodeImage(source, format, { quality: q - 30 });
      expect(other, format).not.toEqual(fixed);
    }
  });

  it("out-of-range quality is clamped to 1-100", async () => {
    const source = gradient(48, 48);
    expect(await encodeImage(source, "jpeg", { quality: 400 })).toEqual(await encodeImage(source, "jpeg", { quality: 100 }));
    expect(await encodeImage(source, "jpeg", { quality: -5 })).toEqual(await encodeImage(source, "jpeg", { quality: 1 }));
  });
});

describe("format limits", () => {
  it("webp refuses sides over 16383 with image_too_large", async () => {
    const wide: RasterImage = { width: 16_384, height: 1, data: new Uint8ClampedArray(16_384 * 4) };
    await expect(encodeImage(wide, "webp")).rejects.toMatchObject({ code: "image_too_large" });
  });

  it("a malformed raster is a caller bug (internal_error), not a user error", async () => {
    await expect(encodeImage({ width: 4, height: 4, data: new Uint8ClampedArray(10) }, "png")).rejects.toMatchObject({ code: "internal_error" });
  });
});
