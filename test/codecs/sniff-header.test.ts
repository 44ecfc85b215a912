// Recognising formats from magic bytes, and reading sizes from headers without decoding.

import { describe, expect, it } from "vitest";
import {
  assertDecodable,
  decodeImage,
  encodeImage,
  HARD_MAX_PIXELS,
  IMAGE_FORMATS,
  MAX_AVIF_PIXELS,
  MAX_DECODE_PIXELS,
  maxPixelsFor,
  readHeader,
  sniffFormat,
  type ImageFormat,
} from "../../src/codecs/index.ts";
import { animatedGif, ascii, concat, gradient, handPng, pixelgateError, rawRgbTiff, riffChunks, tiffStructure } from "./support.ts";

const W = 37;
const H = 23;

async function sample(format: ImageFormat): Promise<Uint8Array> {
  return encodeImage(gradient(W, H), format);
}

describe("sniffFormat", () => {
  it("recognises every format our encoders write", async () => {
    for (const format of IMAGE_FORMATS) expect(sniffFormat(await sample(format)), format).toBe(format);
  });

  it("recognises big-endian TIFF and GIF87a", () => {
    expect(sniffFormat(rawRgbTiff(gradient(2, 2), { bigEndian: true }))).toBe("tiff");
    expect(sniffFormat(concat(ascii("GIF87a"), new Uint8Array(20)))).toBe("gif");
  });

  it("finds AVIF by a compatible brand, not only the major one", () => {
    const ftyp = (brands: string) => {
      const body = ascii(`ftyp${brands}`);
      const box = new Uint8Array(4 + body.length);
      new DataView(box.buffer).setUint32(0, box.length);
      box.set(body, 4);
      return concat(box, new Uint8Array(16));
    };
    expect(sniffFormat(ftyp("mif1\0\0\0\0mif1avifmiaf"))).toBe("avif");
    expect(sniffFormat(ftyp("avis\0\0\0\0"))).toBe("avif");
    // HEIC shares the container but is not AVIF; the minor version is not a brand.
    expect(sniffFormat(ftyp("heic\0\0\0\0mif1heic"))).toBe("heic");
    expect(sniffFormat(ftyp("heicavifmif1"))).toBe("heic");
    expect(sniffFormat(ftyp("mif1\0\0\0\0mif1miaf"))).toBeNull();
  });

  it("says svg for SVG markup, with or without prolog", () => {
    expect(sniffFormat(ascii('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe("svg");
    expect(sniffFormat(ascii('\uFEFF  <?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg>'))).toBe("svg");
    expect(sniffFormat(ascii("<svg:svg xmlns:svg='http://www.w3.org/2000/svg'>"))).toBe("svg");
    expect(sniffFormat(ascii('<?xml version="1.0"?><html></html>'))).toBeNull();
    expect(sniffFormat(ascii("<svgfoo>"))).toBeNull();
  });

  it("returns null for anything else", () => {
    expect(sniffFormat(new Uint8Array(0))).toBeNull();
    expect(sniffFormat(ascii("hello, world"))).toBeNull();
    expect(sniffFormat(concat(ascii("RIFF"), new Uint8Array(4), ascii("WAVEfmt ")))).toBeNull();
    expect(sniffFormat(new Uint8Array([0x89, 0x50, 0x4e]))).toBeNull(); // PNG signature cut short
    // "BM" alone (a text file starting with BM) is not a bitmap.
    expect(sniffFormat(ascii("BMW owners club newsletter, issue 4"))).toBeNull();
    expect(sniffFormat(concat(ascii("II+\0"), new Uint8Array(12)))).toBeNull(); // BigTIFF
  });
});

describe("readHeader", () => {
  it("reads width and height for every format (not swapped)", async () => {
    for (const format of IMAGE_FORMATS) {
      expect(readHeader(await sample(format), format), format).toEqual({ format, width: W, height: H });
    }
  });

  it("reads TIFF in both byte orders", () => {
    for (const bigEndian of [false, true]) {
      expect(readHeader(rawRgbTiff(gradient(5, 3), { bigEndian }), "tiff")).toEqual({ format: "tiff", width: 5, height: 3 });
    }
  });

  it("reads TIFF sizes stored as SHORT as well as LONG", () => {
    const tiff = tiffStructure([[256, 3, [300]], [257, 3, [200]]], { bigEndian: true });
    expect(readHeader(tiff, "tiff")).toMatchObject({ width: 300, height: 200 });
  });

  it("reads the three WebP layouts: VP8, VP8L and VP8X", async () => {
    const lossy = await sample("webp");
    expect(riffChunks(lossy)[0]![0]).toBe("VP8 ");
    expect(readHeader(lossy, "webp")).toMatchObject({ width: W, height: H });
    // With alpha, libwebp writes VP8X + ALPH + VP8.
    const alphaImage = gradient(W, H);
    alphaImage.data[3] = 0;
    const extended = await encodeImage(alphaImage, "webp");
    expect(riffChunks(extended).map(([f]) => f)).toEqual(["VP8X", "ALPH", "VP8 "]);
    expect(readHeader(extended, "webp")).toMatchObject({ width: W, height: H });
    // VP8L by hand: signature 0x2f, then 14-bit width-1 and height-1.
    const bits = (W - 1) | ((H - 1) << 14);
    const vp8l = new Uint8Array([0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >>> 24) & 0xff]);
    const file = concat(ascii("RIFF"), new Uint8Array([0, 0, 0, 0]), ascii("WEBPVP8L"), new Uint8Array([5, 0, 0, 0]), vp8l);
    expect(readHeader(file, "webp")).toMatchObject({ width: W, height: H });
  });

  it("reads the GIF logical screen, and refuses a GIF without a first frame", () => {
    expect(readHeader(animatedGif(8, 6), "gif")).toMatchObject({ width: 8, height: 6 });
    const screenOnly = concat(ascii("GIF89a"), new Uint8Array([8, 0, 6, 0, 0, 0, 0]), new Uint8Array([0x3b]));
    return pixelgateError(() => readHeader(screenOnly, "gif")).then((e) => expect(e.code).toBe("invalid_image"));
  });

  it("refuses a GIF whose first frame has no pixels", async () => {
    const gif = animatedGif(8, 6);
    // Header 13 + 4-colour table 12 + NETSCAPE loop 19 + GCE 8 = image descriptor at 52.
    expect(gif[52]).toBe(0x2c);
    gif[57] = 0; // frame width 0
    gif[58] = 0;
    expect((await pixelgateError(() => readHeader(gif, "gif"))).code).toBe("invalid_image");
  });

  it("reads a top-down BMP (negative height) as a positive height", async () => {
    const bmp = await sample("bmp");
    const v = new DataView(bmp.buffer);
    v.setInt32(22, -H, true);
    expect(readHeader(bmp, "bmp")).toMatchObject({ width: W, height: H });
  });

  it("reads the AVIF primary item's ispe through pitm/ipma", async () => {
    const avif = await sample("avif");
    expect(readHeader(avif, "avif")).toMatchObject({ width: W, height: H });
    // With alpha the file holds two images (colour + alpha auxiliary), each with properties.
    const alphaImage = gradient(W, H);
    alphaImage.data[3] = 0;
    expect(readHeader(await encodeImage(alphaImage, "avif"), "avif")).toMatchObject({ width: W, height: H });
  });

  it("refuses bytes of another format, truncated headers and garbage with invalid_image", async () => {
    for (const format of IMAGE_FORMATS) {
      const bytes = await sample(format);
      const other = IMAGE_FORMATS[(IMAGE_FORMATS.indexOf(format) + 1) % IMAGE_FORMATS.length]!;
      for (const input of [bytes.subarray(0, 12), new Uint8Array(0), ascii("not an image at all, just text"), await sample(other)]) {
        const error = await pixelgateError(() => readHeader(input, format));
        expect(error.code, `${format} given ${input.length} bytes`).toBe("invalid_image");
      }
    }
  });

  it("refuses a JPEG whose header ends before any frame", async () => {
    const jpeg = await sample("jpeg");
    expect((await pixelgateError(() => readHeader(jpeg.subarray(0, 40), "jpeg"))).code).toBe("invalid_image");
    expect((await pixelgateError(() => readHeader(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), "jpeg"))).code).toBe("invalid_image");
  });
});

describe("assertDecodable and the pixel limit", () => {
  it("the hard maximum is 4096 x 4096 (24 MP for JPEG), and no working limit is above it", () => {
    expect(HARD_MAX_PIXELS).toBe(16_777_216);
    expect(maxPixelsFor("png")).toBeLessThanOrEqual(HARD_MAX_PIXELS);
    expect(MAX_DECODE_PIXELS).toBe(maxPixelsFor("jpeg"));
    expect(MAX_DECODE_PIXELS).toBeLessThanOrEqual(24_000_000);
  });

  it("accepts the limit itself, refuses one pixel more", async () => {
    const png = maxPixelsFor("png");
    expect(() => assertDecodable({ format: "png", width: png, height: 1 })).not.toThrow();
    expect((await pixelgateError(() => assertDecodable({ format: "png", width: png + 1, height: 1 }))).code).toBe("image_too_large");
    expect((await pixelgateError(() => assertDecodable({ format: "png", width: 4097, height: 4096 }))).code).toBe("image_too_large");
    // AVIF has its own, lower limit (its codecs need more working memory).
    expect(MAX_AVIF_PIXELS).toBeLessThan(MAX_DECODE_PIXELS);
    expect(() => assertDecodable({ format: "webp", width: MAX_AVIF_PIXELS + 1, height: 1 })).not.toThrow();
    expect((await pixelgateError(() => assertDecodable({ format: "avif", width: MAX_AVIF_PIXELS + 1, height: 1 }))).code).toBe("image_too_large");
  });

  it("zero and impossible sides are invalid_image, not image_too_large", async () => {
    for (const [width, height] of [[0, 10], [10, 0], [2 ** 31, 1], [-3, 5], [1.5, 2]]) {
      expect((await pixelgateError(() => assertDecodable({ format: "bmp", width: width!, height: height! }))).code).toBe("invalid_image");
    }
  });

  it("decodeImage refuses an oversized header before decoding anything", async () => {
    // Each file claims 5000 x 5000 (or more) but carries no valid pixel data for it: if the
    // decoder ran first it would fail with invalid_image instead.
    const png = await handPng({ width: 2, height: 2, colorType: 2, bitDepth: 8, sample: () => [1, 2, 3] });
    new DataView(png.buffer).setUint32(16, 5000);
    new DataView(png.buffer).setUint32(20, 5000);

    const jpeg = await sample("jpeg");
    const sof = jpeg.findIndex((b, i) => b === 0xff && (jpeg[i + 1] === 0xc2 || jpeg[i + 1] === 0xc0));
    new DataView(jpeg.buffer).setUint16(sof + 5, 5000);
    new DataView(jpeg.buffer).setUint16(sof + 7, 5000);

    const gif = animatedGif(8, 6);
    new DataView(gif.buffer).setUint16(6, 65535, true);
    new DataView(gif.buffer).setUint16(8, 65535, true);

    const bmp = (await sample("bmp")).subarray(0, 60);
    new DataView(bmp.buffer, bmp.byteOffset).setInt32(18, 5000, true);
    new DataView(bmp.buffer, bmp.byteOffset).setInt32(22, -5000, true);

    const tiff = tiffStructure([[256, 4, [5000]], [257, 4, [5000]]]);

    const webpBits = concat(ascii("RIFF"), new Uint8Array(4), ascii("WEBPVP8X"), new Uint8Array([10, 0, 0, 0, 0, 0, 0, 0]), new Uint8Array([0x87, 0x13, 0, 0x87, 0x13, 0]));

    const avif = await sample("avif");
    const ispe = avif.findIndex((_, i) => avif[i] === 0x69 && avif[i + 1] === 0x73 && avif[i + 2] === 0x70 && avif[i + 3] === 0x65);
    new DataView(avif.buffer).setUint32(ispe + 8, 5000);
    new DataView(avif.buffer).setUint32(ispe + 12, 5000);

    for (const [format, bytes] of [["png", png], ["jpeg", jpeg], ["gif", gif], ["bmp", bmp], ["tiff", tiff], ["webp", webpBits], ["avif", avif]] as const) {
      const header = readHeader(bytes, format);
      expect(header.width * header.height, format).toBeGreaterThan(MAX_DECODE_PIXELS);
      const error = await pixelgateError(decodeImage(bytes, header));
      expect(error.code, format).toBe("image_too_large");
    }
  });
});
