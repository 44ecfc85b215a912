// A raster written as PNG, GIF and BMP by our own WASM build (native.ts encodeRgba: the C writers
// reading the raster's rows through native/rgba_rows.c, a batch of about 256 KB at a time, top
// down for PNG and GIF, bottom up for BMP). The pictures here span several batches and odd row
// sizes, so a row taken from the wrong batch or the wrong end would show in the decoded file.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { distinctColors, image, maxDiff, meanDiff, pixelAt, pngChunkTypes, pngLayout, pngPaletteSize } from "./support.ts";

/** 301 x 700 (1204 bytes a row: 217 rows a batch, 4 batches), every row different, alpha in steps. */
function tall(): RasterImage {
  let seed = 11;
  return image(301, 700, (x, y) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const alpha = [255, 255, 200, 128, 127, 40, 0][(x >> 4) % 7]!;
    return [(x + y) & 255, (y * 3) & 255, (x * 7 + (seed >>> 29)) & 255, alpha];
  });
}

async function back(bytes: Uint8Array, format: "png" | "gif" | "bmp"): Promise<RasterImage> {
  return decodeImage(bytes, readHeader(bytes, format));
}

describe("a raster to PNG, GIF and BMP through the row source", () => {
  const source = tall();
  const untouched = source.data.slice();

  it("PNG lossless: every row in place (RGBA, several batches)", async () => {
    const png = await encodeImage(source, "png");
    expect(pngLayout(png)).toEqual({ colorType: 6, bitDepth: 8 });
    expect(maxDiff(await back(png, "png"), source)).toBe(0);
  });

  it("PNG quality 60: a palette of at most 64 entries with tRNS for the soft alpha", async () => {
    const png = await encodeImage(source, "png", { quality: 60 });
    expect(pngLayout(png).colorType).toBe(3);
    expect(pngPaletteSize(png)).toBeLessThanOrEqual(64);
    expect(pngChunkTypes(png)).toContain("tRNS");
    const decoded = await back(png, "png");
    expect(distinctColors(decoded)).toBeLessThanOrEqual(64);
    expect(pixelAt(decoded, 100, 350)[3], "alpha 0 stays clear").toBe(0);
  });

  it("BMP: rows bottom up, padded to 4 bytes, alpha composited onto black", async () => {
    const bmp = await encodeImage(source, "bmp");
    const stride = Math.ceil((301 * 3) / 4) * 4;
    expect(bmp.length).toBe(54 + stride * 700);
    const view = new DataView(bmp.buffer, bmp.byteOffset);
    expect([view.getInt32(18, true), view.getInt32(22, true), view.getUint16(28, true)]).toEqual([301, 700, 24]);
    // The file's first row is the picture's last.
    const [r, g, b, a] = pixelAt(source, 0, 699);
    const flat = (c: number) => Math.round((c * a! + 127) / 255);
    expect([bmp[56], bmp[55], bmp[54]]).toEqual([flat(r!), flat(g!), flat(b!)]);
    const decoded = await back(bmp, "bmp");
    for (const [x, y] of [[0, 0], [300, 0], [20, 216], [40, 217], [60, 433], [90, 434], [150, 699], [300, 699]] as const) {
      const [pr, pg, pb, pa] = pixelAt(source, x, y);
      const f = (c: number) => Math.round((c * pa! + 127) / 255);
      expect(pixelAt(decoded, x, y), `pixel ${x},${y}`).toEqual([f(pr!), f(pg!), f(pb!), 255]);
    }
  });

  it("GIF: at most 256 colours, alpha below 128 clear and the rest opaque, rows in place", async () => {
    const gif = await encodeImage(source, "gif");
    const decoded = await back(gif, "gif");
    expect(distinctColors(decoded)).toBeLessThanOrEqual(256);
    for (const [x, y] of [[0, 0], [50, 216], [70, 217], [90, 433], [100, 699]] as const) {
      const a = pixelAt(source, x, y)[3]!;
      expect(pixelAt(decoded, x, y)[3], `alpha at ${x},${y} (${a})`).toBe(a < 128 ? 0 : 255);
    }
    const opaque = (x: number) => pixelAt(source, x, 0)[3]! >= 128;
    // Measured 9.98: this picture's many colours in 256 entries, without dithering.
    expect(meanDiff(decoded, source, (x) => opaque(x)), "median cut keeps each colour near its own").toBeLessThan(11);
  });

  it("leaves the caller's raster as it was", () => {
    expect(source.data).toEqual(untouched);
  });

  it("a 1 x 1 raster is a valid file in each format", async () => {
    const dot = image(1, 1, () => [10, 200, 30, 255]);
    for (const format of ["png", "gif", "bmp"] as const) {
      expect(pixelAt(await back(await encodeImage(dot, format), format), 0, 0), format).toEqual([10, 200, 30, 255]);
    }
  });
});
