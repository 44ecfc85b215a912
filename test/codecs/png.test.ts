// PNG: the writer encodeImage uses (native/png_sink.c: layout choice, deflate level, row
// filters, quality = palette size) and our decoder (every colour type, bit depth, tRNS,
// interlacing, broken streams).

import { constants, deflateSync, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, paletteSizeForQuality, readHeader } from "../../src/codecs/index.ts";
import {
  concat,
  distinctColors,
  gradient,
  gradientWithAlpha,
  handPng,
  image,
  maxDiff,
  meanDiff,
  pixelAt,
  pixelgateError,
  pngChunk,
  pngChunkTypes,
  pngChunks,
  pngLayout,
  pngPaletteSize,
  quadrants,
  zlib,
} from "./support.ts";

/** A gradient with deterministic grain: like a photo, it does not filter down to nothing. */
function photoLike(width: number, height: number) {
  const img = gradient(width, height);
  let seed = 7;
  for (let i = 0; i < img.data.length; i++) {
    if (i % 4 === 3) continue;
    seed = (seed * 1103515245 + 12345) >>> 0;
    img.data[i] = img.data[i]! + ((seed >>> 28) - 8);
  }
  return img;
}

async function decodePng(bytes: Uint8Array) {
  return decodeImage(bytes, readHeader(bytes, "png"));
}

