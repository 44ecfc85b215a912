import { describe, expect, it } from "vitest";
import { decodeImage, readHeader, sniffFormat, type RasterImage } from "../../src/codecs/index.ts";
import { decodeAvif } from "../../src/codecs/avif.ts";
import { readHeifItems } from "../../src/codecs/heif-items.ts";
import { encodeBaselineJpeg } from "../../src/codecs/jpeg.ts";
import { exifApp1, image, meanDiff, withJpegSegments } from "../codecs/support.ts";
import { PHOTO_12MP_HEIC } from "../fixtures/heic.ts";
import { newAccount } from "../support/fixtures";
import { balanceOf, base64, bytesOfBase64, fetchHosted, postTool } from "../support/tool-calls";

// convert-format to AVIF at phone-photo size, end to end through the worker, R2 and the ledger:
// above 2 MP the AVIF is a grid of cells coded one at a time (src/codecs/avif-cells.ts). The
// hosted file is read back by libavif (the reader Chromium uses; test/browser/avif.test.ts opens
// it in Chromium itself) and compared with the source.

interface Converted {
  result: { imageUrl: string; mimeType: string; width: number; height: number; targetFormat: string };
}

/** A photo-like picture: smooth colour with some texture. */
function scene(width: number, height: number): RasterImage {
  return image(width, height, (x, y) => [(x * 255) / width, (y * 255) / height, 128 + 60 * Math.sin(x / 37) * Math.cos(y / 29), 255]);
}

async function convertToAvif(upload: Uint8Array, mime: string): Promise<{ file: Uint8Array; body: Converted }> {
  const account = await newAccount({ credits: 3 });
  const response = await postTool("/v1/convert-format", account.key, { image: `data:${mime};base64,${base64(upload)}`, targetFormat: "avif" });
  expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
  const body = (await response.json()) as Converted;
  expect(body.result).toMatchObject({ targetFormat: "avif", mimeType: "image/avif" });
  expect(await balanceOf(account.id)).toBe(2);
  return { file: await fetchHosted(body.result.imageUrl, "image/avif"), body };
}

/** The answer's own header: a grid (the primary item) of AV1 cells, and its size. */
function gridSize(file: Uint8Array): { width: number; height: number } {
  expect(sniffFormat(file)).toBe("avif");
  const items = readHeifItems(file);
  expect(items.items.get(items.primary)?.type).toBe("grid");
  const { width, height } = readHeader(file, "avif");
  return { width, height };
}

describe("convert-format to AVIF, 12 MP photos", () => {
  it("a 4032x3024 phone JPEG shot in portrait (EXIF 6): 200, an upright 3024x4032 grid AVIF close to the photo", async () => {
    const picture = scene(4032, 3024);
    const jpeg = withJpegSegments(await encodeBaselineJpeg(picture, 90), exifApp1(6));
    const { file, body } = await convertToAvif(jpeg, "image/jpeg");
    expect([body.result.width, body.result.height]).toEqual([3024, 4032]);
    expect(gridSize(file)).toEqual({ width: 3024, height: 4032 });
    const decoded = await decodeAvif(file);
    expect([decoded.width, decoded.height]).toEqual([3024, 4032]);
    // Turned a quarter clockwise: the shown (x, y) is the photo's (y, height - 1 - x).
    const at = (img: RasterImage, x: number, y: number) => img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3);
    let total = 0;
    let count = 0;
    for (let y = 0; y < 4032; y += 7) {
      for (let x = 0; x < 3024; x += 7) {
        const [a, b] = [at(decoded, x, y), at(picture, y, 3023 - x)];
        for (let c = 0; c < 3; c++) total += Math.abs(a[c]! - b[c]!);
        count += 3;
      }
    }
    expect(total / count).toBeLessThan(3);
  }, 180_000);

  it("a 12 MP HEIC (4032x3024): 200, a 4032x3024 grid AVIF close to the HEIC's own pixels", async () => {
    const heic = bytesOfBase64(PHOTO_12MP_HEIC);
    const { file, body } = await convertToAvif(heic, "image/heic");
    expect([body.result.width, body.result.height]).toEqual([4032, 3024]);
    expect(gridSize(file)).toEqual({ width: 4032, height: 3024 });
    const decoded = await decodeAvif(file);
    const source = await decodeImage(heic, readHeader(heic, "heic"));
    expect(meanDiff(decoded, source)).toBeLessThan(3);
  }, 180_000);
});
