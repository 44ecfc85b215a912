// Every input kind to every target: the route is chosen once from the header (recode-route.ts),
// priced so, and what recodeImage then runs is that route. A native reader chosen for a file it
// then turns down is an internal_error, not a silent switch to the general path, so each pair
// below either runs the route it was priced as or fails here. The files the header must tell
// apart from their ordinary neighbours are fixtures: a CMYK JPEG, an RGB-coded JPEG, an
// interlaced PNG, an animated WebP, a grid HEIC of odd sides turned by irot.

import { describe, expect, it } from "vitest";
import { encodeImage, IMAGE_FORMATS, nativeRoute, readHeader, recodeImage, sniffFormat, type ImageFormat, type InputFormat } from "../../src/codecs/index.ts";
import { readJpegFrame } from "../../src/codecs/jpeg.ts";
import { readRouteFacts, rowsFor } from "../../src/codecs/route-table.ts";
import { heicEncoding } from "../../src/codecs/heic.ts";
import { GRID_HEIC, GRID_TURNED_HEIC, QUADRANTS_HEIC, TURNED_HEIC, ALPHA_HEIC } from "../fixtures/heic.ts";
import { CMYK_JPEG, GRID_ODD_TURNED_HEIC } from "../fixtures/route-cases.ts";
import { animatedWebp, concat, exifApp1, gradient, gradientWithAlpha, handPng, jsquashWebp, pngWithExifChunk, tiffStructure, webpWithExif, withJpegSegments } from "./support.ts";
import { bytesOfBase64 } from "../support/tool-calls.ts";
import { transcodeJpeg } from "../../src/codecs/native.ts";
import { assertRecodable } from "../../src/codecs/header.ts";
import { generalPrice } from "../../src/codecs/limits.ts";
import { termsOf } from "../../src/codecs/recode-cost.ts";
import { ERROR_CATALOG, PixelgateError } from "../../src/errors.ts";

/**
 * A baseline JPEG without its JFIF marker and with component ids R, G, B (in the frame and in
 * its one scan): libjpeg reads its samples as RGB.
 */
function rgbCoded(jpeg: Uint8Array): Uint8Array {
  const app0 = jpeg[2] === 0xff && jpeg[3] === 0xe0 ? 2 + ((jpeg[4]! << 8) | jpeg[5]!) : 0;
  const out = concat(jpeg.subarray(0, 2), jpeg.subarray(2 + app0));
  for (let i = 2; i < out.length; ) {
    const marker = out[i + 1]!;
    if (marker === 0xc0) [82, 71, 66].forEach((id, k) => (out[i + 10 + 3 * k] = id));
    if (marker === 0xda) {
      [82, 71, 66].forEach((id, k) => (out[i + 5 + 2 * k] = id));
      break;
    }
    i += 2 + ((out[i + 2]! << 8) | out[i + 3]!);
  }
  return out;
}

type Kind = "native" | "general";

interface InputCase {
  name: string;
  bytes: Uint8Array;
  /** Which targets our own readers take this file to (the rest: the general path). */
  native: readonly ImageFormat[];
}

const ROW_WRITERS = ["png", "gif", "bmp"] as const;
const ENCODERS = ["webp", "jpeg", "tiff"] as const;

async function inputCases(): Promise<InputCase[]> {
  const picture = gradient(48, 30);
  const jpeg = await encodeImage(picture, "jpeg", { quality: 90 });
  const baseline = transcodeJpeg(jpeg, picture, "baseline-jpeg", 90)!;
  const png = await encodeImage(picture, "png");
  const webp = await encodeImage(picture, "webp", { quality: 80 });
  const everyNative = [...ENCODERS, ...ROW_WRITERS];
  // EXIF orientation 6 (a quarter clockwise): the row writers turn it; to the encoders the general path does.
  const turnTiff = tiffStructure([[0x0112, 3, [6]]]);
  return [
    { name: "JPEG (YCbCr, progressive)", bytes: jpeg, native: everyNative },
    { name: "JPEG turned by EXIF", bytes: withJpegSegments(jpeg, exifApp1(6)), native: everyNative },
    { name: "JPEG, baseline", bytes: baseline, native: everyNative },
    { name: "JPEG, RGB-coded", bytes: rgbCoded(baseline), native: ROW_WRITERS },
    { name: "PNG", bytes: png, native: everyNative },
    { name: "PNG with alpha", bytes: await encodeImage(gradientWithAlpha(48, 30), "png"), native: everyNative },
    { name: "PNG, interlaced", bytes: await handPng({ width: 20, height: 12, colorType: 2, bitDepth: 8, interlaced: true, sample: (x, y) => [x * 10, y * 20, 90] }), native: [] },
    { name: "WebP, lossy", bytes: webp, native: everyNative },
    { name: "PNG turned by EXIF", bytes: pngWithExifChunk(png, turnTiff), native: ROW_WRITERS },
    { name: "WebP turned by EXIF", bytes: webpWithExif(webp, turnTiff, 48, 30), native: ROW_WRITERS },
    { name: "WebP, lossless", bytes: await jsquashWebp(picture, { lossless: 1 }), native: everyNative },
    { name: "WebP, animated", bytes: animatedWebp({ width: 48, height: 30 }, [{ webp, x: 0, y: 0, width: 48, height: 30 }]), native: [] },
    { name: "HEIC, single image", bytes: bytesOfBase64(QUADRANTS_HEIC), native: everyNative },
    { name: "HEIC, single image turned by irot", bytes: bytesOfBase64(TURNED_HEIC), native: everyNative },
    { name: "HEIC with alpha", bytes: bytesOfBase64(ALPHA_HEIC), native: everyNative },
    { name: "HEIC grid", bytes: bytesOfBase64(GRID_HEIC), native: everyNative },
    { name: "HEIC grid turned by irot", bytes: bytesOfBase64(GRID_TURNED_HEIC), native: everyNative },
    // Odd sides turned: our decoder streams it to the encoders, but whole planes (PNG) come
    // from libheif, and GIF and BMP from libheif's RGBA (the general path).
    { name: "HEIC grid of odd sides turned by irot", bytes: bytesOfBase64(GRID_ODD_TURNED_HEIC), native: [...ENCODERS, "png"] },
    { name: "GIF", bytes: await encodeImage(picture, "gif"), native: [] },
    { name: "BMP", bytes: await encodeImage(picture, "bmp"), native: [] },
    { name: "TIFF", bytes: await encodeImage(picture, "tiff"), native: [] },
    { name: "AVIF", bytes: await encodeImage(picture, "avif", { quality: 50 }), native: [] },
  ];
}

