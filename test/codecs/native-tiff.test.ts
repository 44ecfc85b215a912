// TIFF written by our own WASM build: a baseline JPEG from the same encoder as JPEG output,
// wrapped in a one-strip TIFF (recode.ts), for every input the native paths read. Checked
// against the general path (the raster through jsquash's baseline encoder) and read back by our
// own TIFF decoder.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, nativeBytesPerPixel, readHeader, recodeImage, sniffFormat, type RasterImage } from "../../src/codecs/index.ts";
import { encodeBaselineJpeg, readJpegFrame } from "../../src/codecs/jpeg.ts";
import { tiffAroundJpeg } from "../../src/codecs/tiff.ts";
import { estimateCodecBytes, maxRecodePixels } from "../../src/codecs/limits.ts";
import { nativeRoute } from "../../src/codecs/recode-route.ts";
import { concat, exifApp1, gradient, withJpegSegments } from "./support.ts";

/** Mean absolute difference per channel (RGB), over every pixel. */
function meanDifference(a: RasterImage, b: RasterImage): number {
  let sum = 0;
  for (let i = 0; i < a.data.length; i += 4) for (let c = 0; c < 3; c++) sum += Math.abs(a.data[i + c]! - b.data[i + c]!);
  return sum / ((a.data.length / 4) * 3);
}

/** The JPEG strip inside one of our TIFFs (its one strip, found by its SOI marker). */
function stripOf(tiff: Uint8Array): Uint8Array {
  for (let at = 8; at + 1 < tiff.length; at++) if (tiff[at] === 0xff && tiff[at + 1] === 0xd8) return tiff.subarray(at);
  throw new Error("no JPEG strip");
}

describe("TIFF through the native baseline JPEG encoder", () => {
  const source = gradient(320, 240);

  for (const input of ["jpeg", "png", "webp"] as const) {
    it(`${input} in: one baseline strip that reads back as the picture`, async () => {
      const bytes = input === "jpeg" ? await encodeBaselineJpeg(source, 92) : await encodeImage(source, input, { quality: 100 });
      const out = await recodeImage(bytes, readHeader(bytes, input), "tiff");
      expect(sniffFormat(out.bytes)).toBe("tiff");
      const frame = readJpegFrame(stripOf(out.bytes));
      expect(frame).toMatchObject({ progressive: false, components: 3, width: 320, height: 240 });
      const decoded = await decodeImage(out.bytes, readHeader(out.bytes, "tiff"));
      expect([decoded.width, decoded.height]).toEqual([320, 240]);
      expect(meanDifference(decoded, source)).toBeLessThan(3);
    });
  }

  it("turns a portrait JPEG by its EXIF orientation, as the other targets do", async () => {
    const bytes = withJpegSegments(await encodeBaselineJpeg(source, 92), exifApp1(6));
    const out = await recodeImage(bytes, readHeader(bytes, "jpeg"), "tiff");
    expect(readHeader(out.bytes, "tiff")).toMatchObject({ width: 240, height: 320 });
  });

  it("leaves a grey (one-component) JPEG to the general path: the strip's tags say three", () => {
    // SOI, a baseline frame of one component, then the scan header: as far as the checks read.
    const grey = new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 48, 0, 64, 1, 1, 0x11, 0, 0xff, 0xda, 0, 8, 1, 1, 0, 0, 63, 0]);
    expect(readJpegFrame(grey).components).toBe(1);
    expect(tiffAroundJpeg(grey, 64, 48)).toBeNull();
    expect(nativeBytesPerPixel(grey, "jpeg", "tiff")).toBeNull();
    expect(nativeBytesPerPixel(grey, "jpeg", "jpeg")).not.toBeNull();
  });

  it("costs what a JPEG target costs on the native path and more per byte of upload (its baseline file is larger, and wrapped), so a dense 12 MP photo is within the limits", async () => {
    // Only the header and the upload's size count: a 6 MB upload, as a dense 12 MP phone photo.
    const jpeg = concat(await encodeBaselineJpeg(source, 90), new Uint8Array(6_000_000));
    const pixels = 12_000_000;
    const tiff = nativeRoute(jpeg, "jpeg", "tiff", pixels, 100)!.price;
    const estimate = (price: typeof tiff) => estimateCodecBytes(pixels, price, jpeg.length);
    expect(estimate(tiff)).toBeGreaterThan(estimate(nativeRoute(jpeg, "jpeg", "jpeg", pixels, 100)!.price));
    expect(maxRecodePixels("jpeg", tiff, jpeg.length)).toBeGreaterThanOrEqual(pixels);
    expect(nativeBytesPerPixel(jpeg, "jpeg", "avif", pixels)).toBeNull(); // AVIF is written from a raster
  });
});
