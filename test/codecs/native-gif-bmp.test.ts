// GIF and BMP as targets of our own WASM build (native/gif_sink.c, native/bmp_sink.c via
// native.ts transcodeToPalette): JPEG and PNG files written a row at a time, checked against the
// general path (decode to a raster, then the same writers reading the raster's rows:
// encodeImage) byte for byte where both see the same pixels in the same order, and by decoding
// the result otherwise.

import { describe, expect, it } from "vitest";
import { GifReader } from "omggif";
import { decodeImage, encodeImage, nativeRoute, readHeader, recodeImage, type RasterImage } from "../../src/codecs/index.ts";
import { encodeBaselineJpeg } from "../../src/codecs/jpeg.ts";
import { maxRecodePixels } from "../../src/codecs/limits.ts";
import { transcodeToPalette } from "../../src/codecs/native.ts";
import { ROUTE_COSTS, termsOf } from "../../src/codecs/recode-cost.ts";
import { routeFor } from "../../src/codecs/recode-route.ts";
import { readRouteFacts } from "../../src/codecs/route-table.ts";
import type { Orientation } from "../../src/codecs/orientation.ts";
import {
  EXIF_MARKER,
  exifApp1,
  gradient,
  gradientWithAlpha,
  image,
  maxDiff,
  pixelAt,
  pixelgateError,
  pngWithExifChunk,
  quadrants,
  quadrantScene,
  webpKinds,
  webpWithExif,
  withJpegSegments,
} from "./support.ts";

/** Smooth tone plus flat areas: far more than 256 colours, so the palette is a median cut. */
const scene = quadrantScene;

/** Columns of alpha either side of GIF's threshold (128) over 45 colours: an exact palette. */
function alphaSteps(width: number, height: number): RasterImage {
  const alphas = [0, 1, 60, 127, 128, 129, 200, 254, 255];
  return image(width, height, (x, y) => [(y % 5) * 51, 200 - (x % 9) * 20, ((x % 9) * (y % 5) * 13) & 255, alphas[x % alphas.length]!]);
}

async function decoded(bytes: Uint8Array, format: "gif" | "bmp" | "png" | "jpeg"): Promise<RasterImage> {
  return decodeImage(bytes, readHeader(bytes, format));
}

/** The general path's file: the TypeScript decoder's raster through encodeImage. */
async function general(bytes: Uint8Array, input: "png" | "jpeg", target: "gif" | "bmp"): Promise<Uint8Array> {
  return encodeImage(await decoded(bytes, input), target);
}

const sources: [string, RasterImage][] = [
  ["a photo-like scene (median cut)", scene(97, 61)],
  ["a few flat colours (exact palette)", quadrants(40, 30)],
  ["alpha either side of 128", alphaSteps(45, 33)],
  ["transparent quarter and a half-transparent band", gradientWithAlpha(70, 50)],
];

describe("GIF and BMP from PNG", () => {
  for (const [name, source] of sources) {
    for (const target of ["gif", "bmp"] as const) {
      it(`${name} to ${target}: the bytes its decoded raster gives`, async () => {
        const png = await encodeImage(source, "png");
        const out = transcodeToPalette(png, readHeader(png, "png"), "png", target)!;
        expect(out).not.toBeNull();
        const expected = await general(png, "png", target);
        expect(out.length).toBe(expected.length);
        expect(Buffer.from(out).equals(Buffer.from(expected))).toBe(true);
      });
    }
  }

  it("GIF keeps 1-bit transparency: alpha below 128 is clear, the rest opaque in its own colour", async () => {
    const source = alphaSteps(45, 33);
    const png = await encodeImage(source, "png");
    const back = await decoded(transcodeToPalette(png, readHeader(png, "png"), "png", "gif")!, "gif");
    for (const [x, y] of [[0, 3], [3, 7], [4, 7], [5, 20], [8, 30], [13, 1]] as const) {
      const [r, g, b, a] = pixelAt(source, x, y);
      expect(pixelAt(back, x, y), `pixel ${x},${y} (alpha ${a})`).toEqual(a! < 128 ? [0, 0, 0, 0] : [r, g, b, 255]);
    }
    expect(new GifReader(transcodeToPalette(png, readHeader(png, "png"), "png", "gif")!).numFrames()).toBe(1);
  });

  it("BMP composites alpha onto black, rounding (c * a + 127) / 255 to nearest", async () => {
    const source = alphaSteps(45, 33);
    const png = await encodeImage(source, "png");
    const back = await decoded(transcodeToPalette(png, readHeader(png, "png"), "png", "bmp")!, "bmp");
    for (const [x, y] of [[0, 3], [3, 7], [4, 7], [7, 20], [8, 30]] as const) {
      const [r, g, b, a] = pixelAt(source, x, y);
      const flat = (c: number) => Math.round((c * a! + 127) / 255);
      expect(pixelAt(back, x, y), `pixel ${x},${y} (alpha ${a})`).toEqual([flat(r!), flat(g!), flat(b!), 255]);
    }
  });
});