describe("the route table: every input kind to every target", async () => {
  const cases = await inputCases();
  for (const input of cases) {
    it(`${input.name}: each target runs the route it was priced as`, async () => {
      const format = sniffFormat(input.bytes) as InputFormat;
      const header = readHeader(input.bytes, format);
      const served: Record<string, Kind> = {};
      const facts = readRouteFacts(input.bytes, format);
      for (const target of IMAGE_FORMATS) {
        // Exactly one row, or none (the general path): never two rows for one file and target.
        const rows = rowsFor(facts, target);
        expect(rows.length, `${input.name} to ${target}: ${rows.map((r) => r.name).join(", ")}`).toBeLessThanOrEqual(1);
        const quality = target === "png" || target === "gif" || target === "bmp" ? 100 : 80;
        const route = nativeRoute(input.bytes, format, target, header.width * header.height, quality);
        served[target] = route ? "native" : "general";
        expect(route?.row).toBe(rows[0]);
        const out = await recodeImage(input.bytes, header, target, { quality });
        expect(sniffFormat(out.bytes), `${input.name} to ${target}`).toBe(target);
      }
      const expected = Object.fromEntries(IMAGE_FORMATS.map((t) => [t, (input.native as readonly string[]).includes(t) ? "native" : "general"]));
      expect(served).toEqual(expected);
    });
  }

  it("a CMYK JPEG is told from its header and refused before the charge for every target (no reader here takes it)", async () => {
    const cmyk = bytesOfBase64(CMYK_JPEG);
    expect(readJpegFrame(cmyk)).toMatchObject({ components: 4, colorSpace: "cmyk" });
    for (const target of IMAGE_FORMATS) {
      expect(nativeRoute(cmyk, "jpeg", target, 40 * 30, 80)).toBeNull();
      const refused = (() => {
        try {
          assertRecodable({ format: "jpeg", width: 40, height: 30, bytes: cmyk }, target, generalPrice("jpeg", target, cmyk.length, 40 * 30));
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(PixelgateError);
      expect((refused as PixelgateError).code).toBe("unsupported_image_format");
      expect(ERROR_CATALOG.unsupported_image_format.status).toBe(400);
    }
    // What the general path would have done after the charge: fail to decode it.
    await expect(recodeImage(cmyk, readHeader(cmyk, "jpeg"), "webp")).rejects.toThrow(PixelgateError);
  });

  it("the odd-sized turned HEIC grid to PNG is priced as libheif's planes, which is what makes them", () => {
    const heic = bytesOfBase64(GRID_ODD_TURNED_HEIC);
    const route = nativeRoute(heic, "heic", "png", 119 * 99, 100);
    expect(route).toMatchObject({ input: "heic", tiles: null });
    const encoding = heicEncoding(heic)!;
    expect(encoding.alpha).toBe(false);
    // libheif's decode, then our PNG writer beside its planes: the dearer of the two prices it.
    expect(route!.row.name).toBe("libheif planes to png");
    expect(route!.row.cost(route!.facts, { target: "png", quality: 100, inputBytes: heic.length, pixels: 119 * 99 }).stages[0]).toContain("libheif planes to png: decode");
    expect(route!.price.perPixel).toBeGreaterThanOrEqual(termsOf("libheif planes to png: decode").perPixel!);
    // The even-sided turned grid keeps our decoder's planes.
    const even = bytesOfBase64(GRID_TURNED_HEIC);
    expect(nativeRoute(even, "heic", "png", 120 * 100, 100)).toMatchObject({ tiles: { turns: 1 } });
  });
});
