// WebP and HEIC as row sources of our own PNG writer (native/png_webp_rows.c,
// native/png_planes_rows.c): a WebP re-encoded as PNG holds exactly the pixels the general
// path decodes (jsquash's libwebp, WebPDecodeRGBA), alpha included; a HEIC's planes come out as
// libheif's own RGB decode shows them, within the colour conversion's rounding.

import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { decodeHeic, decodeHeicPlanes, heicEncoding } from "../../src/codecs/heic.ts";
import { planesToPng, transcodeToPng } from "../../src/codecs/native.ts";
import { ALPHA_HEIC, BT709_STUDIO_HEIC, QUADRANTS_HEIC, TEN_BIT_HEIC } from "../fixtures/heic.ts";
import { recodeImage } from "../../src/codecs/recode.ts";
import { maxRecodePixels } from "../../src/codecs/limits.ts";
import { nativeBytesPerPixel, nativeRoute } from "../../src/codecs/recode-route.ts";
import type { Orientation } from "../../src/codecs/orientation.ts";
import {
  animatedWebp,
  concat,
  EXIF_MARKER,
  exifApp1,
  gradientWithAlpha,
  jsquashWebp,
  maxDiff,
  meanDiff,
  pixelAt,
  pixelgateError,
  pngLayout,
  pngPaletteSize,
  pngWithExifChunk,
  quadrantScene,
  webpKinds,
  webpWithExif,
} from "./support.ts";

const scene = quadrantScene;

const shown = (png: Uint8Array) => decodeImage(png, readHeader(png, "png"));

describe("transcodeToPng from WebP", () => {
  const opaque = scene(67, 41);
  const inputs = () => webpKinds(opaque, gradientWithAlpha(67, 41));

  it("lossless: exactly the general path's pixels, in the layout its encoder picks", async () => {
    for (const [name, webp] of Object.entries(await inputs())) {
      const header = readHeader(webp, "webp");
      const general = await decodeImage(webp, header);
      const out = transcodeToPng(webp, header, "webp", 100)!;
      expect(maxDiff(await shown(out), general), name).toBe(0);
      expect(pngLayout(out), name).toEqual(pngLayout(await encodeImage(general, "png")));
    }
  });

  it("quality 70: the palette file the same pixels make as a raster", async () => {
    for (const [name, webp] of Object.entries(await inputs())) {
      const header = readHeader(webp, "webp");
      const general = await decodeImage(webp, header);
      const out = transcodeToPng(webp, header, "webp", 70)!;
      expect(out, name).toEqual(await encodeImage(general, "png", { quality: 70 }));
      expect(pngLayout(out).colorType === 3 ? pngPaletteSize(out) : 0, name).toBeLessThanOrEqual(128);
    }
  });

  it("many macroblock rows, and a lossless file 4000 pixels wide (our VP8L decoder, a row at a time)", async () => {
    const tall = scene(120, 1500);
    const wide = gradientWithAlpha(4000, 600);
    for (const [name, webp] of [
      ["lossy", await encodeImage(tall, "webp", { quality: 75 })],
      ["lossless, 4000 wide", await jsquashWebp(wide, { lossless: 1, exact: 1 })],
    ] as const) {
      const header = readHeader(webp, "webp");
      expect(maxDiff(await shown(transcodeToPng(webp, header, "webp", 100)!), await decodeImage(webp, header)), name).toBe(0);
    }
  });

  it("refuses a file cut short or of another size with invalid_image; leaves animations to the general path", async () => {
    for (const [name, webp] of Object.entries(await inputs())) {
      const header = readHeader(webp, "webp");
      for (const cut of [webp.subarray(0, webp.length >> 1), webp.subarray(0, webp.length - 9)]) {
        expect((await pixelgateError(() => transcodeToPng(cut, header, "webp", 100))).code, name).toBe("invalid_image");
      }
      expect((await pixelgateError(() => transcodeToPng(webp, { width: 41, height: 67 }, "webp", 70))).code, name).toBe("invalid_image");
    }
    const frame = await encodeImage(opaque, "webp", { quality: 80 });
    const animated = animatedWebp({ width: 67, height: 41 }, [{ webp: frame, x: 0, y: 0, width: 67, height: 41 }]);
    expect(transcodeToPng(animated, { width: 67, height: 41 }, "webp", 100)).toBeNull();
  });
});

