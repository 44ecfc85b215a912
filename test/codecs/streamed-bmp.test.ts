// The streamed BMP (native/bmp_sink.c via native.ts streamBmp): a BMP is never whole. Its rows
// are made bottom band first as the file is read, each band decoding the upload again, and each
// reading of the result makes the file again. Checked here: pictures of several bands (a band
// holds 8 MB of RGBA rows) give the general path's bytes, upright and turned, baseline and
// progressive; every reading gives the same bytes in pieces of bounded size; damage anywhere
// in the upload is answered before the first byte is read.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { encodeBaselineJpeg } from "../../src/codecs/jpeg.ts";
import { streamBmp } from "../../src/codecs/native.ts";
import type { Orientation } from "../../src/codecs/orientation.ts";
import { exifApp1, gradientWithAlpha, image, pixelgateError, withJpegSegments } from "./support.ts";

/** Taller than one band (1500 x 1500 x 4 bytes is 9 MB): the rows come from two decodes of the file. */
const SIDE = 1500;

/** Smooth tone with fine detail, so a row out of place or a band boundary off by one shows. */
const scene: RasterImage = image(SIDE, SIDE - 100, (x, y) => [(x * 7 + y) & 255, (y * 3) & 255, ((x ^ y) * 5) & 255, 255]);

async function generalBmp(bytes: Uint8Array, format: "jpeg" | "png"): Promise<Uint8Array> {
  return encodeImage(await decodeImage(bytes, readHeader(bytes, format)), "bmp");
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

describe("a BMP made as it is read", () => {
  it("a picture of several bands, baseline and progressive JPEG, upright, flipped and turned: the general path's bytes", async () => {
    const baseline = await encodeBaselineJpeg(scene, 90);
    const progressive = await encodeImage(scene, "jpeg", { quality: 90 });
    for (const [name, jpeg] of [["baseline", baseline], ["progressive", progressive]] as const) {
      for (const orientation of [1, 3, 4, 6] as Orientation[]) {
        const tagged = orientation === 1 ? jpeg : withJpegSegments(jpeg, exifApp1(orientation));
        const streamed = streamBmp(tagged, readHeader(tagged, "jpeg"), "jpeg", orientation)!;
        const expected = await generalBmp(tagged, "jpeg");
        expect(streamed.length, `${name} ${orientation}: its length, known before it is read`).toBe(expected.length);
        expect(same(streamed.bytes, expected), `${name} orientation ${orientation}`).toBe(true);
      }
    }
  }, 120_000);

  it("a PNG with alpha of several bands: the general path's bytes (alpha onto black)", async () => {
    const png = await encodeImage(gradientWithAlpha(SIDE, SIDE), "png");
    expect(same(streamBmp(png, readHeader(png, "png"), "png")!.bytes, await generalBmp(png, "png"))).toBe(true);
  }, 60_000);

  it("every reading gives the same bytes, a header and then pieces of whole rows of at most 192 KB", async () => {
    const jpeg = await encodeBaselineJpeg(scene, 80);
    const streamed = streamBmp(jpeg, readHeader(jpeg, "jpeg"), "jpeg")!;
    const readings = [0, 1, 2].map(() => [...streamed.pieces]);
    const stride = Math.ceil((SIDE * 3) / 4) * 4;
    for (const pieces of readings) {
      expect(pieces[0]!.length).toBe(54);
      for (const piece of pieces.slice(1)) {
        expect(piece.length % stride).toBe(0);
        expect(piece.length).toBeLessThanOrEqual(192 * 1024);
      }
      expect(pieces.reduce((n, piece) => n + piece.length, 0)).toBe(streamed.length);
      expect(same(Buffer.concat(pieces), Buffer.concat(readings[0]!))).toBe(true);
    }
  }, 60_000);

  it("damage in the upload's last rows is answered (invalid_image) before anything is read", async () => {
    const png = await encodeImage(scene, "png");
    // The last IDAT's data cut short: the rows run out only at the bottom of the picture, which
    // a BMP writes first.
    const cut = png.slice(0, png.length - 2000);
    const error = await pixelgateError(() => streamBmp(cut, readHeader(cut, "png"), "png"));
    expect(error.code).toBe("invalid_image");
    const jpeg = await encodeBaselineJpeg(scene, 80);
    const header = readHeader(jpeg, "jpeg");
    expect((await pixelgateError(() => streamBmp(jpeg, { width: header.width, height: header.height + 16 }, "jpeg"))).code).toBe("invalid_image");
  }, 60_000);
});
