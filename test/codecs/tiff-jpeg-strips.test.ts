// JPEG-in-TIFF strips: one MozJPEG instance per image however many strips it has (a fresh
// instance costs most of a millisecond, so 5000 one-row strips took seconds), and each strip's
// own JPEG checked before the charge: its frame must be the strip, its scans few.

import { describe, expect, it } from "vitest";
import { assertSafeToDecode, decodeImage, encodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { MAX_JPEG_SCANS } from "../../src/codecs/jpeg.ts";
import { blobOffset, concat, image, pixelAt, pixelgateError, tiffFile } from "./support.ts";

/** A width x (strips * rowsPerStrip) YCbCr JPEG TIFF, one JPEG per strip, each its own blob. */
function jpegTiff(width: number, rowsPerStrip: number, strips: Uint8Array[]): Uint8Array {
  return tiffFile(
    [
      {
        entries: [
          [256, 4, [width]],
          [257, 4, [rowsPerStrip * strips.length]],
          [258, 3, [8, 8, 8]],
          [259, 3, [7]],
          [262, 3, [6]],
          [273, 4, strips.map((_, k) => blobOffset(k))],
          [277, 3, [3]],
          [278, 4, [rowsPerStrip]],
          [279, 4, strips.map((s) => s.length)],
        ],
      },
    ],
    strips,
  );
}

const solid = (width: number, height: number, rgb: [number, number, number]): RasterImage => image(width, height, () => [...rgb, 255]);

describe("JPEG-in-TIFF strips", () => {
  it("decodes 400 strips with one shared decoder, each strip landing in its own rows", async () => {
    // Sharing one MozJPEG instance across strips is a speed matter, measured by npm run
    // bench:codecs, not here; this test pins down that sharing it keeps the strips apart.
    const red = await encodeImage(solid(8, 2, [220, 20, 20]), "jpeg");
    const blue = await encodeImage(solid(8, 2, [20, 20, 220]), "jpeg");
    const tiff = jpegTiff(8, 2, Array.from({ length: 400 }, (_, k) => (k % 2 ? blue : red)));
    const header = readHeader(tiff, "tiff");

    const decoded = await decodeImage(tiff, header);

    // Results are copies: a later strip does not overwrite an earlier one.
    expect(pixelAt(decoded, 4, 1)[0]).toBeGreaterThan(180);
    expect(pixelAt(decoded, 4, 3)[2]).toBeGreaterThan(180);
    expect(pixelAt(decoded, 4, 796)[0]).toBeGreaterThan(180); // strip 398
    expect(pixelAt(decoded, 4, 799)[2]).toBeGreaterThan(180); // strip 399, the last
  });

  it("a strip whose JPEG has more rows than RowsPerStrip is refused before decoding", async () => {
    // One row per strip, but each strip a 1 x 64 JPEG: 64 times the pixels the header promises.
    const tall = await encodeImage(solid(1, 64, [1, 2, 3]), "jpeg");
    const tiff = jpegTiff(1, 1, Array.from({ length: 16 }, () => tall));
    const error = await pixelgateError(() => assertSafeToDecode(tiff, readHeader(tiff, "tiff")));
    expect(error.code).toBe("invalid_image");
  });

  it(`a strip with more than ${MAX_JPEG_SCANS} scans is refused before decoding`, async () => {
    const progressive = await encodeImage(solid(8, 8, [9, 9, 9]), "jpeg");
    const sos: number[] = [];
    for (let i = 0; i + 1 < progressive.length; i++) if (progressive[i] === 0xff && progressive[i + 1] === 0xda) sos.push(i);
    const lastScan = progressive.subarray(sos.at(-1)!, progressive.length - 2);
    const scans = Array.from({ length: MAX_JPEG_SCANS }, () => lastScan);
    const bomb = concat(progressive.subarray(0, progressive.length - 2), ...scans, new Uint8Array([0xff, 0xd9]));
    const tiff = jpegTiff(8, 8, [bomb]);
    const error = await pixelgateError(() => assertSafeToDecode(tiff, readHeader(tiff, "tiff")));
    expect(error.code).toBe("invalid_image");
  });
});