describe("EXIF-oriented PNG and WebP to PNG", () => {
  const exif = (orientation: number) => exifApp1(orientation).subarray(4 + EXIF_MARKER.length);
  const pngWithExif = (png: Uint8Array, orientation: number) => pngWithExifChunk(png, exif(orientation));

  /** Written natively (and by recodeImage, which must route it there) with exactly the general path's turned pixels. */
  async function expectTurned(file: Uint8Array, kind: "png" | "webp", orientation: Orientation, label: string) {
    const header = readHeader(file, kind);
    const general = await decodeImage(file, header);
    const out = transcodeToPng(file, header, kind, 100, orientation)!;
    const back = await shown(out);
    expect([back.width, back.height], label).toEqual([general.width, general.height]);
    expect(maxDiff(back, general), label).toBe(0);
    expect((await recodeImage(file, header, "png")).bytes, label).toEqual(out);
  }

  it("every orientation, with alpha and without: exactly the general path's pixels", async () => {
    const png = await encodeImage(gradientWithAlpha(67, 41), "png");
    const webp = await encodeImage(scene(67, 41), "webp", { quality: 90 });
    const lossless = await jsquashWebp(gradientWithAlpha(67, 41), { lossless: 1, exact: 1 });
    for (const orientation of [1, 2, 3, 4, 5, 6, 7, 8] as Orientation[]) {
      await expectTurned(pngWithExif(png, orientation), "png", orientation, `png ${orientation}`);
      await expectTurned(webpWithExif(webp, exif(orientation), 67, 41), "webp", orientation, `webp ${orientation}`);
      await expectTurned(webpWithExif(lossless, exif(orientation), 67, 41), "webp", orientation, `lossless webp ${orientation}`);
    }
  });

  it("several bands of 8 MB: a turned PNG 2100 rows high (2100-pixel output rows), a flipped WebP, a turned lossless one", async () => {
    const png = await encodeImage(scene(2500, 2100), "png");
    await expectTurned(pngWithExif(png, 6), "png", 6, "png 6");
    const webp = await encodeImage(scene(2100, 2500), "webp", { quality: 80 });
    await expectTurned(webpWithExif(webp, exif(3), 2100, 2500), "webp", 3, "webp 3");
    // A lossless one through our VP8L decoder, the file decoded again for every band.
    const lossless = await jsquashWebp(scene(1500, 2100), { lossless: 1, method: 0 });
    await expectTurned(webpWithExif(lossless, exif(6), 1500, 2100), "webp", 6, "lossless webp 6");
  }, 60_000);
});

describe("planesToPng (HEIC)", () => {
  const bytesOf = (base64: string) => new Uint8Array(Buffer.from(base64, "base64"));

  async function both(base64: string, quality = 100) {
    const bytes = bytesOf(base64);
    const planes = await decodeHeicPlanes(bytes, 1 << 24, heicEncoding(bytes)!);
    return { png: await shown(planesToPng(planes, quality)), libheif: await decodeHeic(bytes, 1 << 24) };
  }

  // libheif upsamples chroma bilinearly for its RGB; the planes path takes each 2x2 cell's chroma
  // as the encoders do, so the two differ along colour edges only.
  const inside = (img: RasterImage) => (x: number, y: number) => x % 32 > 3 && x % 32 < 28 && y % 24 > 3 && y % 24 < 20 && x < img.width && y < img.height;

  for (const [name, base64] of [["8-bit", QUADRANTS_HEIC], ["10-bit", TEN_BIT_HEIC], ["BT.709 studio range", BT709_STUDIO_HEIC]] as const) {
    it(`lossless: libheif's RGB decode inside each quadrant (${name})`, async () => {
      const { png, libheif } = await both(base64);
      expect([png.width, png.height]).toEqual([libheif.width, libheif.height]);
      expect(maxDiff(png, libheif, inside(png), 3), name).toBeLessThan(16);
      expect(meanDiff(png, libheif, inside(png)), name).toBeLessThan(3);
    });
  }

  it("carries the alpha plane exactly; quality 70 stays close", async () => {
    const { png, libheif } = await both(ALPHA_HEIC);
    for (let i = 3; i < png.data.length; i += 4) if (png.data[i] !== libheif.data[i]) throw new Error(`alpha differs at pixel ${(i - 3) / 4}`);
    expect(pixelAt(png, 56, 8)[3]).toBeLessThan(8);
    expect(pixelAt(png, 8, 8)[3]).toBe(255);
    const palette = await both(QUADRANTS_HEIC, 70);
    expect(meanDiff(palette.png, palette.libheif, inside(palette.png))).toBeLessThan(6);
  });
});

