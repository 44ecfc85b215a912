// BMP layouts, the JPEG-in-TIFF container, other TIFFs through utif2, and animated WebP.

import { describe, expect, it } from "vitest";
import { assertSafeToDecode, decodeImage, encodeImage, readHeader, sniffFormat, type RasterImage } from "../../src/codecs/index.ts";
import {
  animatedWebp,
  concat,
  gradient,
  image,
  maxDiff,
  meanDiff,
  pixelAt,
  pixelgateError,
  quadrants,
  rawRgbTiff,
  riffChunks,
  tiffStructure,
  zlib,
} from "./support.ts";

// ---------------------------------------------------------------------------------------------
// BMP

/** A BMP with a 40-byte (or given) info header; `pixels` is the raw pixel array as stored. */
function bmp(options: {
  width: number;
  height: number;
  bitCount: number;
  compression?: number;
  palette?: number[][]; // [r, g, b]
  masks?: number[];
  dibSize?: number;
  pixels: number[];
}): Uint8Array {
  const dibSize = options.dibSize ?? 40;
  const masks = options.masks ? options.masks.length * 4 : 0;
  const paletteBytes = (options.palette?.length ?? 0) * 4;
  const offset = 14 + Math.max(dibSize, 40 + (dibSize === 40 ? masks : 0)) + paletteBytes;
  const out = new Uint8Array(offset + options.pixels.length);
  const v = new DataView(out.buffer);
  out.set([0x42, 0x4d]);
  v.setUint32(2, out.length, true);
  v.setUint32(10, offset, true);
  v.setUint32(14, dibSize, true);
  v.setInt32(18, options.width, true);
  v.setInt32(22, options.height, true);
  v.setUint16(26, 1, true);
  v.setUint16(28, options.bitCount, true);
  v.setUint32(30, options.compression ?? 0, true);
  options.masks?.forEach((m, i) => v.setUint32(54 + i * 4, m, true));
  options.palette?.forEach(([r, g, b], i) => out.set([b!, g!, r!, 0], offset - paletteBytes + i * 4));
  out.set(options.pixels, offset);
  return out;
}

async function decode(bytes: Uint8Array): Promise<RasterImage> {
  const format = sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error("not an image");
  return decodeImage(bytes, readHeader(bytes, format));
}

