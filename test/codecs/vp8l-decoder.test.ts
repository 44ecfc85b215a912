// Our own VP8L decoder (native/vp8l_*.c) and ALPH reader (native/alpha_rows.c), which hand out
// rows from a window of recent pixels where libwebp holds whole images. Checked through the PNG
// writer's WebP row source against the general path's decode (jsquash's libwebp,
// WebPDecodeRGBA): every pixel equal, for files from libwebp's own encoder in the settings that
// reach each part of the format (transforms, colour cache, meta codes, palettes bundling 1, 2, 4
// and 8 bits a pixel, copies from far back, ALPH raw and filtered).

import { describe, expect, it } from "vitest";
import { decodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { transcodeToPng, transcodeWebp } from "../../src/codecs/native.ts";
import { encodeImage } from "../../src/codecs/index.ts";
import { ascii, concat, distinctColors, gradient, gradientWithAlpha, image, jsquashWebp, maxDiff, pixelgateError, quadrantScene, riffChunks } from "./support.ts";

/** Deterministic pseudo-random bytes (a 32-bit LCG). */
function randomBytes(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state >>> 24;
  };
}

function noise(width: number, height: number, alpha: boolean, seed = 7): RasterImage {
  const next = randomBytes(seed);
  return image(width, height, () => [next(), next(), next(), alpha ? next() : 255]);
}

/** A picture of `colours` distinct colours (some translucent), in blocks and stripes. */
function paletted(width: number, height: number, colours: number): RasterImage {
  const next = randomBytes(colours);
  const table = Array.from({ length: colours }, () => [next(), next(), next(), next() < 64 ? next() : 255] as [number, number, number, number]);
  return image(width, height, (x, y) => table[((x >> 2) * 7 + (y >> 1) * 3 + ((x * y) >> 5)) % colours]!);
}

/** A photo-like scene: smooth tones with grain, and an alpha edge that is feathered. */
function photo(width: number, height: number, alpha: boolean): RasterImage {
  const base = quadrantScene(width, height);
  const next = randomBytes(3);
  for (let i = 0; i < base.data.length; i += 4) {
    for (let c = 0; c < 3; c++) base.data[i + c] = base.data[i + c]! + (next() & 7) - 4;
    const x = (i >> 2) % width;
    if (alpha) base.data[i + 3] = Math.max(0, Math.min(255, (x - width / 3) * 4));
  }
  return base;
}

/** Noise whose lower half repeats its upper half: copies from `width * height / 2` pixels back. */
function repeated(width: number, height: number): RasterImage {
  const top = noise(width, height / 2, false, 11);
  const data = new Uint8ClampedArray(width * height * 4);
  data.set(top.data, 0);
  data.set(top.data, top.data.length);
  return { width, height, data };
}

/** The VP8L chunk's first transform, when there is one: its type and, for a palette, how many colours. */
function firstTransform(webp: Uint8Array): { type: number; colours?: number } | null {
  const vp8l = riffChunks(webp).find(([type]) => type === "VP8L")![1];
  const bit = (at: number) => (vp8l[at >> 3]! >> (at & 7)) & 1;
  const bits = (at: number, n: number) => Array.from({ length: n }, (_, i) => bit(at + i) << i).reduce((a, b) => a + b, 0);
  if (!bit(40)) return null;
  const type = bits(41, 2);
  return type === 3 ? { type, colours: bits(43, 8) + 1 } : { type };
}

async function expectGeneralPixels(name: string, webp: Uint8Array) {
  const header = readHeader(webp, "webp");
  const out = transcodeToPng(webp, header, "webp", 100)!;
  expect(out, name).not.toBeNull();
  const png = readHeader(out, "png");
  expect(maxDiff(await decodeImage(out, png), await decodeImage(webp, header)), name).toBe(0);
}

/** Re-encoded as WebP natively (our alpha coder is lossless), the alpha plane is the general decode's. */
async function expectAlphaKept(name: string, webp: Uint8Array) {
  const header = readHeader(webp, "webp");
  const out = transcodeWebp(webp, header, "webp", 90)!;
  const [a, b] = [await decodeImage(out, readHeader(out, "webp")), await decodeImage(webp, header)];
  let worst = 0;
  for (let i = 3; i < a.data.length; i += 4) worst = Math.max(worst, Math.abs(a.data[i]! - b.data[i]!));
  expect(worst, name).toBe(0);
}

