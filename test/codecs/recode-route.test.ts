// One decision for both sides of a compress or convert: recode-route.ts says which path runs,
// and the pixel limit and the memory gate price that same path. These cases are where the two
// used to be decided apart: each checks the route, and that recodeImage then ran that path.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, nativeRoute, readHeader, recodeImage } from "../../src/codecs/index.ts";
import { ENCODE_BYTES_PER_PIXEL } from "../../src/codecs/limits.ts";
import { Buffer } from "node:buffer";
import { heicEncoding } from "../../src/codecs/heic.ts";
import { heicPlanesFromTiles } from "../../src/codecs/heic-tiles.ts";
import { planesToPng, transcodeJpeg, transcodePng, transcodeToPng } from "../../src/codecs/native.ts";
import { QUADRANTS_HEIC } from "../fixtures/heic.ts";
import { gradient, gradientWithAlpha, image, meanDiff } from "./support.ts";

describe("the native route", () => {
  it("a PNG with alpha to JPEG: read a row at a time and flattened, priced as that path", async () => {
    const png = await encodeImage(gradientWithAlpha(96, 64), "png");
    const route = nativeRoute(png, "png", "jpeg", 96 * 64, 70);
    expect(route).toMatchObject({ input: "png" });
    expect(route!.bytesPerPixel).toBeLessThan(ENCODE_BYTES_PER_PIXEL.jpeg);
    const out = await recodeImage(png, readHeader(png, "png"), "jpeg", { quality: 70 });
    // The same bytes as the native transcoder writes: the route that was priced is the one that ran.
    expect(out.bytes).toEqual(transcodePng(png, { width: 96, height: 64 }, "jpeg", 70));
  });

  it("a grey JPEG to TIFF: the general path, both when priced and when run", async () => {
    const grey = new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 48, 0, 64, 1, 1, 0x11, 0, 0xff, 0xda, 0, 8, 1, 1, 0, 0, 63, 0]);
    expect(nativeRoute(grey, "jpeg", "tiff", 64 * 48, 100)).toBeNull();
    expect(nativeRoute(grey, "jpeg", "jpeg", 64 * 48, 100)).toMatchObject({ input: "jpeg", orientation: 1 });
  });

  it("targets the native encoders do not write take the general path", async () => {
    const webp = await encodeImage(gradient(64, 48), "webp", { quality: 80 });
    expect(nativeRoute(webp, "webp", "avif", 64 * 48, 100)).toBeNull();
    expect(nativeRoute(webp, "webp", "tiff", 64 * 48, 100)).toMatchObject({ input: "webp" });
    // What the general path writes is what recodeImage answers for a general route.
    const out = await recodeImage(webp, readHeader(webp, "webp"), "avif");
    expect(out.bytes.length).toBeGreaterThan(0);
  });

  it("WebP and HEIC to PNG: the PNG writer's WebP and planes sources, priced as that path", async () => {
    const webp = await encodeImage(gradient(64, 48), "webp", { quality: 80 });
    const route = nativeRoute(webp, "webp", "png", 64 * 48, 100);
    expect(route).toMatchObject({ input: "webp" });
    const out = await recodeImage(webp, readHeader(webp, "webp"), "png");
    expect(out.bytes).toEqual(transcodeToPng(webp, { width: 64, height: 48 }, "webp", 100));
    const heic = new Uint8Array(Buffer.from(QUADRANTS_HEIC, "base64"));
    const heicRoute = nativeRoute(heic, "heic", "png", 64 * 48, 70);
    expect(heicRoute).toMatchObject({ input: "heic" });
    // The planes come from our HEVC decoder when it reads the file (this one it does), else libheif.
    const tiles = heicRoute?.input === "heic" ? heicRoute.tiles : null;
    expect(tiles).not.toBeNull();
    const planes = (await heicPlanesFromTiles(tiles!, heicEncoding(heic)!))!;
    expect((await recodeImage(heic, readHeader(heic, "heic"), "png", { quality: 70 })).bytes).toEqual(planesToPng(planes, 70));
  });
});

describe("WebP's token buffer", () => {
  /** A JPEG of `width` x `height` whose every sample is noise: the densest upload there is. */
  async function noiseJpeg(width: number, height: number, quality = 95): Promise<Uint8Array> {
    let seed = 7;
    const noise = image(width, height, () => {
      const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
      return [next(), next(), next(), 255];
    });
    return encodeImage(noise, "jpeg", { quality });
  }

  it("is paid for from the upload's size; a dense upload whose tokens would not fit is coded as it goes", async () => {
    const smooth = await encodeImage(gradient(256, 192), "jpeg", { quality: 80 });
    const pixels = 256 * 192;
    const calm = nativeRoute(smooth, "jpeg", "webp", pixels, 70)!;
    expect(calm.webp?.lowMemory).toBeUndefined();
    // 4.3 MP of noise at quality 100: over a byte of upload a pixel, where a photo has 0.2.
    const noise = await noiseJpeg(2400, 1800, 100);
    const dense = nativeRoute(noise, "jpeg", "webp", 2400 * 1800, 70)!;
    expect(dense.webp).toEqual({ lowMemory: true });
    // A small noise file fits with its tokens; what the memory gate and the limit read still
    // grows with the density, and with the quality.
    const small = await noiseJpeg(256, 192);
    const smallRoute = nativeRoute(small, "jpeg", "webp", pixels, 70)!;
    expect(smallRoute.webp).toBeUndefined();
    expect(smallRoute.bytesPerPixel).toBeGreaterThan(calm.bytesPerPixel);
    expect(nativeRoute(smooth, "jpeg", "webp", pixels, 100)!.bytesPerPixel).toBeGreaterThan(calm.bytesPerPixel);
  });

  it("coded as it goes, the file still reads back as the picture", async () => {
    const noise = await noiseJpeg(96, 64);
    const header = readHeader(noise, "jpeg");
    const tokens = transcodeJpeg(noise, header, "webp", 70)!;
    const lean = transcodeJpeg(noise, header, "webp", 70, 1, { lowMemory: true })!;
    expect(Math.abs(lean.length - tokens.length) / tokens.length).toBeLessThan(0.05);
    const [a, b, source] = await Promise.all([tokens, lean, noise].map((file, k) => decodeImage(file, readHeader(file, k < 2 ? "webp" : "jpeg"))));
    expect(meanDiff(b!, source!)).toBeLessThan(meanDiff(a!, source!) * 1.1 + 1);
  });
});
