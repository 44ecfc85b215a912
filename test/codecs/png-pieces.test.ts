// A PNG written as its rows arrive (native.ts pngPieces: native/png_push.c pushing bands of rows
// into the PNG writer of encodeRgba, whose state stays in one instance between calls). The same
// writer with the same layout must make the same file as encodeImage does from the whole raster;
// the pieces must leave before the last rows are asked for, or nothing would stream.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, pngPieces, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import type { RasterRows } from "../../src/codecs/formats.ts";
import { concat, image, maxDiff, pixelgateError, pngChunkTypes, pngLayout } from "./support.ts";

/** 1000 x 700 of noise (more than 256 colours, not grey): 4000 bytes a row, 262 rows a push. */
function noise(alpha: boolean): RasterImage {
  let seed = 7;
  return image(1000, 700, (x, y) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return [(x + (seed >>> 27)) & 255, (y * 3) & 255, (seed >>> 24) & 255, alpha ? [255, 128, 0, 40][(x >> 5) & 3]! : 255];
  });
}

/** The raster's rows in bands of the given sizes (the last band takes what is left), counting the bands read. */
function rowsOf(source: RasterImage, sizes: number[], alpha: boolean): RasterRows & { read: () => number } {
  const rowBytes = source.width * 4;
  let read = 0;
  function* bands(): Generator<Uint8ClampedArray> {
    for (let y = 0, k = 0; y < source.height; k++) {
      const n = Math.min(sizes[k % sizes.length]!, source.height - y);
      read++;
      yield source.data.slice(y * rowBytes, (y + n) * rowBytes);
      y += n;
    }
  }
  return { width: source.width, height: source.height, alpha, bands: bands(), read: () => read };
}

/** The pieces, each copied as it comes (a piece is valid until the next is asked for). */
async function collect(pieces: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const piece of pieces) out.push(piece.slice());
  return out;
}

describe("a PNG pushed a band of rows at a time", () => {
  it("opaque rows: RGB, the same file encodeImage writes from the whole raster (bands split and joined across pushes)", async () => {
    const source = noise(false);
    // 37 rows, then 700 (more than one push of 262), then 1.
    const png = concat(...(await collect(pngPieces(rowsOf(source, [37, 500, 1], false)))));
    expect(pngLayout(png)).toEqual({ colorType: 2, bitDepth: 8 });
    expect(pngChunkTypes(png).filter((type) => type === "IDAT").length, "one IDAT chunk per deflated part").toBeGreaterThan(2);
    expect(png).toEqual(await encodeImage(source, "png"));
    expect(maxDiff(await decodeImage(png, readHeader(png, "png")), source)).toBe(0);
  });

  it("rows that may be translucent: RGBA, every pixel back as it was", async () => {
    const source = noise(true);
    const png = concat(...(await collect(pngPieces(rowsOf(source, [300], true)))));
    expect(pngLayout(png)).toEqual({ colorType: 6, bitDepth: 8 });
    expect(png).toEqual(await encodeImage(source, "png"));
    expect(maxDiff(await decodeImage(png, readHeader(png, "png")), source)).toBe(0);
  });

  it("hands out deflated parts before the last band is asked for", async () => {
    const source = noise(false);
    const rows = rowsOf(source, [50], false);
    let bandsAtFirstIdat = 0;
    let seen = 0;
    for await (const piece of pngPieces(rows)) {
      seen += piece.length;
      // The signature (8) and IHDR (25) come first; past them, image data.
      if (seen > 33 && bandsAtFirstIdat === 0) bandsAtFirstIdat = rows.read();
    }
    expect(rows.read()).toBe(14);
    expect(bandsAtFirstIdat).toBeGreaterThan(0);
    expect(bandsAtFirstIdat, "the first IDAT left while bands were still to come").toBeLessThan(14);
  });

  it("rows that end early, or go past the height, fail instead of writing a short file", async () => {
    const source = noise(false);
    const short = { ...rowsOf(source, [100], false), height: 701 };
    expect((await pixelgateError(collect(pngPieces(short)))).code).toBe("internal_error");
    const long = { ...rowsOf(source, [100], false), height: 650 };
    expect((await pixelgateError(collect(pngPieces(long)))).code).toBe("internal_error");
  });
});