describe("GIF and BMP from JPEG", () => {
  const stored = scene(67, 41);

  it("every EXIF orientation comes out upright, with the general path's bytes", async () => {
    const jpeg = await encodeImage(stored, "jpeg", { quality: 95 });
    for (const orientation of [1, 2, 3, 4, 5, 6, 7, 8] as Orientation[]) {
      const tagged = orientation === 1 ? jpeg : withJpegSegments(jpeg, exifApp1(orientation));
      for (const target of ["gif", "bmp"] as const) {
        const out = transcodeToPalette(tagged, readHeader(tagged, "jpeg"), "jpeg", target, orientation)!;
        const back = await decoded(out, target);
        const turned = orientation >= 5;
        expect([back.width, back.height], `${target} orientation ${orientation}`).toEqual(turned ? [41, 67] : [67, 41]);
        // The palette comes from the histogram, which does not depend on the order rows are seen.
        const expected = await general(tagged, "jpeg", target);
        expect(Buffer.from(out).equals(Buffer.from(expected)), `${target} orientation ${orientation}`).toBe(true);
      }
    }
  });

  it("a grey picture: the general path's bytes", async () => {
    const grey = await encodeImage(image(50, 30, (x) => [x * 5, x * 5, x * 5, 255]), "jpeg", { quality: 90 });
    for (const target of ["gif", "bmp"] as const) {
      const out = transcodeToPalette(grey, readHeader(grey, "jpeg"), "jpeg", target)!;
      expect(Buffer.from(out).equals(Buffer.from(await general(grey, "jpeg", target))), target).toBe(true);
    }
  });

  it("few colours in a turned JPEG: the same pixels (the exact palette's order follows the file's rows)", async () => {
    const flat = await encodeImage(image(40, 30, (x, y) => (x < 20 !== y < 10 ? [0, 0, 0, 255] : [255, 255, 255, 255])), "jpeg", { quality: 100 });
    const tagged = withJpegSegments(flat, exifApp1(6));
    const out = transcodeToPalette(tagged, readHeader(tagged, "jpeg"), "jpeg", "gif", 6)!;
    const viaRaster = await general(tagged, "jpeg", "gif");
    expect(maxDiff(await decoded(out, "gif"), await decoded(viaRaster, "gif"))).toBe(0);
  });

  it("answers invalid_image for data cut short or a size other than the header's", async () => {
    const jpeg = await encodeImage(scene(64, 48), "jpeg");
    for (const target of ["gif", "bmp"] as const) {
      expect((await pixelgateError(() => transcodeToPalette(jpeg.subarray(0, 100), { width: 64, height: 48 }, "jpeg", target))).code).toBe("invalid_image");
      expect((await pixelgateError(() => transcodeToPalette(jpeg, { width: 48, height: 64 }, "jpeg", target))).code).toBe("invalid_image");
    }
  });
});

/** The RGB triples of a GIF's global colour table. */
function globalColours(gif: Uint8Array): number[][] {
  const entries = 2 << (gif[10]! & 7);
  return Array.from({ length: entries }, (_, k) => [...gif.subarray(13 + 3 * k, 16 + 3 * k)]);
}

describe("a 24 MP scan: most of its pixels in one histogram bin", () => {
  it("white paper keeps its white: the bin's sums do not overflow past 16.8 million pixels", async () => {
    // 6000x4000: a colourful band of 3.6 million pixels (no colour near white), 20.4 million white.
    const width = 6000;
    const height = 4000;
    const page = image(width, height, (x, y) => (y < 600 ? [(x * 7) % 200, (y * 3) % 200, (x + y) % 200, 255] : [255, 255, 255, 255]));
    const jpeg = await encodeImage(page, "jpeg", { quality: 95 });
    const gif = transcodeToPalette(jpeg, { width, height }, "jpeg", "gif")!;
    expect(globalColours(gif).filter((rgb) => rgb.every((v) => v >= 248))).not.toEqual([]);
  }, 120_000);
});

