// A WebP's alpha plane written by our own coder (native/webp_alpha.c): libwebp's decoder must
// read back exactly the plane we were given, whatever its shape, and the chunk must stay close
// to the size libwebp's own alpha coder (22 bytes of memory a pixel) gets.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, nativeBytesPerPixel, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { image, jsquashWebp, riffChunks } from "./support.ts";

/** An image whose colour is a gradient and whose alpha is `alpha(x, y)`. */
function withAlpha(width: number, height: number, alpha: (x: number, y: number) => number): RasterImage {
  return image(width, height, (x, y) => [(x * 5) & 255, (y * 3) & 255, 140, alpha(x, y)]);
}

/** A feathered elliptical cut-out: opaque inside, a soft edge `feather` pixels wide, clear outside. */
const cutOut = (width: number, height: number, feather: number) => (x: number, y: number) => {
  const r = Math.hypot((x - width / 2) / (width * 0.4), (y - height / 2) / (height * 0.4));
  return Math.round(255 * Math.min(1, Math.max(0, (1 - r) * (Math.min(width, height) * 0.4) / feather)));
};

/** A soft drop shadow: a wide, smooth ramp, the hardest case for run-based coding. */
const shadow = (width: number, height: number) => (x: number, y: number) =>
  Math.round(200 * Math.exp(-(((x - width * 0.55) / (width * 0.3)) ** 2) - ((y - height * 0.6) / (height * 0.25)) ** 2));

function alphaOf(raster: RasterImage): number[] {
  const out: number[] = [];
  for (let i = 3; i < raster.data.length; i += 4) out.push(raster.data[i]!);
  return out;
}

/** Our WebP of `source`, decoded by libwebp (jsquash): its alpha plane and its chunks. */
async function roundTrip(source: RasterImage) {
  const webp = await encodeImage(source, "webp", { quality: 80 });
  const decoded = await decodeImage(webp, readHeader(webp, "webp"));
  return { webp, chunks: riffChunks(webp), alpha: alphaOf(decoded) };
}

describe("our WebP alpha coder", () => {
  // Each sample from a hash of its position (mulberry32's mixing): no runs or repeats to code.
  const random = (x: number, y: number) => {
    let t = Math.imul(y * 4099 + x + 1, 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) & 255;
  };
  const planes: [string, RasterImage][] = [
    ["a feathered cut-out", withAlpha(301, 203, cutOut(301, 203, 6))],
    ["a soft shadow", withAlpha(256, 160, shadow(256, 160))],
    ["noise (stored as it is when coding would grow it)", withAlpha(97, 61, random)],
    ["one pixel wide", withAlpha(1, 70, (x, y) => (y * 37) & 255)],
    ["one pixel", withAlpha(1, 1, () => 77)],
    ["one clear pixel in an opaque image", withAlpha(130, 90, (x, y) => (x === 64 && y === 45 ? 0 : 255))],
    ["everything clear", withAlpha(40, 30, () => 0)],
    ["stripes one pixel tall", withAlpha(64, 64, (x, y) => (y % 2 ? 255 : 0))],
  ];
  for (const [name, source] of planes) {
    it(`${name}: libwebp reads back exactly the plane`, async () => {
      const { chunks, alpha } = await roundTrip(source);
      expect(alpha).toEqual(alphaOf(source));
      expect(chunks.map(([fourcc]) => fourcc)).toEqual(["VP8X", "ALPH", "VP8 "]);
      expect(chunks[0]![1][0]! & 0x10).toBe(0x10); // the VP8X alpha flag
    });
  }

  it("codes a plane that gains nothing from it uncompressed, one byte a pixel", async () => {
    const { chunks } = await roundTrip(withAlpha(97, 61, random));
    const alph = chunks.find(([fourcc]) => fourcc === "ALPH")![1];
    expect(alph[0]! & 3).toBe(0);
    expect(alph.length).toBe(1 + 97 * 61);
  });

  it("an opaque image gets no alpha chunk at all", async () => {
    const { chunks } = await roundTrip(withAlpha(50, 40, () => 255));
    expect(chunks.map(([fourcc]) => fourcc)).toEqual(["VP8 "]);
  });

  it("stays close to libwebp's own alpha coder in size", async () => {
    for (const [source, most] of [
      [withAlpha(640, 480, cutOut(640, 480, 12)), 1.15],
      [withAlpha(640, 480, shadow(640, 480)), 1.5],
    ] as const) {
      const ours = riffChunks(await encodeImage(source, "webp", { quality: 80 })).find(([f]) => f === "ALPH")![1].length;
      const theirs = riffChunks(await jsquashWebp(source, { quality: 80 })).find(([f]) => f === "ALPH")![1].length;
      expect(ours / theirs).toBeLessThan(most);
    }
  });

  it("is what lets a PNG with alpha become a WebP at a few bytes a pixel", async () => {
    const png = await encodeImage(withAlpha(64, 48, cutOut(64, 48, 4)), "png");
    // The path's own figure (no size given: without libwebp's token buffer, which is priced
    // for the densest picture at the call's quality, test/codecs/recode-route.test.ts).
    expect(nativeBytesPerPixel(png, "png", "webp")).toBeLessThan(4);
  });
});