describe("BMP input", () => {
  it("24-bit bottom-up with row padding", async () => {
    // 3 x 2: rows padded to 12 bytes; stored bottom row first.
    const bottom = [0, 0, 255, 0, 255, 0, 255, 0, 0, 0, 0, 0]; // red, green, blue (BGR), pad
    const top = [255, 255, 255, 0, 0, 0, 128, 128, 128, 0, 0, 0];
    const d = await decode(bmp({ width: 3, height: 2, bitCount: 24, pixels: [...bottom, ...top] }));
    expect(pixelAt(d, 0, 1)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(d, 2, 1)).toEqual([0, 0, 255, 255]);
    expect(pixelAt(d, 0, 0)).toEqual([255, 255, 255, 255]);
    expect(pixelAt(d, 2, 0)).toEqual([128, 128, 128, 255]);
  });

  it("32-bit top-down with alpha in the fourth byte; all-zero fourth bytes mean opaque", async () => {
    const withAlpha = await decode(bmp({ width: 2, height: -1, bitCount: 32, pixels: [10, 20, 30, 0, 40, 50, 60, 200] }));
    expect(pixelAt(withAlpha, 0, 0)).toEqual([30, 20, 10, 0]);
    expect(pixelAt(withAlpha, 1, 0)).toEqual([60, 50, 40, 200]);
    const padded = await decode(bmp({ width: 2, height: -1, bitCount: 32, pixels: [10, 20, 30, 0, 40, 50, 60, 0] }));
    expect(pixelAt(padded, 1, 0)).toEqual([60, 50, 40, 255]);
  });

  it("16-bit 5-5-5 and 5-6-5 bit fields", async () => {
    // 0x7c00 = red only (5-5-5); 0x07e0 = green only (5-6-5).
    const d555 = await decode(bmp({ width: 1, height: 1, bitCount: 16, pixels: [0x00, 0x7c, 0, 0] }));
    expect(pixelAt(d555, 0, 0)).toEqual([255, 0, 0, 255]);
    const d565 = await decode(bmp({ width: 1, height: 1, bitCount: 16, compression: 3, masks: [0xf800, 0x07e0, 0x001f], pixels: [0xe0, 0x07, 0, 0] }));
    expect(pixelAt(d565, 0, 0)).toEqual([0, 255, 0, 255]);
  });

  it("a full 32-bit mask reads the whole pixel; a mask outside the pixel or not one run of bits is refused from the header", async () => {
    const full = await decode(bmp({ width: 1, height: 1, bitCount: 32, compression: 3, masks: [0xffffffff, 0, 0], pixels: [0xff, 0xff, 0xff, 0xff] }));
    expect(pixelAt(full, 0, 0)).toEqual([255, 0, 0, 255]);
    // The 70-byte BMP that froze the worker: 16 bits a pixel, a red mask of 32 set bits.
    for (const masks of [[0xffffffff, 0x07e0, 0x001f], [0x1f0000, 0x07e0, 0x001f], [0xf00f, 0x07e0, 0x001f]]) {
      const file = bmp({ width: 1, height: 1, bitCount: 16, compression: 3, masks, pixels: [0, 0, 0, 0] });
      expect((await pixelgateError(() => readHeader(file, "bmp"))).code, masks[0]!.toString(16)).toBe("invalid_image");
    }
  });

  it("1, 4 and 8-bit palettes", async () => {
    const palette = [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255]];
    const one = await decode(bmp({ width: 3, height: 1, bitCount: 1, palette: palette.slice(0, 2), pixels: [0b01000000, 0, 0, 0] }));
    expect([pixelAt(one, 0, 0), pixelAt(one, 1, 0)]).toEqual([[0, 0, 0, 255], [255, 0, 0, 255]]);
    const four = await decode(bmp({ width: 3, height: 1, bitCount: 4, palette, pixels: [0x23, 0x10, 0, 0] }));
    expect([pixelAt(four, 0, 0), pixelAt(four, 1, 0), pixelAt(four, 2, 0)]).toEqual([[0, 255, 0, 255], [0, 0, 255, 255], [255, 0, 0, 255]]);
    const eight = await decode(bmp({ width: 2, height: 1, bitCount: 8, palette, pixels: [3, 2, 0, 0] }));
    expect(pixelAt(eight, 0, 0)).toEqual([0, 0, 255, 255]);
  });

  it("RLE8: runs, absolute runs, end of line and end of bitmap", async () => {
    const palette = [[0, 0, 0], [255, 0, 0], [0, 255, 0]];
    // 4 x 2 bottom-up. Bottom row: 4 x index 1. Top row: absolute run [2, 1, 2] then 1 x 0.
    const pixels = [4, 1, 0, 0, 0, 3, 2, 1, 2, 0, 1, 0, 0, 1];
    const d = await decode(bmp({ width: 4, height: 2, bitCount: 8, compression: 1, palette, pixels }));
    expect(pixelAt(d, 3, 1)).toEqual([255, 0, 0, 255]);
    expect([0, 1, 2, 3].map((x) => pixelAt(d, x, 0)[1])).toEqual([255, 0, 255, 0]);
  });

  it("structural failures are invalid_image", async () => {
    const ok = bmp({ width: 2, height: 2, bitCount: 24, pixels: new Array(16).fill(9) });
    const header = readHeader(ok, "bmp");
    expect((await pixelgateError(decodeImage(ok.subarray(0, ok.length - 5), header))).code).toBe("invalid_image");
    const badDepth = ok.slice();
    badDepth[28] = 7;
    expect((await pixelgateError(() => readHeader(badDepth, "bmp"))).code).toBe("invalid_image");
    const badCompression = ok.slice();
    badCompression[30] = 4; // BI_JPEG
    expect((await pixelgateError(() => readHeader(badCompression, "bmp"))).code).toBe("invalid_image");
    const rleRunsOff = bmp({ width: 4, height: 2, bitCount: 8, compression: 1, palette: [[0, 0, 0]], pixels: [4, 0, 0] });
    expect((await pixelgateError(decodeImage(rleRunsOff, readHeader(rleRunsOff, "bmp")))).code).toBe("invalid_image");
  });
});

