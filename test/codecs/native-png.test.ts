// PNG as a target of our own WASM build (native/png_sink.c via native.ts transcodeToPng): JPEG
// and PNG files re-encoded as PNG a row at a time, checked by decoding the result with the
// TypeScript decoder and comparing with the general path (decode to a raster, then the same
// writer reading the raster's rows: encodeImage).

import { constants, deflateSync, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { applyOrientation, decodeImage, encodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { encodeBaselineJpeg } from "../../src/codecs/jpeg.ts";
import { maxRecodePixels } from "../../src/codecs/limits.ts";
import { transcodeToPng } from "../../src/codecs/native.ts";
import { nativeBytesPerPixel, nativeRoute } from "../../src/codecs/recode-route.ts";
import type { Orientation } from "../../src/codecs/orientation.ts";
import { newAccount } from "../support/fixtures";
import { prng } from "../support/prng";
import { balanceOf, postTool } from "../support/tool-calls";
import { exifApp1, gradient, gradientWithAlpha, handPng, image, maxDiff, meanDiff, pixelgateError, pngChunks, pngLayout, pngPaletteSize, quadrants, quadrantScene as scene, withJpegSegments } from "./support.ts";


async function shown(png: Uint8Array): Promise<RasterImage> {
  return decodeImage(png, readHeader(png, "png"));
}

describe("transcodeToPng from JPEG", () => {
  const stored = scene(67, 41);

  it("lossless: exactly the pixels the general path decodes, for every EXIF orientation", async () => {
    const jpeg = await encodeImage(stored, "jpeg", { quality: 95 });
    for (const orientation of [1, 2, 3, 4, 5, 6, 7, 8] as Orientation[]) {
      const tagged = orientation === 1 ? jpeg : withJpegSegments(jpeg, exifApp1(orientation));
      const out = transcodeToPng(tagged, { width: 67, height: 41 }, "jpeg", 100, orientation)!;
      const general = await decodeImage(tagged, readHeader(tagged, "jpeg"));
      const back = await shown(out);
      expect([back.width, back.height], `orientation ${orientation}`).toEqual([general.width, general.height]);
      expect(maxDiff(back, general), `orientation ${orientation}`).toBe(0);
      expect(pngLayout(out).colorType, "an opaque photo is written as RGB").toBe(2);
      const upright = applyOrientation({ ...stored, data: stored.data.slice() }, orientation);
      expect(meanDiff(back, upright), "one JPEG generation from the original").toBeLessThan(8);
    }
  });

  it("a grey JPEG becomes 8-bit grey; few colours become a palette", async () => {
    const grey = await encodeImage(image(40, 30, (x, y) => [x * 6, x * 6, x * 6, 255]), "jpeg", { quality: 90 });
    const out = transcodeToPng(grey, { width: 40, height: 30 }, "jpeg", 100)!;
    expect(pngLayout(out).colorType).toBe(0);
    expect(maxDiff(await shown(out), await decodeImage(grey, readHeader(grey, "jpeg")))).toBe(0);
  });

  it("quality 70: a palette of at most 128 colours close to the picture, never bigger than lossless", async () => {
    const jpeg = await encodeImage(scene(96, 64), "jpeg", { quality: 92 });
    const header = readHeader(jpeg, "jpeg");
    const general = await decodeImage(jpeg, header);
    const out = transcodeToPng(jpeg, header, "jpeg", 70)!;
    const lossless = transcodeToPng(jpeg, header, "jpeg", 100)!;
    expect(out.length).toBeLessThanOrEqual(lossless.length);
    if (pngLayout(out).colorType === 3) expect(pngPaletteSize(out)).toBeLessThanOrEqual(128);
    expect(meanDiff(await shown(out), general)).toBeLessThan(2);
    // The file's rows and its decoded raster's rows make the same file.
    expect(out).toEqual(await encodeImage(general, "png", { quality: 70 }));
  });

  it("lossless: a photo of several deflate parts decodes exactly and is no larger than zlib's level 3 would make it", async () => {
    // Gradient plus grain: photographic rows (few zeros once filtered), 400x300 RGB is 360 KB
    // of filtered rows, so the stream is two parts (png_deflate.c) joined by a sync marker.
    const random = prng(14);
    const grainy = image(400, 300, (x, y) => {
      const grain = () => Math.round(random() * 24);
      return [x / 2 + grain(), y / 2 + grain(), 120 + grain(), 255];
    });
    const jpeg = await encodeImage(grainy, "jpeg", { quality: 90 });
    const header = readHeader(jpeg, "jpeg");
    const general = await decodeImage(jpeg, header);
    const out = transcodeToPng(jpeg, header, "jpeg", 100)!;
    expect(pngLayout(out).colorType).toBe(2);
    expect(pngChunks(out).filter((c) => c.type === "IDAT").length, "one IDAT chunk per part").toBe(2);
    expect(maxDiff(await shown(out), general)).toBe(0);
    // Each filter computed 16 bytes at a time (png_filter.c) was the winner of some rows.
    const idat = pngChunks(out).filter((c) => c.type === "IDAT");
    const rows = inflateSync(Buffer.concat(idat.map((c) => c.data)));
    const types = new Set(Array.from({ length: 300 }, (_, y) => rows[y * (400 * 3 + 1)]));
    expect(types.size, `filter types ${[...types].join(",")}`).toBeGreaterThanOrEqual(3);
    // libdeflate's level 2 against zlib's 3 (libpng's Z_FILTERED) on the same filtered rows.
    const data = idat.reduce((n, c) => n + c.data.length, 0);
    expect(data).toBeLessThanOrEqual(deflateSync(rows, { level: 3, strategy: constants.Z_FILTERED }).length);
  });

  it("answers invalid_image for data cut short or a size other than the header's", async () => {
    const jpeg = await encodeImage(scene(64, 48), "jpeg");
    expect((await pixelgateError(() => transcodeToPng(jpeg.subarray(0, 100), { width: 64, height: 48 }, "jpeg", 100))).code).toBe("invalid_image");
    expect((await pixelgateError(() => transcodeToPng(jpeg, { width: 48, height: 64 }, "jpeg", 70))).code).toBe("invalid_image");
  });
});

describe("transcodeToPng from PNG", () => {
  for (const [name, source] of [["opaque", scene(67, 41)], ["with alpha", gradientWithAlpha(67, 41)]] as const) {
    it(`${name}: lossless is exact, and the upload's rows make the file its raster makes`, async () => {
      const png = await encodeImage(source, "png");
      const header = readHeader(png, "png");
      const out = transcodeToPng(png, header, "png", 100)!;
      expect(maxDiff(await shown(out), source)).toBe(0);
      expect(pngLayout(out)).toEqual({ colorType: name === "opaque" ? 2 : 6, bitDepth: 8 });
      expect(out).toEqual(png);
    });

    it(`${name}: quality 70 makes the palette file its raster makes`, async () => {
      const png = await encodeImage(source, "png");
      const out = transcodeToPng(png, readHeader(png, "png"), "png", 70)!;
      expect(out).toEqual(await encodeImage(source, "png", { quality: 70 }));
      expect(meanDiff(await shown(out), source)).toBeLessThan(3);
    });
  }

  it("16-bit and low-depth grey files read like the TypeScript decoder", async () => {
    for (const layout of [
      { colorType: 2, bitDepth: 16, sample: (x: number, y: number) => [x * 1000, y * 2000, 30000] },
      { colorType: 0, bitDepth: 4, sample: (x: number, y: number) => [(x + y) & 15] },
    ] as const) {
      const png = await handPng({ width: 23, height: 9, ...layout });
      const header = readHeader(png, "png");
      expect(maxDiff(await shown(transcodeToPng(png, header, "png", 100)!), await decodeImage(png, header)), `colour type ${layout.colorType}`).toBe(0);
    }
  });

  it("leaves interlaced files to the general path; refuses damaged ones", async () => {
    const interlaced = await handPng({ width: 20, height: 12, colorType: 2, bitDepth: 8, interlaced: true, sample: (x, y) => [x * 10, y * 20, 90] });
    expect(transcodeToPng(interlaced, readHeader(interlaced, "png"), "png", 100)).toBeNull();
    const png = await encodeImage(scene(64, 48), "png");
    const header = readHeader(png, "png");
    for (const quality of [100, 70]) {
      expect((await pixelgateError(() => transcodeToPng(png.subarray(0, png.length >> 1), header, "png", quality))).code).toBe("invalid_image");
      expect((await pixelgateError(() => transcodeToPng(png.subarray(0, png.length - 6), header, "png", quality))).code).toBe("invalid_image");
    }
  });
});

describe("what a PNG target costs", () => {
  // Measured (docs/codecs.md): a 12 MP photo-like JPEG of 2.1 MB peaked at 42 to 56 MB to
  // lossless PNG; a 12 MP JPEG of noise (7.7 MB) at 164 MB, its PNG being 31 MB.
  const pixels = 4032 * 3024;
  // Only the upload's size and its frame header (baseline or progressive) count here.
  const upload = (head: Uint8Array, size: number) => {
    const bytes = new Uint8Array(size);
    bytes.set(head);
    return bytes;
  };
  let baseline: Uint8Array = new Uint8Array(0);
  const limitFor = (uploadBytes: number, quality?: number, head: Uint8Array = baseline) => {
    const bytes = upload(head, uploadBytes);
    return maxRecodePixels("jpeg", nativeRoute(bytes, "jpeg", "png", pixels, quality ?? 100)!.price, uploadBytes);
  };

  it("follows the upload's density: a 12 MP photo fits, the same size of noise does not", async () => {
    baseline = await encodeBaselineJpeg(scene(16, 16), 90);
    const progressive = await encodeImage(scene(16, 16), "jpeg", { quality: 90 });
    // A progressive file's decoder holds its coefficients in every pass: it costs more.
    const perPixel = (head: Uint8Array) => nativeBytesPerPixel(upload(head, 1_900_000), "jpeg", "png", pixels, 100)!;
    expect(perPixel(progressive)).toBeGreaterThan(perPixel(baseline));
    expect(limitFor(1_900_000, 100, progressive)).toBeGreaterThanOrEqual(pixels);
    expect(limitFor(2_200_000)).toBeGreaterThanOrEqual(pixels);
    expect(limitFor(8_000_000)).toBeLessThan(pixels);
    // A palette file is at most about a byte a pixel: compress at 70 fits a dense phone photo.
    expect(limitFor(4_000_000, 70)).toBeGreaterThanOrEqual(pixels);
  });

  it("a smooth picture stays lossless below quality 100 when that file is smaller", async () => {
    const smooth = gradient(160, 120);
    const png = await encodeImage(smooth, "png");
    const out = transcodeToPng(png, readHeader(png, "png"), "png", 90)!;
    expect(pngLayout(out).colorType, "RGB, not a palette").toBe(2);
    expect(maxDiff(await shown(out), smooth)).toBe(0);
    expect(pngLayout(await encodeImage(smooth, "png", { quality: 90 })).colorType, "as the raster's file is").toBe(2);
  });
});

describe("damaged files to PNG through the service", () => {
  it("answers 400 invalid_image and charges nothing, for JPEG and PNG inputs", async () => {
    const account = await newAccount({ credits: 3 });
    const jpeg = await encodeImage(scene(64, 48), "jpeg", { quality: 90 });
    const png = await encodeImage(scene(64, 48), "png");
    // Each cut off in its image data (bytes overwritten inside a JPEG's scan are corrupt data
    // libjpeg steps over, as the general decoder does: those answer 200).
    const brokenJpeg = jpeg.slice(0, jpeg.length >> 1);
    const brokenPng = png.slice(0, png.length - 40);
    for (const [mime, bytes] of [["image/jpeg", brokenJpeg], ["image/png", brokenPng]] as const) {
      const response = await postTool("/v1/convert-format", account.key, { image: `data:${mime};base64,${btoa(String.fromCharCode(...bytes))}`, targetFormat: "png" });
      expect(response.status, mime).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code, mime).toBe("invalid_image");
    }
    expect(await balanceOf(account.id)).toBe(3);
  });
});
