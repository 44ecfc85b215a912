// The packed coefficient store of our own WASM build (native/coef_store.c): libjpeg keeps a
// window of a whole-image coefficient array unpacked and swaps the rest out, packed. Checked by
// writing every target with a window far smaller than the image (many swaps, the window moving
// forwards and back) and with every array held whole: the files must be byte for byte the same.

import { afterEach, describe, expect, it } from "vitest";
import { encodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { setCoefficientWindow, transcodeJpeg, transcodeToPng } from "../../src/codecs/native.ts";
import type { Orientation } from "../../src/codecs/orientation.ts";
import { newAccount } from "../support/fixtures";
import { base64, postTool } from "../support/tool-calls";
import { concat, exifApp1, image, withJpegSegments } from "./support.ts";

/**
 * Smooth shapes with grain growing across the frame up to `strength` (1: as strong as the
 * shapes): sparse and dense blocks.
 */
function grainy(width: number, height: number, strength = 1): RasterImage {
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) - 128;
  return image(width, height, (x, y) => {
    const grain = (noise() * x * strength) / width;
    const base = (x * 255) / width;
    return [base + grain, ((x ^ y) & 64 ? 200 : 40) + grain / 2, (y * 255) / height - grain, 255];
  });
}

/** Every target the native JPEG path writes, as one list of outputs. */
function everyTarget(jpeg: Uint8Array, orientation: Orientation): Uint8Array[] {
  const size = readHeader(jpeg, "jpeg");
  const out = (["webp", "jpeg", "baseline-jpeg"] as const).map((target) => transcodeJpeg(jpeg, size, target, 80, orientation)!);
  out.push(transcodeToPng(jpeg, size, "jpeg", 100, orientation)!, transcodeToPng(jpeg, size, "jpeg", 60, orientation)!);
  return out;
}

/** Largest linear memory among the WASM instances `run` creates. */
function peakMemory(run: () => void): number {
  const Original = WebAssembly.Instance;
  const created: WebAssembly.Instance[] = [];
  WebAssembly.Instance = class extends Original {
    constructor(module: WebAssembly.Module, imports?: WebAssembly.Imports) {
      super(module, imports);
      created.push(this);
    }
  };
  try {
    run();
  } finally {
    WebAssembly.Instance = Original;
  }
  return Math.max(...created.map((i) => (i.exports.memory as WebAssembly.Memory).buffer.byteLength));
}

afterEach(() => setCoefficientWindow(null));

describe("the packed coefficient store", () => {
  const source = grainy(301, 203); // odd sides: partial blocks and chroma cells at the edges

  for (const quality of [92, 100]) {
    it(`gives back the exact coefficients of a progressive JPEG at quality ${quality}: every target's file is the same`, async () => {
      // At 100 the grain leaves most blocks dense: those rows are kept as they are, not packed.
      const progressive = await encodeImage(source, "jpeg", { quality });
      for (const orientation of [1, 6] as const) {
        setCoefficientWindow(0);
        const whole = everyTarget(progressive, orientation);
        setCoefficientWindow(8 * 1024); // a few coefficient rows of the 301 x 203 image
        const packed = everyTarget(progressive, orientation);
        for (let k = 0; k < whole.length; k++) expect(packed[k], `orientation ${orientation}, output ${k}`).toEqual(whole[k]);
      }
    });
  }

  it("is what keeps a large image's coefficients small: the memory it saves is most of the arrays", async () => {
    const jpeg = await encodeImage(grainy(1600, 1200, 0.1), "jpeg", { quality: 90 });
    const size = readHeader(jpeg, "jpeg");
    setCoefficientWindow(0);
    const whole = peakMemory(() => transcodeJpeg(jpeg, size, "jpeg", 80));
    setCoefficientWindow(256 * 1024);
    const packed = peakMemory(() => transcodeJpeg(jpeg, size, "jpeg", 80));
    // Whole, the decoder's array (2 bytes per coefficient, 1.5 coefficients a pixel: 5.8 MB)
    // is there with the planes it is written into; packed, a window and about a tenth of it.
    expect(whole - packed).toBeGreaterThan(1600 * 1200 * 2);
  });

  it("answers a damaged or cut-off progressive JPEG as the whole arrays do", async () => {
    const jpeg = await encodeImage(grainy(301, 203), "jpeg", { quality: 90 });
    const size = readHeader(jpeg, "jpeg");
    const damaged = jpeg.slice();
    for (let at = 600; at < damaged.length - 2; at += 97) if (damaged[at] !== 0xff && damaged[at - 1] !== 0xff) damaged[at] = damaged[at]! ^ 0x5a;
    const cut = concat(jpeg.subarray(0, Math.floor(jpeg.length / 2)), new Uint8Array([0xff, 0xd9]));
    const outcome = (bytes: Uint8Array) => {
      try {
        return transcodeJpeg(bytes, size, "jpeg", 80);
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    for (const bytes of [damaged, cut]) {
      setCoefficientWindow(0);
      const whole = outcome(bytes);
      setCoefficientWindow(8 * 1024);
      expect(outcome(bytes)).toEqual(whole);
    }
  });

  it("a turned, cut-off progressive JPEG large enough for the store gets a clear 4xx or a picture, never a 500", async () => {
    const account = await newAccount({ credits: 10 });
    const jpeg = withJpegSegments(await encodeImage(grainy(1600, 1200), "jpeg", { quality: 90 }), exifApp1(6));
    for (const bytes of [jpeg.subarray(0, jpeg.length >> 1), concat(jpeg.subarray(0, jpeg.length >> 1), new Uint8Array([0xff, 0xd9]))]) {
      const response = await postTool("/v1/convert-format", account.key, { image: `data:image/jpeg;base64,${base64(bytes)}`, targetFormat: "jpeg" });
      expect(response.status === 200 || (response.status >= 400 && response.status < 500), `status ${response.status}`).toBe(true);
    }
  });
});
