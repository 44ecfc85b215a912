// Our own WASM build (src/codecs/native.ts): JPEG, PNG and WebP to WebP and JPEG without an RGBA
// raster, run in workerd, checked by decoding its output with the other decoder (jsquash).

import { describe, expect, it } from "vitest";
import { applyOrientation, decodeImage, encodeImage, nativeBytesPerPixel, readHeader, recodeImage, type RasterImage } from "../../src/codecs/index.ts";
import { encodeBaselineJpeg } from "../../src/codecs/jpeg.ts";
import { transcodeJpeg, transcodePng, transcodeWebp } from "../../src/codecs/native.ts";
import type { Orientation } from "../../src/codecs/orientation.ts";
import { loadSourceImage } from "../../src/tools/source-image.ts";
import { newAccount } from "../support/fixtures";
import { balanceOf, bytesOfDataUri, dataUriOf, postTool } from "../support/tool-calls";
import {
  animatedWebp,
  EXIF_MARKER,
  exifApp1,
  gradient,
  gradientWithAlpha,
  handPng,
  jsquashWebp,
  meanDiff,
  pixelAt,
  pixelgateError,
  quadrants,
  riffChunks,
  webpKinds,
  webpWithExif,
  withJpegSegments,
  quadrantScene as scene,
} from "./support.ts";


function tagged(jpeg: Uint8Array, orientation: Orientation): Uint8Array {
  return orientation === 1 ? jpeg : withJpegSegments(jpeg, exifApp1(orientation));
}

async function decoded(bytes: Uint8Array, format: "webp" | "jpeg"): Promise<RasterImage> {
  return decodeImage(bytes, readHeader(bytes, format));
}

describe("transcodeJpeg", () => {
  const stored = scene(67, 41); // odd sides: the 2x2 chroma cells fall differently per orientation
  const orientations: Orientation[] = [1, 2, 3, 4, 5, 6, 7, 8];

  for (const target of ["webp", "jpeg"] as const) {
    it(`writes ${target} with every EXIF orientation applied, at the exact size`, async () => {
      const jpeg = await encodeImage(stored, "jpeg", { quality: 95 });
      const header = readHeader(jpeg, "jpeg");
      for (const orientation of orientations) {
        const out = transcodeJpeg(jpeg, { width: 67, height: 41 }, target, 90, orientation)!;
        const shown = await decoded(out, target);
        // applyOrientation flips in place: give it a copy.
        const expected = applyOrientation({ ...stored, data: stored.data.slice() }, orientation);
        expect([shown.width, shown.height], `orientation ${orientation}`).toEqual([expected.width, expected.height]);
        // Two lossy generations: as close to the original as the general path's output gets.
        const general = await decoded(await encodeImage(await decodeImage(tagged(jpeg, orientation), header), target, { quality: 90 }), target);
        expect(meanDiff(expected, shown), `orientation ${orientation}`).toBeLessThan(meanDiff(expected, general) * 1.2 + 0.5);
        // Each corner's colour lands where the orientation puts it.
        const at = [0, 0, expected.width - 1, 0, 0, expected.height - 1, expected.width - 1, expected.height - 1];
        for (let k = 0; k < 8; k += 2) {
          const [er, eg, eb] = pixelAt(expected, at[k]!, at[k + 1]!);
          const [r, g, b] = pixelAt(shown, at[k]!, at[k + 1]!);
          expect(Math.abs(r! - er!) + Math.abs(g! - eg!) + Math.abs(b! - eb!), `orientation ${orientation} corner ${k / 2}`).toBeLessThan(60);
        }
      }
    });
  }

  it("gives the same picture as decoding and encoding the general way", async () => {
    const jpeg = await encodeImage(scene(128, 96), "jpeg", { quality: 92 });
    const general = await decoded(await encodeImage(await decodeImage(jpeg, readHeader(jpeg, "jpeg")), "webp", { quality: 80 }), "webp");
    const native = await decoded(transcodeJpeg(jpeg, { width: 128, height: 96 }, "webp", 80)!, "webp");
    expect(meanDiff(general, native)).toBeLessThan(2);
  });

  it("streams a baseline JPEG (no whole-image buffer on the way in) as faithfully as a progressive one", async () => {
    const stored = scene(96, 64);
    for (const jpeg of [await encodeBaselineJpeg(stored, 92), await encodeImage(stored, "jpeg", { quality: 92 })]) {
      const header = readHeader(jpeg, "jpeg");
      const general = await decoded(await encodeImage(await decodeImage(jpeg, header), "jpeg", { quality: 85 }), "jpeg");
      const native = await decoded(transcodeJpeg(jpeg, header, "jpeg", 85)!, "jpeg");
      expect(meanDiff(stored, native)).toBeLessThan(meanDiff(stored, general) * 1.2 + 0.5);
    }
  });

  it("refuses a size other than the header's before decoding", async () => {
    const jpeg = await encodeImage(scene(32, 16), "jpeg");
    const error = await pixelgateError(() => transcodeJpeg(jpeg, { width: 16, height: 32 }, "webp", 80));
    expect(error.code).toBe("invalid_image");
  });

  it("answers invalid_image for corrupt Huffman tables (libjpeg's fatal error), and the next call still works", async () => {
    const jpeg = await encodeImage(scene(64, 48), "jpeg", { quality: 80 });
    const broken = jpeg.slice();
    // Every DHT segment's code counts set to 255: more codes than 16 bits allow.
    for (let i = 2; i + 4 < broken.length && !(broken[i] === 0xff && broken[i + 1] === 0xda); i += 2 + ((broken[i + 2]! << 8) | broken[i + 3]!)) {
      if (broken[i + 1] === 0xc4) broken.fill(255, i + 5, i + 5 + 16);
    }
    for (const target of ["webp", "jpeg"] as const) {
      expect((await pixelgateError(() => transcodeJpeg(broken, { width: 64, height: 48 }, target, 80))).code).toBe("invalid_image");
    }
    expect(transcodeJpeg(jpeg, { width: 64, height: 48 }, "jpeg", 80)!.length).toBeGreaterThan(100);
  });

  it("writes no metadata: an EXIF and orientation in the input are not in the output", async () => {
    const jpeg = withJpegSegments(await encodeImage(scene(40, 20), "jpeg"), exifApp1(6));
    const header = readHeader(jpeg, "jpeg");
    for (const format of ["webp", "jpeg"] as const) {
      const out = await recodeImage(jpeg, header, format, { quality: 75 });
      expect([out.width, out.height]).toEqual([20, 40]);
      expect(new TextDecoder("latin1").decode(out.bytes)).not.toContain("Exif");
      const shown = await decoded(out.bytes, format);
      expect([shown.width, shown.height]).toEqual([20, 40]);
    }
  });
});

