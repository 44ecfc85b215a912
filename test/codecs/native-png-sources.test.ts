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
import { animatedWebp, gradient, gradientWithAlpha, jsquashWebp, maxDiff, meanDiff, pixelAt, pixelgateError, pngLayout, quadrants, webpKinds } from "./support.ts";

function scene(width: number, height: number): RasterImage {
  const q = quadrants(width, height);
  const g = gradient(width, height);
  for (let i = 0; i < q.data.length; i++) q.data[i] = (q.data[i]! * 3 + g.data[i]!) >> 2;
  return q;
}

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

  it("quality 70: the TypeScript encoder's palette of the same pixels", async () => {
    for (const [name, webp] of Object.entries(await inputs())) {
      const header = readHeader(webp, "webp");
      const general = await decodeImage(webp, header);
      const out = transcodeToPng(webp, header, "webp", 70)!;
      const viaTs = await encodeImage(general, "png", { quality: 70 });
      expect(maxDiff(await shown(out), await shown(viaTs)), name).toBeLessThanOrEqual(1);
      expect(out.length, name).toBeLessThanOrEqual(viaTs.length * 1.02 + 16);
    }
  });

  it("many macroblock rows, and a lossless file taller than one decoding band (8 MB of rows)", async () => {
    const tall = scene(120, 1500);
    const wide = gradientWithAlpha(4000, 600); // 524 rows a band: two bands
    for (const [name, webp] of [
      ["lossy", await encodeImage(tall, "webp", { quality: 75 })],
      ["lossless, two bands", await jsquashWebp(wide, { lossless: 1, exact: 1 })],
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