describe("BMP output", () => {
  it("is 24-bit BI_RGB bottom-up with a 40-byte header", async () => {
    const out = await encodeImage(quadrants(5, 3), "bmp");
    const v = new DataView(out.buffer);
    expect([v.getUint32(14, true), v.getInt32(22, true), v.getUint16(28, true), v.getUint32(30, true)]).toEqual([40, 3, 24, 0]);
    expect(out.length).toBe(54 + 16 * 3); // 5 * 3 = 15 bytes padded to 16 per row
    expect(v.getUint32(2, true)).toBe(out.length);
  });
});

// ---------------------------------------------------------------------------------------------
// TIFF

function tiffTags(tiff: Uint8Array): Map<number, number[]> {
  const v = new DataView(tiff.buffer, tiff.byteOffset);
  const ifd = v.getUint32(4, true);
  const tags = new Map<number, number[]>();
  for (let i = 0; i < v.getUint16(ifd, true); i++) {
    const e = ifd + 2 + i * 12;
    const type = v.getUint16(e + 2, true);
    const count = v.getUint32(e + 4, true);
    const size = ({ 3: 2, 4: 4, 5: 8 } as Record<number, number>)[type]! * count;
    const at = size <= 4 ? e + 8 : v.getUint32(e + 8, true);
    const values = [];
    for (let k = 0; k < (type === 5 ? count * 2 : count); k++) values.push(type === 3 ? v.getUint16(at + k * 2, true) : v.getUint32(at + k * 4, true));
    tags.set(v.getUint16(e, true), values);
  }
  return tags;
}