describe("transcodePng", () => {
  for (const [name, source] of [["opaque", scene(67, 41)], ["with alpha", gradientWithAlpha(67, 41)]] as const) {
    it(`${name}: WebP and JPEG as close to the PNG's pixels as the general path gets`, async () => {
      const png = await encodeImage(source, "png");
      const header = readHeader(png, "png");
      for (const target of ["webp", "jpeg"] as const) {
        const out = transcodePng(png, header, target, 90)!;
        const shown = await decoded(out, target);
        const general = await decoded(await encodeImage(await decodeImage(png, header), target, { quality: 90 }), target);
        expect([shown.width, shown.height]).toEqual([67, 41]);
        expect(meanDiff(general, shown), target).toBeLessThan(1.5);
        // WebP keeps alpha exactly where the PNG has it; JPEG flattens onto black.
        if (target === "webp") expect(pixelAt(shown, 40, 5)[3]).toBe(pixelAt(source, 40, 5)[3]);
      }
    });
  }

  it("reads 16-bit, grey and palette layouts like the TypeScript decoder", async () => {
    const layouts = [
      { colorType: 2, bitDepth: 16, sample: (x: number, y: number) => [x * 1000, y * 2000, 30000] },
      { colorType: 0, bitDepth: 8, sample: (x: number, y: number) => [(x * 7 + y) & 255] },
    ] as const;
    for (const layout of layouts) {
      const png = await handPng({ width: 23, height: 9, ...layout });
      const header = readHeader(png, "png");
      const general = await decodeImage(png, header);
      const shown = await decoded(transcodePng(png, header, "webp", 100)!, "webp");
      expect(meanDiff(general, shown), `colour type ${layout.colorType}`).toBeLessThan(3);
    }
  });

  it("leaves interlaced files to the TypeScript decoder (null), and recodeImage still answers", async () => {
    const png = await handPng({ width: 20, height: 12, colorType: 2, bitDepth: 8, interlaced: true, sample: (x, y) => [x * 10, y * 20, 90] });
    const header = readHeader(png, "png");
    expect(transcodePng(png, header, "webp", 80)).toBeNull();
    const out = await recodeImage(png, header, "webp", { quality: 80 });
    expect([out.width, out.height]).toEqual([20, 12]);
  });

  it("answers invalid_image for pixel data cut short or a size other than the header's", async () => {
    const png = await encodeImage(scene(64, 48), "png");
    const header = readHeader(png, "png");
    expect((await pixelgateError(() => transcodePng(png.subarray(0, png.length >> 1), header, "webp", 80))).code).toBe("invalid_image");
    expect((await pixelgateError(() => transcodePng(png, { width: 48, height: 64 }, "jpeg", 80))).code).toBe("invalid_image");
  });
});