describe("what WebP and HEIC to PNG cost", () => {
  // Measured (docs/codecs.md): a 0.7 MB 12 MP lossy WebP peaked at 40.7 MB to lossless PNG, a
  // 14 MB lossless one at 164 MB (its PNG is 18 MB, held several times); a 1.7 MB HEIC at 81 MB.
  const pixels = 4032 * 3024;
  /** The file's first bytes (which say lossy or lossless, alpha, orientation) padded to the upload's size. */
  const upload = (head: Uint8Array, size: number) => {
    const bytes = new Uint8Array(Math.max(size, head.length));
    bytes.set(head);
    return bytes;
  };
  const limitFor = (format: "webp" | "heic", head: Uint8Array, size: number, quality = 100) =>
    maxRecodePixels(format, nativeRoute(upload(head, size), format, "png", pixels, quality)!.price, Math.max(size, head.length));

  it("a 12 MP lossy WebP photo fits, a dense one too (its PNG priced at most 3.1 B/px, kept in pieces), one of noise as a palette only; a lossless one is not held whole", async () => {
    const lossy = await encodeImage(scene(64, 48), "webp", { quality: 80 });
    const lossless = await jsquashWebp(scene(64, 48), { lossless: 1 });
    expect(limitFor("webp", lossy, 700_000)).toBeGreaterThanOrEqual(pixels);
    expect(limitFor("webp", lossy, 3_000_000)).toBeGreaterThanOrEqual(pixels);
    expect(limitFor("webp", lossy, 8_000_000)).toBeLessThan(pixels);
    expect(limitFor("webp", lossy, 8_000_000, 70)).toBeGreaterThanOrEqual(pixels);
    // Our VP8L decoder's window, not libwebp's whole ARGB image (4 B/px): within a byte a pixel
    // of a lossy file for the same small upload.
    const perPixel = (head: Uint8Array) => nativeBytesPerPixel(upload(head, 100_000), "webp", "png", pixels)!;
    expect(Math.abs(perPixel(lossless) - perPixel(lossy))).toBeLessThan(1);
    // A 14 MB 12 MP lossless photo fits now that its PNG is kept in pieces (57.9 MiB measured).
    expect(limitFor("webp", lossless, 14_000_000)).toBeGreaterThanOrEqual(pixels);
    const turned = webpWithExif(lossy, exifApp1(6).subarray(4 + EXIF_MARKER.length), 64, 48);
    expect(nativeBytesPerPixel(upload(turned, 700_000), "webp", "png", pixels)! - nativeBytesPerPixel(upload(lossy, 700_000), "webp", "png", pixels)!).toBeCloseTo(0.7);
  });

  it("a HEIC costs at least its decode, more when its PNG will be large", () => {
    const heic = new Uint8Array(Buffer.from(QUADRANTS_HEIC, "base64"));
    const decode = nativeBytesPerPixel(heic, "heic", "jpeg")!; // a single image: libde265's whole picture
    expect(nativeBytesPerPixel(upload(heic, 700_000), "heic", "png", pixels)).toBe(decode);
    expect(nativeBytesPerPixel(upload(heic, 3_000_000), "heic", "png", pixels)).toBeGreaterThan(decode);
    expect(limitFor("heic", heic, 1_700_000)).toBeGreaterThanOrEqual(pixels);
  });
});