describe("our VP8L decoder against libwebp's", () => {
  it("lossless photo, graphic and noise, with and without alpha, in libwebp's encoder settings", async () => {
    const pictures: [string, RasterImage][] = [
      ["photo", photo(97, 61, false)],
      ["photo with alpha", photo(97, 61, true)],
      ["gradient", gradient(130, 40)],
      ["cut-out", gradientWithAlpha(67, 41)],
      ["noise", noise(45, 33, false)],
      ["noise with alpha", noise(45, 33, true)],
    ];
    const settings = [
      { method: 0, quality: 0 },
      { method: 4, quality: 75 },
      { method: 6, quality: 100 },
      { method: 4, quality: 90, near_lossless: 60 },
    ];
    for (const [name, picture] of pictures) {
      for (const setting of settings) {
        await expectGeneralPixels(`${name} ${JSON.stringify(setting)}`, await jsquashWebp(picture, { lossless: 1, exact: 1, ...setting }));
      }
    }
  });

  it("palettes bundling 8, 4, 2 and 1 pixels a byte, widths not a multiple of the bundle", async () => {
    for (const [colours, width] of [[2, 61], [4, 45], [11, 33], [16, 7], [200, 50]] as const) {
      const picture = paletted(width, 37, colours);
      const webp = await jsquashWebp(picture, { lossless: 1, exact: 1 });
      expect(firstTransform(webp), `${colours} colours`).toEqual({ type: 3, colours: distinctColors(picture) });
      await expectGeneralPixels(`${colours} colours`, webp);
    }
  });

  it("copies from further back than the window's wrap (a 1.2 MP image repeating itself)", async () => {
    // Above quality 75 libwebp's matcher looks back over the whole window; the file is half the
    // noise's size only if the lower half was coded as copies of the upper one.
    const webp = await jsquashWebp(repeated(1024, 1200), { lossless: 1, method: 3, quality: 90 });
    expect(webp.length).toBeLessThan(1024 * 1200 * 3 * 0.6);
    await expectGeneralPixels("repeated", webp);
  });

  it("a lossless file read from JavaScript in pieces, behind 40 KB of colour profile", async () => {
    const picture = photo(97, 61, true);
    const vp8l = riffChunks(await jsquashWebp(picture, { lossless: 1, exact: 1 })).find(([type]) => type === "VP8L")![1];
    const chunk = (type: string, payload: Uint8Array) => {
      const header = new Uint8Array(8);
      header.set(ascii(type));
      new DataView(header.buffer).setUint32(4, payload.length, true);
      return concat(header, payload, new Uint8Array(payload.length & 1));
    };
    // VP8X: ICC profile and alpha flags, then the 24-bit canvas width - 1 and height - 1.
    const vp8x = new Uint8Array([0x30, 0, 0, 0, 96, 0, 0, 60, 0, 0]);
    const body = concat(ascii("WEBP"), chunk("VP8X", vp8x), chunk("ICCP", new Uint8Array(40_000).fill(7)), chunk("VP8L", vp8l));
    const webp = concat(ascii("RIFF"), new Uint8Array(new Uint32Array([body.length]).buffer), body);
    await expectGeneralPixels("behind a profile", webp);
    const header = readHeader(webp, "webp");
    const toJpeg = transcodeWebp(webp, header, "jpeg", 90)!;
    expect(readHeader(toJpeg, "jpeg")).toMatchObject({ width: 97, height: 61 });
    await expectAlphaKept("behind a profile", webp);
  });

  it("ALPH of lossy files: raw and VP8L, every filter, levels quantised", async () => {
    // A ramp across both axes: the gradient filter predicts it exactly.
    const ramp = image(70, 45, (x, y) => [x, y, 90, Math.min(255, x * 2 + y * 3)]);
    const pictures = [gradientWithAlpha(67, 41), photo(83, 50, true), noise(40, 23, true), ramp];
    const settings = [
      { alpha_compression: 0, alpha_filtering: 0 },
      { alpha_compression: 0, alpha_filtering: 2 },
      { alpha_compression: 1, alpha_filtering: 0 },
      { alpha_compression: 1, alpha_filtering: 1 },
      { alpha_compression: 1, alpha_filtering: 2 },
      { alpha_compression: 1, alpha_filtering: 2, alpha_quality: 40 },
    ];
    const filters = new Set<number>(), methods = new Set<number>();
    for (const [i, picture] of pictures.entries()) {
      for (const setting of settings) {
        const webp = await jsquashWebp(picture, { quality: 80, ...setting });
        const alph = riffChunks(webp).find(([type]) => type === "ALPH")![1];
        methods.add(alph[0]! & 3); // libwebp stores alpha raw when coding would not make it smaller
        filters.add((alph[0]! >> 2) & 3);
        await expectGeneralPixels(`picture ${i} ${JSON.stringify(setting)}`, webp);
        await expectAlphaKept(`picture ${i} ${JSON.stringify(setting)}`, webp);
      }
    }
    expect([...filters].sort()).toEqual([0, 1, 2, 3]); // libwebp's "best" picked each filter somewhere
    expect([...methods].sort()).toEqual([0, 1]);
  });

  it("refuses corrupt streams with invalid_image", async () => {
    const lossless = await jsquashWebp(photo(97, 61, true), { lossless: 1 });
    const lossy = await encodeImage(gradientWithAlpha(67, 41), "webp", { quality: 80 });
    const header = readHeader(lossless, "webp");
    const flipped = (webp: Uint8Array, at: number) => {
      const copy = webp.slice();
      copy[at] = copy[at]! ^ 0xff;
      return copy;
    };
    for (const [name, webp, size] of [
      ["lossless cut", lossless.subarray(0, lossless.length - 40), header],
      ["lossless, transform bits broken", flipped(lossless, 25), header],
      ["lossy, ALPH header's reserved bits set", flipped(lossy, alphOffset(lossy)), { width: 67, height: 41 }],
      ["lossy, ALPH stream cut", cutAlph(lossy), { width: 67, height: 41 }],
    ] as const) {
      expect((await pixelgateError(() => transcodeToPng(webp, size, "webp", 100))).code, name).toBe("invalid_image");
    }
  });
});

/** Where the ALPH chunk's header byte is. */
function alphOffset(webp: Uint8Array): number {
  return riffChunks(webp).find(([type]) => type === "ALPH")![1].byteOffset - webp.byteOffset;
}

/** The file with its ALPH chunk's stream cut to a third (the chunk's size field too). */
function cutAlph(webp: Uint8Array): Uint8Array {
  const at = alphOffset(webp), alph = riffChunks(webp).find(([type]) => type === "ALPH")![1];
  const keep = Math.max(2, Math.floor(alph.length / 3)) & ~1;
  const out = new Uint8Array(webp.length - (alph.length - keep));
  out.set(webp.subarray(0, at + keep));
  out.set(webp.subarray(at + alph.length + (alph.length & 1) - (alph.length & 1)), at + keep);
  const view = new DataView(out.buffer);
  view.setUint32(at - 4, keep, true);
  view.setUint32(4, out.length - 8, true);
  return out;
}
