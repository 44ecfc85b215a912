// Deflate, LZW and PackBits TIFF chunks (tiff-compression.ts): decompressed exactly, and never
// to more than the rows a strip or tile holds. These bombs have honest headers and layouts, so
// they pass the check before the charge and are refused while decoding (a refunded 4xx), each
// as soon as its output passes its chunk's size.

import { describe, expect, it } from "vitest";
import { assertSafeToDecode, decodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { blobOffset, gradient, maxDiff, pixelgateError, rgbBytes, tiffFile, zlib } from "./support.ts";

type Entry = [tag: number, type: 3 | 4, values: number[]];

async function decode(bytes: Uint8Array): Promise<RasterImage> {
  return decodeImage(bytes, readHeader(bytes, "tiff"));
}

/** One image in `strips` (each `rowsPerStrip` rows), 8-bit, 1 or 3 samples per pixel. */
function stripTiff(width: number, height: number, samples: 1 | 3, compression: number, strips: Uint8Array[], rowsPerStrip = height, extra: Entry[] = []): Uint8Array {
  const entries: Entry[] = [
    [256, 4, [width]],
    [257, 4, [height]],
    [258, 3, Array<number>(samples).fill(8)],
    [259, 3, [compression]],
    [262, 3, [samples === 3 ? 2 : 1]],
    [273, 4, strips.map((_, k) => blobOffset(k))],
    [277, 3, [samples]],
    [278, 4, [rowsPerStrip]],
    [279, 4, strips.map((s) => s.length)],
    ...extra,
  ];
  return tiffFile([{ entries }], strips);
}

/** Rows `from` to `to` of an RGB sample array `width` pixels wide. */
const rows = (rgb: Uint8Array, width: number, from: number, to: number) => rgb.subarray(from * width * 3, to * width * 3);

/** A zlib stream of `megabytes` MB of zeros, compressed piece by piece (never held whole). */
async function zerosDeflated(megabytes: number): Promise<Uint8Array> {
  const stream = new CompressionStream("deflate");
  const writer = stream.writable.getWriter();
  const compressed = new Response(stream.readable).arrayBuffer();
  const zeros = new Uint8Array(1 << 20);
  for (let k = 0; k < megabytes; k++) await writer.write(zeros);
  await writer.close();
  return new Uint8Array(await compressed);
}

/** TIFF LZW codes for `data`: CLEAR, the codes, END (test data stays far below a full table). */
function lzwCodes(data: Uint8Array): number[] {
  const table = new Map<string, number>();
  const codes = [256];
  let next = 258;
  let current = -1;
  for (const byte of data) {
    const known = current < 0 ? byte : table.get(`${current},${byte}`);
    if (known !== undefined) {
      current = known;
      continue;
    }
    codes.push(current);
    table.set(`${current},${byte}`, next++);
    current = byte;
  }
  if (current >= 0) codes.push(current);
  return [...codes, 257];
}

/**
 * Packs LZW codes most significant bit first, 9 bits wide at first and one bit wider each time
 * the decoder's table is one entry short of the next power of two (TIFF's "early change").
 */
function packLzw(codes: number[]): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let held = 0;
  let width = 9;
  let next = 258;
  let afterClear = true;
  for (const code of codes) {
    acc = (acc << width) | code;
    held += width;
    while (held >= 8) out.push((acc >>> (held -= 8)) & 0xff);
    acc &= (1 << held) - 1;
    if (code === 256) [width, next, afterClear] = [9, 258, true];
    else if (code !== 257) {
      // The decoder adds an entry for every code but the first after a CLEAR.
      if (!afterClear && next < 4096) {
        next++;
        if (next + 1 === 1 << width && width < 12) width++;
      }
      afterClear = false;
    }
  }
  if (held > 0) out.push((acc << (8 - held)) & 0xff);
  return new Uint8Array(out);
}

/** PackBits: runs of 3 or more equal bytes as runs, everything else as literals (at most 128 each). */
function packBits(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  let literal: number[] = [];
  const flush = () => literal.length > 0 && (out.push(literal.length - 1, ...literal), (literal = []));
  for (let i = 0; i < data.length; ) {
    let run = 1;
    while (i + run < data.length && run < 128 && data[i + run] === data[i]) run++;
    if (run >= 3) {
      flush();
      out.push((1 - run) & 0xff, data[i]!);
      i += run;
    } else {
      literal.push(data[i++]!);
      if (literal.length === 128) flush();
    }
  }
  flush();
  return new Uint8Array(out);
}

const source = gradient(20, 10);
const rgb = rgbBytes(source);