describe("TIFF output: baseline JPEG in a minimal container", () => {
  it("has the tags libtiff needs, and the JPEG strip matches them", async () => {
    const out = await encodeImage(gradient(50, 30), "tiff");
    const tags = tiffTags(out);
    expect(tags.get(259)).toEqual([7]); // JPEG
    expect(tags.get(262)).toEqual([6]); // YCbCr
    expect(tags.get(530)).toEqual([2, 2]); // 4:2:0
    expect(tags.get(277)).toEqual([3]);
    expect(tags.get(258)).toEqual([8, 8, 8]);
    expect(tags.get(278)).toEqual([30]); // one strip
    expect(tags.get(532)).toEqual([0, 1, 255, 1, 128, 1, 255, 1, 128, 1, 255, 1]);
    const [offset] = tags.get(273)!;
    const [length] = tags.get(279)!;
    expect(offset! + length!).toBe(out.length);
    const strip = out.subarray(offset, offset! + length!);
    expect([strip[0], strip[1], strip.at(-2), strip.at(-1)]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
    // SOF0 (baseline), luma sampled 2x2 and chroma 1x1: what YCbCrSubSampling 2,2 promises.
    const sof = strip.findIndex((b, i) => b === 0xff && strip[i + 1]! >= 0xc0 && strip[i + 1]! <= 0xc2);
    expect(strip[sof + 1]).toBe(0xc0);
    expect([strip[sof + 11], strip[sof + 14], strip[sof + 17]]).toEqual([0x22, 0x11, 0x11]);
    // No JFIF APP0 inside TIFF.
    expect(strip[2] === 0xff && strip[3] === 0xe0).toBe(false);
  });

  it("a multi-strip JPEG TIFF with shared JPEGTables decodes strip by strip", async () => {
    // Two of our own strips (same quality, so identical quantization tables). The DQT segments
    // move into JPEGTables and out of the strips: abbreviated streams, as libtiff writes them.
    const top = await encodeImage(image(16, 8, () => [200, 30, 30, 255]), "tiff");
    const bottom = await encodeImage(image(16, 8, () => [30, 30, 200, 255]), "tiff");
    const stripOf = (t: Uint8Array) => {
      const tags = tiffTags(t);
      return t.subarray(tags.get(273)![0]!, tags.get(273)![0]! + tags.get(279)![0]!);
    };
    const split = (jpeg: Uint8Array) => {
      const dqt: Uint8Array[] = [];
      const rest: Uint8Array[] = [jpeg.subarray(0, 2)];
      let at = 2;
      while (jpeg[at + 1] !== 0xda) {
        const end = at + 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!);
        (jpeg[at + 1] === 0xdb ? dqt : rest).push(jpeg.subarray(at, end));
        at = end;
      }
      rest.push(jpeg.subarray(at));
      return { dqt: concat(...dqt), strip: concat(...rest) };
    };
    const a = split(stripOf(top));
    const b = split(stripOf(bottom));
    expect(a.dqt).toEqual(b.dqt);
    expect(a.dqt.length).toBeGreaterThan(60);
    const tables = concat(new Uint8Array([0xff, 0xd8]), a.dqt, new Uint8Array([0xff, 0xd9]));
    const tiff = tiffStructure([
      [256, 4, [16]], [257, 4, [16]], [258, 3, [8, 8, 8]], [259, 3, [7]], [262, 3, [6]], [273, 4, [0, 0]],
      [277, 3, [3]], [278, 4, [8]], [279, 4, [a.strip.length, b.strip.length]], [347, 4, [0]], [530, 3, [2, 2]],
    ]).slice();
    // Point the strip offsets and JPEGTables (as UNDEFINED bytes) at data appended after the IFD.
    const file = concat(tiff, a.strip, b.strip, tables);
    const v = new DataView(file.buffer);
    for (let i = 0; i < v.getUint16(8, true); i++) {
      const e = 10 + i * 12;
      const tag = v.getUint16(e, true);
      if (tag === 273) {
        const at = v.getUint32(e + 8, true);
        v.setUint32(at, tiff.length, true);
        v.setUint32(at + 4, tiff.length + a.strip.length, true);
      }
      if (tag === 347) {
        v.setUint16(e + 2, 7, true);
        v.setUint32(e + 4, tables.length, true);
        v.setUint32(e + 8, tiff.length + a.strip.length + b.strip.length, true);
      }
    }
    const d = await decodeImage(file, readHeader(file, "tiff"));
    expect(pixelAt(d, 8, 2)[0]).toBeGreaterThan(180);
    expect(pixelAt(d, 8, 2)[2]).toBeLessThan(60);
    expect(pixelAt(d, 8, 13)[2]).toBeGreaterThan(180);
    expect(pixelAt(d, 8, 13)[0]).toBeLessThan(60);
  });

  it("uncompressed and Deflate TIFFs decode through utif2", async () => {
    const source = gradient(20, 10);
    expect(maxDiff(source, await decode(rawRgbTiff(source)))).toBe(0);

    const rgb = new Uint8Array(20 * 10 * 3);
    for (let i = 0; i < 200; i++) rgb.set(source.data.subarray(i * 4, i * 4 + 3), i * 3);
    const compressed = await zlib(rgb);
    const deflated = tiffStructure(
      [[256, 4, [20]], [257, 4, [10]], [258, 3, [8, 8, 8]], [259, 3, [8]], [262, 3, [2]], [273, 4, [0]], [277, 3, [3]], [278, 4, [10]], [279, 4, [compressed.length]]],
      { tail: compressed, tailTag: 273 },
    );
    expect(maxDiff(source, await decode(deflated))).toBe(0);
  });

  it("refuses a TIFF whose directory chain loops, instead of spinning", async () => {
    const tiff = rawRgbTiff(gradient(4, 4)).slice();
    const v = new DataView(tiff.buffer);
    // Point IFD0's "next IFD" back at itself (uncompressed: the utif2 path).
    v.setUint32(8 + 2 + v.getUint16(8, true) * 12, 8, true);
    const error = await pixelgateError(decodeImage(tiff, readHeader(tiff, "tiff")));
    expect(error.code).toBe("invalid_image");
  });

  it("round-trips an opaque picture through our TIFF within JPEG tolerance", async () => {
    const source = gradient(99, 61); // odd sizes: partial MCUs at the edges
    const out = await encodeImage(source, "tiff");
    expect(meanDiff(source, await decode(out))).toBeLessThan(3);
  });
});