/** Peak signal-to-noise ratio of the colour channels, in dB (alpha left out). */
function psnr(a: RasterImage, b: RasterImage): number {
  let squares = 0;
  for (let i = 0; i < a.data.length; i++) if (i % 4 !== 3) squares += (a.data[i]! - b.data[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / (squares / ((a.data.length / 4) * 3)));
}

/** `image` over black, as a JPEG target flattens it. */
function overBlack(image: RasterImage): RasterImage {
  const data = image.data.slice();
  for (let i = 0; i < data.length; i += 4) {
    for (let c = 0; c < 3; c++) data[i + c] = Math.round((data[i + c]! * data[i + 3]!) / 255);
    data[i + 3] = 255;
  }
  return { ...image, data };
}

describe("transcodeWebp", () => {
  const opaque = scene(67, 41);
  const inputs = () => webpKinds(opaque, gradientWithAlpha(67, 41));

  it("writes the layouts the header reader tells apart (VP8, VP8X+ALPH, VP8L)", async () => {
    const chunkNames = Object.values(await inputs()).map((webp) => riffChunks(webp).map(([fourcc]) => fourcc).join(","));
    expect(chunkNames).toEqual(["VP8 ", "VP8X,ALPH,VP8 ", "VP8L", "VP8L"]);
  });

  for (const target of ["webp", "jpeg"] as const) {
    it(`to ${target}: the decoded pixels match jsquash's decode of the input, alpha ${target === "webp" ? "kept" : "flattened onto black"}`, async () => {
      for (const [name, webp] of Object.entries(await inputs())) {
        const header = readHeader(webp, "webp");
        const source = await decodeImage(webp, header); // jsquash's libwebp decoder
        const shown = await decoded(transcodeWebp(webp, header, target, 95)!, target);
        expect([shown.width, shown.height], name).toEqual([67, 41]);
        const expected = target === "jpeg" ? overBlack(source) : source;
        // As close as the general path (jsquash's decode, then our raster encoder) gets: over
        // 33 dB for lossy inputs (already 4:2:0); less for lossless ones, which lose their full
        // chroma resolution either way.
        const general = await decoded(await encodeImage(source, target, { quality: 95 }), target);
        const quality = (image: RasterImage) => psnr(overBlack(image), overBlack(expected));
        expect(quality(shown), name).toBeGreaterThan(Math.min(33, quality(general) - 0.5));
        expect(meanDiff(expected, shown), name).toBeLessThan(meanDiff(expected, general) * 1.2 + 0.5);
        if (name.includes("alpha")) {
          // Inside the cut-out, on its edge, and in the clear corner.
          for (const [x, y] of [[33, 20], [60, 5], [1, 1]] as const) {
            const alpha = pixelAt(shown, x, y)[3];
            if (target === "webp") expect(alpha, `${name} at ${x},${y}`).toBe(pixelAt(source, x, y)[3]);
            else expect(alpha, `${name} at ${x},${y}`).toBe(255);
          }
        }
      }
    });
  }

  it("answers invalid_image for a cut-off or damaged file and for a size other than the header's", async () => {
    const webp = await encodeImage(scene(64, 48), "webp", { quality: 80 });
    const header = readHeader(webp, "webp");
    const damaged = webp.slice();
    damaged.fill(0xff, 40, 200); // the first partition's modes and probabilities
    for (const target of ["webp", "jpeg"] as const) {
      for (const bad of [webp.subarray(0, webp.length >> 1), damaged]) {
        expect((await pixelgateError(() => transcodeWebp(bad, header, target, 80))).code).toBe("invalid_image");
      }
      expect((await pixelgateError(() => transcodeWebp(webp, { width: 48, height: 64 }, target, 80))).code).toBe("invalid_image");
    }
    expect(transcodeWebp(webp, header, "jpeg", 80)!.length).toBeGreaterThan(100);
  });

  it("costs what its coding needs, told from the chunks before decoding (the memory gate's and the limits' figure)", async () => {
    const files = await inputs();
    const cost = (webp: Uint8Array) => [nativeBytesPerPixel(webp, "webp", "webp"), nativeBytesPerPixel(webp, "webp", "jpeg")];
    const lossy = cost(files.lossy);
    const alpha = cost(files["lossy with alpha"]);
    const lossless = cost(files.lossless);
    // Our own decoders hand the ALPH plane and a VP8L image out a row at a time: to WebP the
    // encoder's picture holds the alpha plane (a byte a pixel more), and a lossless upload keeps
    // room for WebP tokens it does not tell; to JPEG every kind streams alike.
    expect(alpha[0]).toBeCloseTo(lossy[0]! + 1);
    expect(lossless[0]).toBeGreaterThan(lossy[0]!);
    expect(cost(files["lossless with alpha"])[0]).toBeCloseTo(lossless[0]! + 1);
    expect(new Set([lossy[1], alpha[1], lossless[1], cost(files["lossless with alpha"])[1]]).size).toBe(1);
    // Not this path's: an AVIF target, an animation, an EXIF-oriented file.
    expect(nativeBytesPerPixel(files.lossy, "webp", "avif")).toBeNull();
    const frame = await encodeImage(scene(8, 6), "webp");
    expect(cost(animatedWebp({ width: 8, height: 6 }, [{ webp: frame, x: 0, y: 0, width: 8, height: 6 }]))).toEqual([null, null]);
    expect(cost(webpWithExif(frame, exifApp1(6).subarray(4 + EXIF_MARKER.length), 8, 6))).toEqual([null, null]);
  });

  it("leaves animations (null) and EXIF-oriented files to the general path, which recodeImage takes", async () => {
    const frame = await encodeImage(scene(8, 6), "webp");
    const anim = animatedWebp({ width: 8, height: 6 }, [{ webp: frame, x: 0, y: 0, width: 8, height: 6 }]);
    expect(transcodeWebp(anim, { width: 8, height: 6 }, "webp", 80)).toBeNull();
    expect(await recodeImage(anim, readHeader(anim, "webp"), "jpeg")).toMatchObject({ width: 8, height: 6 });

    const exif = exifApp1(6).subarray(4 + EXIF_MARKER.length); // the TIFF structure inside the APP1 segment
    const turned = webpWithExif(await encodeImage(scene(40, 20), "webp"), exif, 40, 20);
    for (const format of ["webp", "jpeg"] as const) {
      const out = await recodeImage(turned, readHeader(turned, "webp"), format, { quality: 75 });
      expect([out.width, out.height]).toEqual([20, 40]);
    }
  });
});

describe("compress and convert through the native path", () => {
  it("a portrait-tagged JPEG converts to an upright WebP, 1 credit", async () => {
    const account = await newAccount({ credits: 3 });
    const jpeg = withJpegSegments(await encodeImage(scene(48, 32), "jpeg"), exifApp1(6));
    const response = await postTool("/v1/compress", account.key, { image: `data:image/jpeg;base64,${btoa(String.fromCharCode(...jpeg))}`, targetFormat: "webp" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { image: string } };
    const shown = await decoded(bytesOfDataUri(body.result.image).bytes, "webp");
    expect([shown.width, shown.height]).toEqual([32, 48]);
    expect(await balanceOf(account.id)).toBe(2);
  });

  it("a truncated WebP is refused with 400 invalid_image before the charge", async () => {
    const account = await newAccount({ credits: 3 });
    const webp = await encodeImage(scene(48, 32), "webp");
    const cut = webp.subarray(0, webp.length - 40);
    for (const targetFormat of ["webp", "jpeg"]) {
      const response = await postTool("/v1/compress", account.key, { image: `data:image/webp;base64,${btoa(String.fromCharCode(...cut))}`, targetFormat });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_image");
    }
    expect(await balanceOf(account.id)).toBe(3);
  });

  it("a truncated JPEG is refused with 400 invalid_image before the charge", async () => {
    const account = await newAccount({ credits: 3 });
    const jpeg = await encodeImage(scene(48, 32), "jpeg");
    const cut = jpeg.subarray(0, jpeg.length - 30);
    await expect(loadSourceImage(await dataUriOf(scene(4, 4)), "image")).resolves.toBeTruthy();
    for (const path of ["/v1/compress", "/v1/convert-format"]) {
      const response = await postTool(path, account.key, { image: `data:image/jpeg;base64,${btoa(String.fromCharCode(...cut))}`, targetFormat: "webp" });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_image");
    }
    expect(await balanceOf(account.id)).toBe(3);
  });
});
