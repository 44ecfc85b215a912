// The local upscaler (model local-lanczos-v1): separable Lanczos-3 resampling, not a neural
// model. It adds no detail; it enlarges with sharp edges and little ringing, which is the best
// a classical filter can do. Because the factor is an integer, output pixel x always sits at the
// same fractional offset from its source pixels for a given x % factor, so the filter weights
// are computed once per phase (factor sets of 6 taps) instead of once per output pixel.

import type { RasterImage } from "../../codecs/formats.ts";
import { imageHasAlpha } from "../../codecs/raster.ts";
import { PixelgateError } from "../../errors.ts";
import type { ScaleFactor } from "../types.ts";
import { premultiply, unpremultiplyInto } from "./edit/alpha.ts";

/**
 * The largest output the upscaler produces: 2048 x 2048, so the everyday 512 -> 2048 (4x) and
 * 256 -> 2048 (8x) fit. That is 4.8% over the model tools' input limit (MODEL_INPUT_MAX_PIXELS), which
 * is sized for the worst decode+encode pair (JPEG, ~80 MB at 4 MP). An upscale holds less: the
 * small source, one float32 half-pass (16.8 MB at 2048 x 512), the 16.8 MB result, then the
 * lossless PNG encode, which measured 48 MB at 4 MP including a decode (npm run bench:codecs).
 */
export const MAX_UPSCALE_OUTPUT_PIXELS: number = 2048 * 2048;

const LOBES = 3;
/** Source pixels inside the window of one output pixel (the window is 2 * LOBES wide). */
const TAPS = 2 * LOBES;

/**
 * Refuses, before any credit is taken, an upscale whose output would pass the pixel limit. The
 * message names the largest input that fits at this factor, so the caller can resize and retry.
 */
export function assertUpscaleFits(width: number, height: number, factor: ScaleFactor, param = "image"): void {
  if (factor !== 2 && factor !== 4 && factor !== 8) {
    throw new PixelgateError("invalid_parameter", `The scale factor must be 2x, 4x or 8x, not ${String(factor)}x.`, { param });
  }
  const outputPixels = width * factor * height * factor;
  if (outputPixels <= MAX_UPSCALE_OUTPUT_PIXELS) return;
  const maxInput = Math.floor(MAX_UPSCALE_OUTPUT_PIXELS / (factor * factor));
  const [fitWidth, fitHeight] = largestFit(width, height, maxInput);
  throw new PixelgateError(
    "image_too_large",
    `Upscaling ${width}x${height} by ${factor}x would give ${width * factor}x${height * factor} ` +
      `(${count(outputPixels)} pixels); the upscale output limit is ${count(MAX_UPSCALE_OUTPUT_PIXELS)} pixels. ` +
      `At ${factor}x the input may have at most ${count(maxInput)} pixels, ` +
      `e.g. ${fitWidth}x${fitHeight} at this aspect ratio.`,
    { param },
  );
}