describe("Deflate, LZW and PackBits TIFFs decode exactly", () => {
  it("Deflate in three strips with the horizontal predictor, the last strip short", async () => {
    // Predictor 2: each sample is stored as the difference from the one to its left.
    const diffed = rgb.slice();
    for (let i = diffed.length - 1; i >= 0; i--) if (i % (20 * 3) >= 3) diffed[i] = (rgb[i]! - rgb[i - 3]!) & 0xff;
    const strips = await Promise.all([[0, 4], [4, 8], [8, 10]].map(([a, b]) => zlib(rows(diffed, 20, a!, b!))));
    expect(maxDiff(source, await decode(stripTiff(20, 10, 3, 8, strips, 4, [[317, 3, [2]]])))).toBe(0);
  });

  it("a last strip stored with all RowsPerStrip rows (padding past the image) is within its bound", async () => {
    const padded = new Uint8Array(4 * 20 * 3);
    padded.set(rows(rgb, 20, 8, 10));
    const strips = await Promise.all([zlib(rows(rgb, 20, 0, 4)), zlib(rows(rgb, 20, 4, 8)), zlib(padded)]);
    expect(maxDiff(source, await decode(stripTiff(20, 10, 3, 32946, strips, 4)))).toBe(0);
  });

  it("Deflate tiles", async () => {
    // 20 x 10 in two 16 x 16 tiles, stored whole (padded past the image).
    const tiles = await Promise.all(
      [0, 16].map((x0) => {
        const tile = new Uint8Array(16 * 16 * 3);
        for (let y = 0; y < 10; y++) for (let x = x0; x < Math.min(x0 + 16, 20); x++) tile.set(rgb.subarray((y * 20 + x) * 3, (y * 20 + x) * 3 + 3), (y * 16 + x - x0) * 3);
        return zlib(tile);
      }),
    );
    const entries: Entry[] = [
      [256, 4, [20]], [257, 4, [10]], [258, 3, [8, 8, 8]], [259, 3, [8]], [262, 3, [2]], [277, 3, [3]],
      [322, 4, [16]], [323, 4, [16]], [324, 4, [blobOffset(0), blobOffset(1)]], [325, 4, tiles.map((t) => t.length)],
    ];
    expect(maxDiff(source, await decode(tiffFile([{ entries }], tiles)))).toBe(0);
  });

  it("LZW, in one strip and in three", async () => {
    expect(maxDiff(source, await decode(stripTiff(20, 10, 3, 5, [packLzw(lzwCodes(rgb))])))).toBe(0);
    const strips = [[0, 4], [4, 8], [8, 10]].map(([a, b]) => packLzw(lzwCodes(rows(rgb, 20, a!, b!))));
    expect(maxDiff(source, await decode(stripTiff(20, 10, 3, 5, strips, 4)))).toBe(0);
  });

  it("PackBits, runs and literals", async () => {
    const flat = gradient(20, 10);
    for (let i = 0; i < 20 * 5 * 4; i += 4) flat.data.set([7, 7, 7, 255], i); // the top half one grey: long runs
    expect(maxDiff(flat, await decode(stripTiff(20, 10, 3, 32773, [packBits(rgbBytes(flat))])))).toBe(0);
  });
});

describe("no TIFF chunk decompresses to more than it holds", () => {
  it("a Deflate strip that inflates to 200 MB is refused at the strip's 12,288 bytes", async () => {
    const bomb = await zerosDeflated(200);
    expect(bomb.length).toBeLessThan(300_000);
    const tiff = stripTiff(64, 64, 3, 8, [bomb]);
    // The header and layout are honest: nothing stops it before the charge.
    assertSafeToDecode(tiff, readHeader(tiff, "tiff"));
    const error = await pixelgateError(decode(tiff));
    expect(error.code).toBe("invalid_image");
    // The refusal names the strip's own size: inflation stopped there, not at 200 MB.
    expect(error.message).toContain("12288 bytes");
  });

  it("an LZW strip whose codes grow to 4 KB strings is refused as soon as it passes the strip", async () => {
    // Each code is the entry just being defined ("KwKwK"), so the strings grow by a byte per code
    // up to the full table, and then the longest one repeats: ~3,800 bytes per 12-bit code.
    const codes = [256, 0];
    for (let code = 258; code < 4096; code++) codes.push(code);
    for (let k = 0; k < 20_000; k++) codes.push(4095);
    const tiff = stripTiff(64, 64, 1, 5, [packLzw([...codes, 257])]);
    assertSafeToDecode(tiff, readHeader(tiff, "tiff"));
    const error = await pixelgateError(decode(tiff));
    expect(error.code).toBe("invalid_image");
    expect(error.message).toContain("4096 bytes");
  });

  it("PackBits runs past the strip are refused", async () => {
    // 64 x 64 grey is 4096 bytes; 100 runs of 128 are 12,800.
    const runs = new Uint8Array(200).fill(0x81);
    const error = await pixelgateError(decode(stripTiff(64, 64, 1, 32773, [runs])));
    expect(error.code).toBe("invalid_image");
  });

  it("a strip that decompresses to fewer bytes than its rows is refused, not padded with black", async () => {
    const short = await zlib(rows(rgb, 20, 0, 9));
    expect((await pixelgateError(decode(stripTiff(20, 10, 3, 8, [short])))).code).toBe("invalid_image");
    const cut = (await zlib(rgb)).subarray(0, 100);
    expect((await pixelgateError(decode(stripTiff(20, 10, 3, 8, [cut])))).code).toBe("invalid_image");
    const lzwShort = packLzw(lzwCodes(rows(rgb, 20, 0, 9)));
    expect((await pixelgateError(decode(stripTiff(20, 10, 3, 5, [lzwShort])))).code).toBe("invalid_image");
  });
});

describe("compressions without a bounded decoder are refused before the charge", () => {
  it("CCITT fax (2, 3, 4), old-style JPEG (6) and unknown codes answer unsupported_image_format", async () => {
    const strip = new Uint8Array(64).fill(0x55);
    for (const [compression, name] of [
      [2, "CCITT RLE"],
      [3, "CCITT Group 3 fax"],
      [4, "CCITT Group 4 fax"],
      [6, "old-style JPEG"],
      [50000, "compression 50000"],
    ] as const) {
      const tiff = stripTiff(16, 16, 1, compression, [strip]);
      const error = await pixelgateError(() => assertSafeToDecode(tiff, readHeader(tiff, "tiff")));
      expect(error.code).toBe("unsupported_image_format");
      expect(error.message).toContain(name);
    }
  });

  it("the compressions decoded here still pass the check", () => {
    const width = 8;
    const rgb = rgbBytes(gradient(width, 8));
    const tiff = stripTiff(width, 8, 3, 1, [rgb]);
    expect(() => assertSafeToDecode(tiff, readHeader(tiff, "tiff"))).not.toThrow();
  });
});
