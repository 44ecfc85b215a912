// One decision for both sides of a compress or convert: recode-route.ts says which path runs,
// and the pixel limit and the memory gate price that same path. These cases are where the two
// used to be decided apart: each checks the route, and that recodeImage then ran that path.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, nativeRoute, readHeader, recodeImage } from "../../src/codecs/index.ts";
import { estimateCodecBytes, ISOLATE_CODEC_BUDGET, maxRecodePixels } from "../../src/codecs/limits.ts";
import { termsOf, webpDensestPerPixel, webpFilePerInputByte, webpPhotoPerPixel, WEBP_DENSEST } from "../../src/codecs/recode-cost.ts";
import { readJpegFrame } from "../../src/codecs/jpeg.ts";
import { Buffer } from "node:buffer";
import { heicEncoding } from "../../src/codecs/heic.ts";
import { heicPlanesFromTiles } from "../../src/codecs/heic-tiles.ts";
import { planesToPng, transcodeJpeg, transcodePng, transcodeToPng, transcodeWebp } from "../../src/codecs/native.ts";
import { QUADRANTS_HEIC } from "../fixtures/heic.ts";
import { gradient, gradientWithAlpha, image, jsquashWebp, meanDiff } from "./support.ts";

describe("the native route", () => {
  it("a PNG with alpha to JPEG: read a row at a time and flattened, priced as that path", async () => {
    const png = await encodeImage(gradientWithAlpha(96, 64), "png");
    const route = nativeRoute(png, "png", "jpeg", 96 * 64, 70);
    expect(route).toMatchObject({ input: "png" });
    expect(route!.price.perPixel).toBeLessThan(termsOf("general: encode jpeg").perPixel!);
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
    expect(dense.webp).toMatchObject({ lowMemory: true });
    // A small noise file fits with its tokens; what the memory gate and the limit read still
    // grows with the density, and with the quality.
    const small = await noiseJpeg(256, 192);
    const smallRoute = nativeRoute(small, "jpeg", "webp", pixels, 70)!;
    expect(smallRoute.webp?.lowMemory).toBeUndefined();
    expect(smallRoute.price.perPixel).toBeGreaterThan(calm.price.perPixel);
    expect(nativeRoute(smooth, "jpeg", "webp", pixels, 100)!.price.perPixel).toBeGreaterThan(calm.price.perPixel);
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

  it("a token partition past its first buffer leaves WASM memory in pieces and the file still reads back whole", async () => {
    // 0.8 MP of noise at quality 100: about a megabyte of partition, several times the 256 KB
    // after which it is handed out (native/libwebp-memory.patch), with tokens and coded as it goes.
    const noise = await noiseJpeg(1024, 768, 100);
    const header = readHeader(noise, "jpeg");
    const source = (await decodeImage(noise, header))!;
    for (const webp of [undefined, { lowMemory: true }]) {
      const file = transcodeJpeg(noise, header, "webp", 100, 1, webp)!;
      expect(file.length).toBeGreaterThan(3 * 256 * 1024);
      // The RIFF and VP8 sizes libwebp wrote cover the pieces as they were put back in order.
      const view = new DataView(file.buffer, file.byteOffset);
      expect(view.getUint32(4, true) + 8).toBe(file.length);
      const decoded = (await decodeImage(file, readHeader(file, "webp")))!;
      expect(decoded.width).toBe(1024);
      expect(meanDiff(decoded, source)).toBeLessThan(8);
    }
  });

  it("a JPEG's own quality, read from its luma table, sets how large its WebP may be priced", async () => {
    const picture = gradient(256, 192);
    const qualities = await Promise.all([15, 40, 60, 75, 85, 95].map(async (quality) => readJpegFrame(await encodeImage(picture, "jpeg", { quality })).quality!));
    // libjpeg's scale read back: in order, and each near what was asked for (MozJPEG's own
    // tables read a little coarser than libjpeg's at the same setting).
    expect(qualities).toEqual([...qualities].sort((a, b) => a - b));
    qualities.forEach((read, k) => expect(Math.abs(read - [15, 40, 60, 75, 85, 95][k]!)).toBeLessThanOrEqual(20));
    // A coarser upload may make more WebP per byte; under 50 its size bounds nothing.
    const ratios = [95, 85, 75, 55].map((source) => webpFilePerInputByte(80, source)!);
    expect(ratios).toEqual([...ratios].sort((a, b) => a - b));
    expect(webpFilePerInputByte(80, 40)).toBeNull();
    expect(webpFilePerInputByte(100, 95)!).toBeGreaterThan(webpFilePerInputByte(70, 95)!);
  });

  it("what the call was priced for holds: past its token allowance the picture is coded again as it goes, past its file allowance the call fails", async () => {
    // A JPEG of quality 5 asked for at 100: its blocks' edges are detail the WebP keeps, so the
    // WebP is several times the upload, more than the upload's size let the price expect.
    const blocky = await noiseJpeg(640, 480, 5);
    const header = readHeader(blocky, "jpeg");
    const tokens = transcodeJpeg(blocky, header, "webp", 100)!;
    expect(tokens.length).toBeGreaterThan(3 * blocky.length);
    const asItGoes = transcodeJpeg(blocky, header, "webp", 100, 1, { lowMemory: true })!;
    const capped = transcodeJpeg(blocky, header, "webp", 100, 1, { tokenBytes: 64 * 1024 })!;
    expect(Buffer.from(capped).equals(Buffer.from(asItGoes))).toBe(true);
    expect(Buffer.from(capped).equals(Buffer.from(tokens))).toBe(false);
    // Within its file allowance the same call answers; past it, image_too_large.
    expect(transcodeJpeg(blocky, header, "webp", 100, 1, { lowMemory: true, fileBytes: asItGoes.length })!.length).toBe(asItGoes.length);
    expect(() => transcodeJpeg(blocky, header, "webp", 100, 1, { lowMemory: true, fileBytes: asItGoes.length - 1 })).toThrow(expect.objectContaining({ code: "image_too_large" }));
    // The route allows the token buffer half its price and the file the rest; the upload goes
    // through in full.
    const route = nativeRoute(blocky, "jpeg", "webp", 640 * 480, 100)!;
    expect(route.webp?.tokenBytes).toBeGreaterThan(0);
    expect((await recodeImage(blocky, header, "webp", { quality: 100 })).length).toBeGreaterThan(3 * blocky.length);
  });
});

describe("WebP's token buffer, from a PNG or a lossless WebP", () => {
  /**
   * Noise whose every sample is 0 or 255 (with `alpha`, alpha at random), the same 61 pixels
   * along each row: deflate and VP8L find the repeats, so the upload is small, while VP8 codes
   * it as the densest picture there is.
   */
  function repeatedNoise(width: number, height: number, alpha: boolean) {
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
    const rows = Array.from({ length: height }, () => Array.from({ length: 61 }, () => [next() & 128 ? 255 : 0, next() & 128 ? 255 : 0, next() & 128 ? 255 : 0, alpha ? next() : 255] as [number, number, number, number]));
    return image(width, height, (x, y) => rows[y]![x % 61]!);
  }
  const [width, height] = [320, 240];
  const pixels = width * height;

  it("is priced from the densest picture at the quality, whatever the upload's size, and covers the file written", async () => {
    for (const alpha of [false, true]) {
      const png = await encodeImage(repeatedNoise(width, height, alpha), "png");
      const lossless = await jsquashWebp(repeatedNoise(width, height, alpha), { lossless: 1, exact: 1 });
      for (const quality of [50, 70, 80, 90, 100]) {
        const densest = webpDensestPerPixel(quality, alpha);
        for (const [input, bytes, base, file] of [
          ["png", png, termsOf(`png into the webp, jpeg encoders: webp${alpha ? ", alpha" : ""}`).perPixel!, transcodePng(png, { width, height }, "webp", quality)!],
          ["webp", lossless, termsOf(`still webp into the webp, jpeg encoders: webp, lossless${alpha ? " with alpha" : ""}`).perPixel!, transcodeWebp(lossless, { width, height }, "webp", quality)!],
        ] as const) {
          // The WebP is larger than its upload (priced from the upload's size, it would look cheap);
          // the bound holds for the file the encoder really writes (VP8 and alpha chunk together).
          expect(file.length).toBeGreaterThan(bytes.length);
          expect(file.length).toBeLessThanOrEqual((densest.vp8 + densest.alpha) * pixels);
          const route = nativeRoute(bytes, input, "webp", pixels, quality)!;
          // Small enough to keep the token buffer, priced for the densest picture's tokens, half
          // of which it may take.
          const tokens = WEBP_DENSEST.tokensPerByte * densest.vp8 + WEBP_DENSEST.alphaPerByte * densest.alpha;
          expect(route.webp).toMatchObject({ tokenBytes: expect.closeTo((tokens / 2) * pixels, 0) });
          expect(route.webp!.lowMemory).toBeUndefined();
          expect(route.price.perPixel).toBeCloseTo(base + WEBP_DENSEST.tokensPerByte * densest.vp8 + WEBP_DENSEST.alphaPerByte * densest.alpha, 6);
        }
      }
    }
  });

  it("coded as it goes once the tokens would not fit; refused where even that would not", async () => {
    const png = await encodeImage(repeatedNoise(width, height, false), "png");
    // The route reads the layout from the file and the pixels from the header: a 4 MP PNG at
    // convert's quality keeps its place, coded as it goes.
    const four = nativeRoute(png, "png", "webp", 2000 * 2000, 80)!;
    expect(four.webp).toMatchObject({ lowMemory: true });
    expect(maxRecodePixels("png", four.price, png.length)).toBeGreaterThanOrEqual(2000 * 2000);
    // So does 12 MP at quality 100: coded as it goes only the file grows, and it leaves WASM
    // memory as it is written (measured 56 MB for this picture's 0.3 MB upload at 12 MP).
    const twelve = nativeRoute(png, "png", "webp", 4000 * 3000, 100)!;
    expect(twelve.webp).toMatchObject({ lowMemory: true });
    expect(maxRecodePixels("png", twelve.price, png.length)).toBeGreaterThanOrEqual(4000 * 3000);
    // With alpha and a small upload the densest picture's file still fits beside the rest.
    const alpha = await encodeImage(repeatedNoise(width, height, true), "png");
    const twelveMp = 4000 * 3000;
    const densestFile = (webpDensestPerPixel(80, true).vp8 + webpDensestPerPixel(80, true).alpha) * twelveMp;
    expect(nativeRoute(alpha, "png", "webp", twelveMp, 80)!.webp!.fileBytes).toBeGreaterThan(densestFile);
    // Coded as it goes, the file still reads back as the picture.
    const source = repeatedNoise(width, height, false);
    const tokens = transcodePng(png, { width, height }, "webp", 80)!;
    const lean = transcodePng(png, { width, height }, "webp", 80, { lowMemory: true })!;
    expect(Math.abs(lean.length - tokens.length) / tokens.length).toBeLessThan(0.05);
    const [a, b] = await Promise.all([tokens, lean].map((file) => decodeImage(file, readHeader(file, "webp"))));
    expect(meanDiff(b!, source)).toBeLessThan(meanDiff(a!, source) * 1.1 + 1);
  });

  it("a large upload beside which the densest file does not fit: the file may take what the budget leaves, if a photo's fits there", async () => {
    // The upload's own cost (2 bytes a byte) is what crowds the densest file out: the same
    // picture's file, padded to 20 MB, as a 12 MP cut-out photo of that size would be.
    const alpha = await encodeImage(repeatedNoise(width, height, true), "png");
    const large = new Uint8Array(20_000_000);
    large.set(alpha);
    const twelveMp = 4000 * 3000;
    const route = nativeRoute(large, "png", "webp", twelveMp, 80)!;
    expect(route.webp).toMatchObject({ lowMemory: true });
    const estimate = estimateCodecBytes(twelveMp, route.price, large.length);
    // The call takes (nearly) the whole budget, and the file what is left of it.
    expect(estimate).toBeLessThanOrEqual(ISOLATE_CODEC_BUDGET);
    expect(estimate).toBeGreaterThan(0.98 * ISOLATE_CODEC_BUDGET);
    expect(maxRecodePixels("png", route.price, large.length)).toBeGreaterThanOrEqual(twelveMp);
    const { vp8, alpha: alphaChunk } = webpDensestPerPixel(80, true);
    expect(route.webp!.fileBytes).toBeLessThan((vp8 + alphaChunk) * twelveMp);
    expect(route.webp!.fileBytes).toBeGreaterThan(webpPhotoPerPixel(80) * twelveMp);
    // At 13 MP the room left holds a photo's file at quality 80, not at 100: that one is
    // refused before the charge.
    const thirteenMp = 13_000_000;
    const at80 = nativeRoute(large, "png", "webp", thirteenMp, 80)!;
    expect(maxRecodePixels("png", at80.price, large.length)).toBeGreaterThanOrEqual(thirteenMp);
    const at100 = nativeRoute(large, "png", "webp", thirteenMp, 100)!;
    expect(maxRecodePixels("png", at100.price, large.length)).toBeLessThan(thirteenMp);
    // What the file is let take is what the encoder is held to: this picture's WebP, far past
    // a photo's, outgrows a room of a photo's size and fails; given its own size it answers.
    const header = { width, height };
    const file = transcodePng(alpha, header, "webp", 80, { lowMemory: true })!;
    expect(() => transcodePng(alpha, header, "webp", 80, { lowMemory: true, fileBytes: Math.ceil(webpPhotoPerPixel(80) * pixels) })).toThrow(expect.objectContaining({ code: "image_too_large" }));
    expect(transcodePng(alpha, header, "webp", 80, { lowMemory: true, fileBytes: file.length })!.length).toBe(file.length);
  });
});