describe("PNG lossless layout (quality 100, the convert setting)", () => {
  it("opaque continuous tone -> RGB, exact", async () => {
    const source = gradient(70, 50);
    const png = await encodeImage(source, "png");
    expect(pngLayout(png)).toEqual({ colorType: 2, bitDepth: 8 });
    expect(maxDiff(source, await decodePng(png))).toBe(0);
  });

  it("with alpha -> RGBA, exact", async () => {
    const source = gradientWithAlpha(70, 50);
    const png = await encodeImage(source, "png");
    expect(pngLayout(png)).toEqual({ colorType: 6, bitDepth: 8 });
    expect(maxDiff(source, await decodePng(png))).toBe(0);
  });

  it("grey -> 8-bit grey; grey with alpha -> grey+alpha", async () => {
    const grey = image(300, 20, (x) => [x % 256, x % 256, x % 256, 255]);
    const png = await encodeImage(grey, "png");
    expect(pngLayout(png)).toEqual({ colorType: 0, bitDepth: 8 });
    expect(maxDiff(grey, await decodePng(png))).toBe(0);

    const greyAlpha = image(300, 20, (x, y) => [x % 256, x % 256, x % 256, (y * 13) % 256]);
    const png2 = await encodeImage(greyAlpha, "png");
    expect(pngLayout(png2)).toEqual({ colorType: 4, bitDepth: 8 });
    // Fully transparent pixels may lose their stored colour; everything else is exact.
    expect(maxDiff(greyAlpha, await decodePng(png2), (_, y) => (y * 13) % 256 !== 0)).toBe(0);
  });

  it("few colours -> bit-packed palette, exact, with tRNS for transparency", async () => {
    const four = quadrants(33, 17); // odd width: packing must pad rows
    const png = await encodeImage(four, "png");
    expect(pngLayout(png)).toEqual({ colorType: 3, bitDepth: 2 });
    expect(pngPaletteSize(png)).toBe(4);
    expect(maxDiff(four, await decodePng(png))).toBe(0);

    const two = image(9, 3, (x) => (x % 2 ? [0, 0, 0, 0] : [200, 100, 50, 255]));
    const png2 = await encodeImage(two, "png");
    expect(pngLayout(png2)).toEqual({ colorType: 3, bitDepth: 1 });
    expect([...new Set(pngChunkTypes(png2))]).toEqual(["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]);
    expect(maxDiff(two, await decodePng(png2))).toBe(0);
  });

  it("writes only IHDR, PLTE, tRNS, IDAT and IEND", async () => {
    for (const source of [gradient(40, 40), gradientWithAlpha(40, 40), quadrants(8, 8)]) {
      const types = new Set(pngChunkTypes(await encodeImage(source, "png")));
      for (const t of types) expect(["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]).toContain(t);
    }
  });
});

/** The zlib stream of a PNG: its IDAT chunks' data, joined. */
function idatStream(png: Uint8Array): Uint8Array {
  return concat(...pngChunks(png).filter((chunk) => chunk.type === "IDAT").map((chunk) => chunk.data));
}

describe("PNG deflate level per part (native/png_deflate.c)", () => {
  // The zlib header's FLEVEL field, from the first part's level: 1 for libdeflate's 2 to 5, 2
  // for 6, 3 for 7 and up.
  const flevel = (png: Uint8Array) => idatStream(png)[1]! >> 6;

  it("rows that filter to mostly zeros start at level 9, photographic rows at 2, a photo's palette at 6", async () => {
    const flat = gradient(300, 200);
    const flatPng = await encodeImage(flat, "png");
    expect(pngLayout(flatPng).colorType).toBe(2);
    expect(flevel(flatPng)).toBe(3);
    expect(maxDiff(flat, await decodePng(flatPng))).toBe(0);

    const photo = photoLike(300, 200);
    const photoPng = await encodeImage(photo, "png");
    expect(flevel(photoPng)).toBe(1);
    expect(maxDiff(photo, await decodePng(photoPng))).toBe(0);

    const palette = await encodeImage(photo, "png", { quality: 70 });
    expect(pngLayout(palette).colorType).toBe(3);
    expect(flevel(palette)).toBe(2);
  });

  it("a flat image comes out smaller than zlib's level 3 would make the same rows", async () => {
    const stream = idatStream(await encodeImage(gradient(400, 300), "png"));
    const rows = inflateSync(stream);
    const atLevel3 = deflateSync(rows, { level: 3, strategy: constants.Z_FILTERED });
    expect(stream.length).toBeLessThan(atLevel3.length * 0.9);
  });

  it("each row takes the filter that turns it into zeros (native/png_filter.c)", async () => {
    // Rows of noise where every other row repeats the one above: Up (2) turns those into zeros.
    let seed = 3;
    const noise = image(200, 40, (x, y) => {
      if (y % 2 === 1) return [0, 0, 0, 0]; // filled below
      seed = (seed * 1103515245 + 12345) >>> 0;
      return [seed >>> 24, (seed >>> 16) & 255, (seed >>> 8) & 255, 255];
    });
    for (let y = 1; y < 40; y += 2) noise.data.copyWithin(y * 800, (y - 1) * 800, y * 800);
    const png = await encodeImage(noise, "png");
    const rows = inflateSync(idatStream(png));
    const stride = 1 + 200 * 3;
    for (let y = 1; y < 40; y += 2) {
      expect(rows[y * stride], `row ${y}`).toBe(2);
      expect(rows.subarray(y * stride + 1, (y + 1) * stride).every((v) => v === 0), `row ${y}`).toBe(true);
    }
    expect(maxDiff(noise, await decodePng(png))).toBe(0);
  });
});

describe("PNG quality below 100 (compress): palette quantization", () => {
  it("every 10 quality points double the palette, between 2 and 256", () => {
    expect([100, 99, 80, 70, 60, 50, 30, 10, 1].map((q) => (q === 100 ? "lossless" : paletteSizeForQuality(q)))).toEqual([
      "lossless", 256, 256, 128, 64, 32, 8, 2, 2,
    ]);
  });

  it("lower quality: fewer colours and a smaller file than lossless", async () => {
    const source = photoLike(160, 120);
    const lossless = await encodeImage(source, "png", { quality: 100 });
    let previous = lossless.length;
    for (const quality of [90, 70, 40]) {
      const png = await encodeImage(source, "png", { quality });
      expect(pngLayout(png).colorType, `q${quality}`).toBe(3);
      expect(pngPaletteSize(png)).toBeLessThanOrEqual(paletteSizeForQuality(quality));
      expect(png.length, `q${quality}`).toBeLessThan(previous);
      previous = png.length;
      const decoded = await decodePng(png);
      expect(distinctColors(decoded)).toBeLessThanOrEqual(paletteSizeForQuality(quality));
      // The grain itself (+-8) cannot survive a palette; the picture must.
      expect(meanDiff(source, decoded), `q${quality}`).toBeLessThan({ 90: 5, 70: 7, 40: 16 }[quality]!);
    }
  });

  it("never bigger than lossless: a smooth gradient that filters well stays lossless", async () => {
    const source = gradient(160, 120);
    const lossless = await encodeImage(source, "png");
    const compressed = await encodeImage(source, "png", { quality: 90 });
    expect(compressed.length).toBeLessThanOrEqual(lossless.length);
    expect(compressed).toEqual(lossless);
  });

  it("quantization keeps soft alpha", async () => {
    const source = photoLike(80, 40);
    const alpha = gradientWithAlpha(80, 40);
    for (let i = 3; i < source.data.length; i += 4) source.data[i] = alpha.data[i]!;
    const png = await encodeImage(source, "png", { quality: 70 });
    expect(pngChunkTypes(png)).toContain("tRNS");
    const decoded = await decodePng(png);
    expect(pixelAt(decoded, 2, 2)[3]).toBe(0);
    expect(Math.abs(pixelAt(decoded, 45, 20)[3]! - 128)).toBeLessThanOrEqual(8);
    expect(pixelAt(decoded, 79, 20)[3]).toBe(255);
  });

  it("an image that already fits the palette stays exact at any quality", async () => {
    const source = quadrants(30, 30);
    const decoded = await decodePng(await encodeImage(source, "png", { quality: 25 }));
    expect(maxDiff(source, decoded)).toBe(0);
  });
});

describe("PNG decoding of layouts our encoder never writes", () => {
  it("16-bit RGBA takes the high byte", async () => {
    const png = await handPng({ width: 3, height: 2, colorType: 6, bitDepth: 16, sample: (x, y) => [x * 0x1234, y * 0x8080, 0xffff, 0x8000] });
    const d = await decodePng(png);
    expect(pixelAt(d, 2, 1)).toEqual([0x24, 0x80, 0xff, 0x80]);
  });

  it("1-bit grey scales to 0/255 and 4-bit grey to 17ths", async () => {
    const one = await decodePng(await handPng({ width: 10, height: 1, colorType: 0, bitDepth: 1, sample: (x) => [x % 2] }));
    expect([pixelAt(one, 0, 0), pixelAt(one, 9, 0)]).toEqual([[0, 0, 0, 255], [255, 255, 255, 255]]);
    const four = await decodePng(await handPng({ width: 3, height: 1, colorType: 0, bitDepth: 4, sample: (x) => [x * 7] }));
    expect(pixelAt(four, 2, 0)).toEqual([238, 238, 238, 255]);
  });

  it("tRNS colour key makes one RGB value transparent; 16-bit grey key compares all 16 bits", async () => {
    const trns = new Uint8Array([0, 10, 0, 20, 0, 30]);
    const rgb = await decodePng(
      await handPng({ width: 2, height: 1, colorType: 2, bitDepth: 8, sample: (x) => (x ? [10, 20, 30] : [10, 20, 31]), chunks: [pngChunk("tRNS", trns)] }),
    );
    expect(pixelAt(rgb, 0, 0)[3]).toBe(255);
    expect(pixelAt(rgb, 1, 0)[3]).toBe(0);
    const grey = await decodePng(
      await handPng({ width: 2, height: 1, colorType: 0, bitDepth: 16, sample: (x) => [x ? 0x1234 : 0x1299], chunks: [pngChunk("tRNS", new Uint8Array([0x12, 0x34]))] }),
    );
    expect([pixelAt(grey, 0, 0)[3], pixelAt(grey, 1, 0)[3]]).toEqual([255, 0]);
  });

  it("palette with partial tRNS, and an index past the palette as opaque black", async () => {
    const plte = pngChunk("PLTE", new Uint8Array([255, 0, 0, 0, 255, 0]));
    const trns = pngChunk("tRNS", new Uint8Array([100]));
    const d = await decodePng(await handPng({ width: 3, height: 1, colorType: 3, bitDepth: 2, sample: (x) => [x], chunks: [plte, trns] }));
    expect(pixelAt(d, 0, 0)).toEqual([255, 0, 0, 100]);
    expect(pixelAt(d, 1, 0)).toEqual([0, 255, 0, 255]);
    expect(pixelAt(d, 2, 0)).toEqual([0, 0, 0, 255]);
  });

  it("Adam7 interlaced images land every pass in place", async () => {
    const sample = (x: number, y: number) => [x * 20, y * 20, (x * y) % 256, 255 - x];
    for (const [width, height] of [[13, 9], [1, 1], [3, 10]] as const) {
      const interlaced = await decodePng(await handPng({ width, height, colorType: 6, bitDepth: 8, interlaced: true, sample }));
      const plain = await decodePng(await handPng({ width, height, colorType: 6, bitDepth: 8, sample }));
      expect(interlaced.data, `${width}x${height}`).toEqual(plain.data);
      expect(pixelAt(interlaced, width - 1, height - 1)).toEqual(sample(width - 1, height - 1));
    }
  });

  it("Adam7 interlaced 8-bit RGB lands every pass in place, opaque", async () => {
    const sample = (x: number, y: number) => [x * 20, y * 20, (x * y) % 256];
    for (const [width, height] of [[13, 9], [1, 1], [3, 10]] as const) {
      const interlaced = await decodePng(await handPng({ width, height, colorType: 2, bitDepth: 8, interlaced: true, sample }));
      const plain = await decodePng(await handPng({ width, height, colorType: 2, bitDepth: 8, sample }));
      expect(interlaced.data, `${width}x${height}`).toEqual(plain.data);
      expect(pixelAt(interlaced, width - 1, height - 1)).toEqual([...sample(width - 1, height - 1), 255]);
      expect(pixelAt(plain, 0, height - 1)).toEqual([...sample(0, height - 1), 255]);
    }
  });

  it("image data split over several IDAT chunks", async () => {
    const source = gradient(50, 30);
    const png = await encodeImage(source, "png");
    // Re-split the one zlib stream into 7-byte IDAT chunks.
    const types = pngChunkTypes(png);
    expect(types.filter((t) => t === "IDAT").length).toBeGreaterThanOrEqual(1);
    const v = new DataView(png.buffer);
    const parts: Uint8Array[] = [];
    let at = 8;
    let ihdr: Uint8Array | null = null;
    while (at < png.length) {
      const length = v.getUint32(at);
      const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
      if (type === "IHDR") ihdr = png.subarray(at, at + 12 + length);
      if (type === "IDAT") parts.push(png.subarray(at + 8, at + 8 + length));
      at += 12 + length;
    }
    const stream = concat(...parts);
    const idats = [];
    for (let i = 0; i < stream.length; i += 7) idats.push(pngChunk("IDAT", stream.subarray(i, i + 7)));
    const resplit = concat(png.subarray(0, 8), ihdr!, ...idats, pngChunk("IEND", new Uint8Array(0)));
    expect(maxDiff(source, await decodePng(resplit))).toBe(0);
  });
});

describe("PNG decompression bombs", () => {
  it("a 1x1 image whose IDAT inflates to 64 MB yields its pixel and stops inflating there", async () => {
    const inflated = new Uint8Array(64 * 1024 * 1024); // one filter byte + RGB, then zeros
    inflated.set([0, 10, 20, 30]);
    const idat = await zlib(inflated);
    expect(idat.length).toBeLessThan(100_000);
    const ihdr = new Uint8Array(13);
    new DataView(ihdr.buffer).setUint32(0, 1);
    new DataView(ihdr.buffer).setUint32(4, 1);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const png = concat(signature, pngChunk("IHDR", ihdr), pngChunk("IDAT", idat), pngChunk("IEND", new Uint8Array()));
    expect(pixelAt(await decodePng(png), 0, 0)).toEqual([10, 20, 30, 255]);
  });
});

describe("PNG failures", () => {
  it("missing IEND, corrupt zlib data and short image data are invalid_image", async () => {
    const png = await encodeImage(gradient(40, 40), "png");
    const header = readHeader(png, "png");
    expect((await pixelgateError(decodeImage(png.subarray(0, png.length - 12), header))).code).toBe("invalid_image");

    const corrupt = png.slice();
    const idat = pngChunkTypes(png).indexOf("IDAT");
    expect(idat).toBeGreaterThan(0);
    // Flip bytes in the middle of the compressed data (CRC is not checked; zlib's Adler is).
    for (let i = 100; i < 140; i++) corrupt[i] = corrupt[i]! ^ 0x5a;
    expect((await pixelgateError(decodeImage(corrupt, header))).code).toBe("invalid_image");

    // A complete, valid zlib stream holding only half the rows.
    const half = await handPng({ width: 4, height: 4, colorType: 2, bitDepth: 8, sample: () => [1, 2, 3] });
    const ihdrEnd = 33;
    const short = concat(half.subarray(0, ihdrEnd), pngChunk("IDAT", await zlib(new Uint8Array(2 * 13))), pngChunk("IEND", new Uint8Array(0)));
    expect((await pixelgateError(decodeImage(short, readHeader(short, "png")))).code).toBe("invalid_image");
  });

  it("an unknown row filter and a palette image without PLTE are invalid_image", async () => {
    const badFilter = concat(
      (await handPng({ width: 1, height: 1, colorType: 0, bitDepth: 8, sample: () => [5] })).subarray(0, 33),
      pngChunk("IDAT", await zlib(new Uint8Array([9, 5]))),
      pngChunk("IEND", new Uint8Array(0)),
    );
    expect((await pixelgateError(decodeImage(badFilter, readHeader(badFilter, "png")))).code).toBe("invalid_image");
    const noPalette = await handPng({ width: 2, height: 2, colorType: 3, bitDepth: 8, sample: () => [0] });
    expect((await pixelgateError(decodeImage(noPalette, readHeader(noPalette, "png")))).code).toBe("invalid_image");
  });

  it("an impossible colour type / bit depth is refused at the header", async () => {
    const png = await handPng({ width: 1, height: 1, colorType: 2, bitDepth: 8, sample: () => [1, 2, 3] });
    png[24] = 4; // RGB at 4 bits does not exist
    expect((await pixelgateError(() => readHeader(png, "png"))).code).toBe("invalid_image");
  });
});