describe("the GIF and BMP routes", () => {
  it("JPEG and PNG to GIF or BMP take our own build, priced by the route, and recodeImage runs it", async () => {
    const jpeg = withJpegSegments(await encodeImage(scene(64, 48), "jpeg"), exifApp1(6));
    const png = await encodeImage(gradientWithAlpha(64, 48), "png");
    for (const target of ["gif", "bmp"] as const) {
      for (const [bytes, input] of [[jpeg, "jpeg"], [png, "png"]] as const) {
        const route = nativeRoute(bytes, input, target, 64 * 48, 100);
        expect(route, `${input} to ${target}`).toMatchObject({ input });
        expect(route!.price.perPixel, "below the general path's figure").toBeLessThan(termsOf(`general: encode ${target}`).perPixel!);
        const out = await recodeImage(bytes, readHeader(bytes, input), target);
        const orientation = input === "jpeg" ? 6 : 1;
        expect(out.bytes).toEqual(transcodeToPalette(bytes, readHeader(bytes, input), input, target, orientation));
        expect([out.width, out.height]).toEqual(input === "jpeg" ? [48, 64] : [64, 48]);
      }
    }
  });

  it("a BMP is priced as it is streamed (its row source, a band and what its answer holds, not its 3 bytes a pixel); a GIF follows the upload's density", async () => {
    const pixels = 4032 * 3024;
    // Only the header's facts (a baseline JPEG, upright) and the upload's size matter to the price.
    const facts = readRouteFacts(await encodeBaselineJpeg(scene(16, 16), 90), "jpeg");
    const photo = new Uint8Array(2_200_000);
    const rowWriterBytesPerPixel = (upload: Uint8Array, target: "gif" | "bmp", at: number) => routeFor(facts, target, at, upload.length, 100)!.price.perPixel;
    const priceOf = (upload: Uint8Array, target: "gif" | "bmp", at: number) => routeFor(facts, target, at, upload.length, 100)!.price;
    const answer = ROUTE_COSTS.outputs["streamed bmp answer"]!;
    const STREAMED_BMP_ANSWER = { most: answer.mostMiB! * 2 ** 20, perFileByte: answer.most / 3 };
    const bmp = rowWriterBytesPerPixel(photo, "bmp", pixels);
    expect(bmp * pixels, "the answer's fixed cost and a band").toBeGreaterThan(STREAMED_BMP_ANSWER.most + 8e6);
    expect(rowWriterBytesPerPixel(photo, "bmp", 24e6), "the file is never whole").toBeLessThan(3);
    const small = rowWriterBytesPerPixel(photo, "bmp", 64 * 48);
    expect(small - 3 * STREAMED_BMP_ANSWER.perFileByte, "a small BMP's answer: its file 3.5 times over, beside the row source and its band").toBeGreaterThan(0);
    expect(small - 3 * STREAMED_BMP_ANSWER.perFileByte).toBeLessThan(2);
    const gif = priceOf(photo, "gif", pixels);
    expect(rowWriterBytesPerPixel(new Uint8Array(pixels), "gif", pixels), "capped at 12 bits a pixel and its copies").toBeLessThan(4);
    // A 12 MP photo fits beside another to GIF and to BMP; a 24 MP camera photo (a 69 MB BMP) fits too.
    expect(maxRecodePixels("jpeg", gif, photo.length)).toBeGreaterThan(pixels);
    const camera = new Uint8Array(4_300_000);
    expect(maxRecodePixels("jpeg", priceOf(camera, "bmp", 24e6), camera.length)).toBe(24_000_000);
  });

});

describe("GIF and BMP from WebP and from EXIF-oriented PNG and WebP", () => {
  it("every kind of still WebP: the general path's bytes, the route priced as native", async () => {
    const files = await webpKinds(scene(67, 41), gradientWithAlpha(67, 41));
    for (const [kind, webp] of Object.entries(files)) {
      const header = readHeader(webp, "webp");
      for (const target of ["gif", "bmp"] as const) {
        expect(nativeRoute(webp, "webp", target, 67 * 41, 100), `${kind} to ${target}`).toMatchObject({ input: "webp" });
        const out = await recodeImage(webp, header, target);
        const expected = await encodeImage(await decodeImage(webp, header), target);
        expect(Buffer.from(out.bytes).equals(Buffer.from(expected)), `${kind} to ${target}`).toBe(true);
      }
    }
  });

  it("a PNG and a WebP turned by EXIF come out upright, as the general path turns them", async () => {
    const source = scene(40, 24);
    const tiff = exifApp1(6).subarray(4 + EXIF_MARKER.length);
    const png = await encodeImage(source, "png");
    const turnedPng = pngWithExifChunk(png, tiff);
    const webp = await encodeImage(source, "webp", { quality: 90 });
    const turnedWebp = webpWithExif(webp, tiff, 40, 24);
    for (const [input, file] of [["png", turnedPng], ["webp", turnedWebp]] as const) {
      const header = readHeader(file, input);
      expect(nativeRoute(file, input, "gif", 40 * 24, 100), input).toMatchObject({ input, orientation: 6 });
      const out = await recodeImage(file, header, "gif");
      expect([out.width, out.height]).toEqual([24, 40]);
      const upright = await decodeImage(file, header); // the general path applies the orientation
      expect(maxDiff(await decoded(out.bytes, "gif"), await decoded(await encodeImage(upright, "gif"), "gif"))).toBe(0);
    }
  });
});
