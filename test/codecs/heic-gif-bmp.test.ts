// HEIC to GIF and BMP through our HEVC decoder's planes (heic-tiles.ts heicPlanesFromTiles) and
// the row writers (native/png_planes_rows.c into gif_sink.c, bmp_sink.c): the file must be the
// general path's (encodeImage reading the decoded raster's rows) for the same decoded pixels, which
// the lossless PNG of the same planes shows (its rows come from the same row source).

import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { decodeHeic } from "../../src/codecs/heic.ts";
import { readHeicLayout } from "../../src/codecs/heic-layout.ts";
import { heicPlanesFromTiles } from "../../src/codecs/heic-tiles.ts";
import { decodeImage, encodeImage, readHeader, recodeImage, sniffFormat } from "../../src/codecs/index.ts";
import { maxRecodePixels } from "../../src/codecs/limits.ts";
import { termsOf } from "../../src/codecs/recode-cost.ts";
import { planesToPng } from "../../src/codecs/native.ts";
import { nativeRoute } from "../../src/codecs/recode-route.ts";
import { heicEncoding } from "../../src/codecs/heic.ts";
import { meanDiff, pixelgateError } from "./support.ts";
import { buildCorpus } from "../hostile/corpus.ts";
import { ALPHA_HEIC, GRID_ALPHA_HEIC, GRID_HEIC, GRID_TURNED_HEIC, QUADRANTS_HEIC, TEN_BIT_HEIC, TURNED_HEIC } from "../fixtures/heic.ts";

const bytesOf = (base64: string) => new Uint8Array(Buffer.from(base64, "base64"));

/** The pixels our planes stand for: the lossless PNG the same row source writes, decoded. */
async function planePixels(bytes: Uint8Array) {
  const planes = (await heicPlanesFromTiles(readHeicLayout(bytes)!, heicEncoding(bytes)!))!;
  const png = planesToPng(planes, 100);
  return decodeImage(png, readHeader(png, "png"));
}

describe("HEIC to GIF and BMP through our HEVC decoder", () => {
  const cases = [
    ["a single image", QUADRANTS_HEIC, 1, [64, 48]],
    ["a single image turned by irot", TURNED_HEIC, 1, [48, 64]],
    ["a 10-bit single image", TEN_BIT_HEIC, 1, null],
    ["a single image with alpha", ALPHA_HEIC, 1, null],
    ["a grid", GRID_HEIC, 4, [120, 100]],
    ["a grid turned by irot", GRID_TURNED_HEIC, 4, [100, 120]],
    ["a grid with alpha", GRID_ALPHA_HEIC, 4, [120, 100]],
  ] as const;
  for (const target of ["gif", "bmp"] as const) {
    for (const [what, base64, tiles, size] of cases) {
      it(`${what} to ${target}: the general path's bytes for the same pixels, close to libheif's picture`, async () => {
        const bytes = bytesOf(base64);
        const header = readHeader(bytes, "heic");
        const route = nativeRoute(bytes, "heic", target, header.width * header.height, 100);
        expect(route?.input === "heic" && route.tiles?.image.tiles.length).toBe(tiles);
        const out = await recodeImage(bytes, header, target);
        if (size) expect([out.width, out.height]).toEqual(size);
        const expected = await encodeImage(await planePixels(bytes), target);
        expect(Buffer.from(out.bytes).equals(Buffer.from(expected))).toBe(true);
        // And the picture is the one libheif shows (its chroma is upsampled otherwise, and GIF
        // has 256 colours): close on average where libheif is opaque.
        const ours = await decodeImage(out.bytes, readHeader(out.bytes, target));
        const theirs = await decodeHeic(bytes, 1_000_000);
        expect([ours.width, ours.height]).toEqual([theirs.width, theirs.height]);
        expect(meanDiff(ours, theirs, (x, y) => theirs.data[(y * theirs.width + x) * 4 + 3] === 255)).toBeLessThan(target === "gif" ? 8 : 4);
      });
    }
  }

  it("is priced as the native path: a 12 MP single-image photo to GIF fits where libheif's RGBA held it to 4 MP", () => {
    const pixels = 4032 * 3024;
    const photo = new Uint8Array(1_700_000);
    photo.set(bytesOf(QUADRANTS_HEIC));
    const gif = nativeRoute(photo, "heic", "gif", pixels, 100);
    expect(gif?.input).toBe("heic");
    expect(gif!.price.perPixel).toBeLessThan(termsOf("general: encode gif").perPixel!);
    expect(maxRecodePixels("heic", gif!.price, photo.length)).toBeGreaterThanOrEqual(pixels);
    // A BMP is 3 bytes a pixel beside the planes (its answer's base64 written in slices): 12 MP
    // fits (73.6 MB measured), a 24 MP one would not.
    const bmp = nativeRoute(photo, "heic", "bmp", pixels, 100);
    const bmpLimit = maxRecodePixels("heic", bmp!.price, photo.length);
    expect(bmpLimit).toBeGreaterThanOrEqual(pixels);
    expect(bmpLimit).toBeLessThan(24_000_000);
  });
});

describe("damaged HEICs to GIF and BMP", () => {
  it("every HEIC of the hostile corpus answers its own 4xx there too, before and during the decode", async () => {
    const { hostile } = await buildCorpus();
    // Those the service sniffs as HEIC (a file cut inside its ftyp box is not recognised at all).
    const cases = hostile.filter((c) => c.bytes && c.ext === "heic" && sniffFormat(c.bytes) === "heic");
    expect(cases.length).toBeGreaterThanOrEqual(5);
    for (const c of cases) {
      for (const target of ["gif", "bmp"] as const) {
        const error = await pixelgateError(async () => recodeImage(c.bytes!, readHeader(c.bytes!, "heic"), target));
        expect([c.expect.code].flat(), `${c.name} to ${target}: ${error.message}`).toContain(error.code);
      }
    }
  });
});