// ---------------------------------------------------------------------------------------------
// WebP animation

describe("animated WebP input", () => {
  it("decodes the first frame at its offset on a transparent canvas", async () => {
    const red = await encodeImage(image(6, 4, () => [255, 0, 0, 255]), "webp", { quality: 100 });
    const blue = await encodeImage(image(10, 8, () => [0, 0, 255, 255]), "webp", { quality: 100 });
    const anim = animatedWebp({ width: 10, height: 8 }, [
      { webp: red, x: 2, y: 2, width: 6, height: 4 },
      { webp: blue, x: 0, y: 0, width: 10, height: 8 },
    ]);
    expect(riffChunks(anim).filter(([f]) => f === "ANMF")).toHaveLength(2);
    const header = readHeader(anim, "webp");
    expect(header).toMatchObject({ width: 10, height: 8 });
    const d = await decodeImage(anim, header);
    expect(pixelAt(d, 0, 0)[3]).toBe(0); // outside the first frame: transparent, not blue
    const inside = pixelAt(d, 4, 3);
    expect(inside[0]).toBeGreaterThan(230);
    expect(inside[2]).toBeLessThan(30);
    expect(pixelAt(d, 9, 7)[3]).toBe(0);
  });

  it("a first frame with alpha keeps it", async () => {
    const half = await encodeImage(image(4, 4, (x) => [0, 255, 0, x < 2 ? 0 : 255]), "webp");
    const anim = animatedWebp({ width: 4, height: 4 }, [{ webp: half, x: 0, y: 0, width: 4, height: 4 }]);
    const d = await decodeImage(anim, readHeader(anim, "webp"));
    expect(pixelAt(d, 0, 1)[3]).toBe(0);
    expect(pixelAt(d, 3, 1)[3]).toBe(255);
  });

  it("a first frame placed off its canvas is refused before the charge", async () => {
    const red = await encodeImage(image(6, 4, () => [255, 0, 0, 255]), "webp");
    const anim = animatedWebp({ width: 6, height: 4 }, [{ webp: red, x: 8, y: 0, width: 6, height: 4 }]);
    const header = readHeader(anim, "webp");
    expect((await pixelgateError(() => assertSafeToDecode(anim, header))).code).toBe("invalid_image");
  });

  it("webp to webp writes one still frame", async () => {
    const red = await encodeImage(image(6, 4, () => [255, 0, 0, 255]), "webp");
    const anim = animatedWebp({ width: 6, height: 4 }, [{ webp: red, x: 0, y: 0, width: 6, height: 4 }, { webp: red, x: 0, y: 0, width: 6, height: 4 }]);
    const out = await encodeImage(await decodeImage(anim, readHeader(anim, "webp")), "webp");
    const fourccs = riffChunks(out).map(([f]) => f);
    expect(fourccs).not.toContain("ANMF");
    expect(fourccs).not.toContain("ANIM");
  });
});