/** The largest width x height with the same aspect ratio and at most `maxPixels` pixels. */
function largestFit(width: number, height: number, maxPixels: number): [number, number] {
  const scale = Math.sqrt(maxPixels / (width * height));
  let w = Math.max(1, Math.floor(width * scale));
  let h = Math.max(1, Math.floor(height * scale));
  while (w * h > maxPixels) {
    if (w >= h && w > 1) w--;
    else h--;
  }
  return [w, h];
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** The image enlarged to exactly width*factor x height*factor with a Lanczos-3 filter. */
export function upscaleLanczos(image: RasterImage, factor: ScaleFactor): RasterImage {
  assertUpscaleFits(image.width, image.height, factor);
  const { width: w, height: h } = image;
  const ow = w * factor;
  const oh = h * factor;
  const phases = phaseWeights(factor);
  // Filtering runs on premultiplied colour so transparent pixels lend no colour. An opaque
  // image's result needs no unpremultiplying (alpha is 255 throughout), which skips a divide
  // per output pixel on the common case.
  const transparent = imageHasAlpha(image);
  const wide = widenRows(premultiply(image.data), w, h, factor, phases);
  const out = new Uint8ClampedArray(ow * oh * 4);
  const rowLength = ow * 4;
  // One reusable output row in float, so the vertical pass can be unpremultiplied per row.
  const row = transparent ? new Float32Array(rowLength) : null;
  const sourceRow = (y: number) => {
    const start = (y < 0 ? 0 : y >= h ? h - 1 : y) * rowLength;
    return wide.subarray(start, start + rowLength);
  };
  for (let oy = 0; oy < oh; oy++) {
    const sy = Math.floor(oy / factor);
    const phase = oy % factor;
    const first = sy + phases.first[phase]!;
    const wb = phase * TAPS;
    const wt = phases.weights;
    const w0 = wt[wb]!, w1 = wt[wb + 1]!, w2 = wt[wb + 2]!, w3 = wt[wb + 3]!, w4 = wt[wb + 4]!, w5 = wt[wb + 5]!;
    const a0 = sourceRow(first), a1 = sourceRow(first + 1), a2 = sourceRow(first + 2);
    const a3 = sourceRow(first + 3), a4 = sourceRow(first + 4), a5 = sourceRow(first + 5);
    const target = row ?? out.subarray(oy * rowLength, (oy + 1) * rowLength);
    for (let x = 0; x < rowLength; x++) {
      target[x] = w0 * a0[x]! + w1 * a1[x]! + w2 * a2[x]! + w3 * a3[x]! + w4 * a4[x]! + w5 * a5[x]!;
    }
    if (row) unpremultiplyInto(row, out.subarray(oy * rowLength, (oy + 1) * rowLength));
    else for (let x = oy * rowLength + 3; x < (oy + 1) * rowLength; x += 4) out[x] = 255;
  }
  return { width: ow, height: oh, data: out };
}

/** Horizontal pass: every row widened to w*factor, kept in float (negative lobes included). */
function widenRows(source: Float32Array, w: number, h: number, factor: number, phases: Phases): Float32Array {
  const ow = w * factor;
  const wide = new Float32Array(ow * h * 4);
  // Byte offset within a source row of each tap of each output column, edges clamped.
  const taps = new Int32Array(ow * TAPS);
  for (let ox = 0; ox < ow; ox++) {
    const sx = Math.floor(ox / factor);
    const first = sx + phases.first[ox % factor]!;
    for (let k = 0; k < TAPS; k++) taps[ox * TAPS + k] = Math.min(w - 1, Math.max(0, first + k)) * 4;
  }
  for (let y = 0; y < h; y++) {
    const inRow = y * w * 4;
    let o = y * ow * 4;
    for (let ox = 0; ox < ow; ox++, o += 4) {
      const wb = (ox % factor) * TAPS;
      const tb = ox * TAPS;
      let r = 0, g = 0, b = 0, a = 0;
      for (let k = 0; k < TAPS; k++) {
        const weight = phases.weights[wb + k]!;
        const s = inRow + taps[tb + k]!;
        r += weight * source[s]!;
        g += weight * source[s + 1]!;
        b += weight * source[s + 2]!;
        a += weight * source[s + 3]!;
      }
      wide[o] = r;
      wide[o + 1] = g;
      wide[o + 2] = b;
      wide[o + 3] = a;
    }
  }
  return wide;
}

interface Phases {
  /** Per phase, the first source pixel read, relative to the output pixel's source pixel. */
  first: Int32Array;
  /** TAPS weights per phase, normalised to sum 1 so a flat area stays exactly flat. */
  weights: Float64Array;
}

/**
 * Output pixel p of each group of `factor` sits (p + 0.5) / factor - 0.5 source pixels from
 * the centre of its source pixel: never 0 for an even factor, so the 6-pixel-wide Lanczos-3
 * window always covers exactly 6 source pixels, starting 3 to the left when the offset is
 * negative and 2 to the left when it is positive.
 */
function phaseWeights(factor: number): Phases {
  const first = new Int32Array(factor);
  const weights = new Float64Array(factor * TAPS);
  for (let p = 0; p < factor; p++) {
    const offset = (p + 0.5) / factor - 0.5;
    first[p] = offset < 0 ? -LOBES : 1 - LOBES;
    let sum = 0;
    for (let k = 0; k < TAPS; k++) {
      const weight = lanczos(offset - (first[p]! + k));
      weights[p * TAPS + k] = weight;
      sum += weight;
    }
    for (let k = 0; k < TAPS; k++) weights[p * TAPS + k] = weights[p * TAPS + k]! / sum;
  }
  return { first, weights };
}

function lanczos(x: number): number {
  if (x === 0) return 1;
  if (x <= -LOBES || x >= LOBES) return 0;
  const px = Math.PI * x;
  return (LOBES * Math.sin(px) * Math.sin(px / LOBES)) / (px * px);
}
