// Gaussian blur and unsharp-mask sharpening. The Gaussian is approximated by three box blurs
// (the central limit theorem at work), each a running sum, so the cost per pixel does not grow
// with the radius: a 50 px blur of a 4 MP image costs the same as a 1 px one. Filtering runs on
// premultiplied colour so transparent pixels lend no colour to their neighbours.

import type { RasterImage } from "../../../codecs/formats.ts";
import { premultiply, unpremultiplyInto } from "./alpha.ts";

/** Gaussian blur with standard deviation `sigma` pixels (the CSS blur() radius); edges repeat. */
export function blur(image: RasterImage, sigma: number): RasterImage {
  const pixels = premultiply(image.data);
  gaussian(pixels, image.width, image.height, sigma);
  const data = new Uint8ClampedArray(pixels.length);
  unpremultiplyInto(pixels, data);
  return { width: image.width, height: image.height, data };
}

/**
 * Unsharp mask: each colour pushed away from its 1 px blur by `amount` times the difference.
 * Alpha is kept as it was; only colour is sharpened.
 */
export function sharpen(image: RasterImage, amount: number): RasterImage {
  const pixels = premultiply(image.data);
  const blurred = binomialBlur(pixels, image.width, image.height);
  for (let i = 0; i < pixels.length; i += 4) {
    for (let c = i; c < i + 3; c++) pixels[c] = pixels[c]! + amount * (pixels[c]! - blurred[c]!);
  }
  const data = new Uint8ClampedArray(pixels.length);
  unpremultiplyInto(pixels, data);
  return { width: image.width, height: image.height, data };
}

/**
 * The 5-tap binomial kernel [1 4 6 4 1] / 16 each way: a Gaussian of sigma exactly 1, where
 * three boxes would be too coarse (at sigma 1 they degenerate to a single 3-pixel box).
 */
function binomialBlur(pixels: Float32Array, w: number, h: number): Float32Array {
  const rows = new Float32Array(pixels.length);
  const out = new Float32Array(pixels.length);
  const clampX = (x: number) => (x < 0 ? 0 : x >= w ? w - 1 : x);
  const clampY = (y: number) => (y < 0 ? 0 : y >= h ? h - 1 : y);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const a = (row + clampX(x - 2)) * 4, b = (row + clampX(x - 1)) * 4, c = (row + x) * 4;
      const d = (row + clampX(x + 1)) * 4, e = (row + clampX(x + 2)) * 4;
      for (let k = 0; k < 4; k++) rows[c + k] = (pixels[a + k]! + 4 * pixels[b + k]! + 6 * pixels[c + k]! + 4 * pixels[d + k]! + pixels[e + k]!) / 16;
    }
  }
  const rowLength = w * 4;
  for (let y = 0; y < h; y++) {
    const a = clampY(y - 2) * rowLength, b = clampY(y - 1) * rowLength, c = y * rowLength;
    const d = clampY(y + 1) * rowLength, e = clampY(y + 2) * rowLength;
    for (let x = 0; x < rowLength; x++) out[c + x] = (rows[a + x]! + 4 * rows[b + x]! + 6 * rows[c + x]! + 4 * rows[d + x]! + rows[e + x]!) / 16;
  }
  return out;
}

/** Blurs RGBA floats in place with three box passes each way. */
function gaussian(pixels: Float32Array, w: number, h: number, sigma: number): void {
  const scratch = new Float32Array(pixels.length);
  for (const radius of boxRadii(sigma)) {
    if (radius === 0) continue;
    boxRows(pixels, scratch, w, h, radius);
    boxColumns(scratch, pixels, w, h, radius);
  }
}

/**
 * Radii of three boxes whose combined variance best matches sigma^2 (box widths are odd: some
 * boxes one size, the rest the next odd size up), after Kutskir's "fastest Gaussian blur".
 */
function boxRadii(sigma: number): number[] {
  const n = 3;
  const ideal = Math.sqrt((12 * sigma * sigma) / n + 1);
  let lower = Math.floor(ideal);
  if (lower % 2 === 0) lower--;
  const upper = lower + 2;
  const m = Math.round((12 * sigma * sigma - n * lower * lower - 4 * n * lower - 3 * n) / (-4 * lower - 4));
  return Array.from({ length: n }, (_, i) => ((i < m ? lower : upper) - 1) / 2);
}

/** Horizontal box mean of width 2r+1, from `src` into `dst`. */
function boxRows(src: Float32Array, dst: Float32Array, w: number, h: number, r: number): void {
  const scale = 1 / (2 * r + 1);
  const at = (x: number) => (x < 0 ? 0 : x >= w ? w - 1 : x) * 4;
  for (let y = 0; y < h; y++) {
    const row = y * w * 4;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (let k = -r; k <= r; k++) {
      const o = row + at(k);
      s0 += src[o]!; s1 += src[o + 1]!; s2 += src[o + 2]!; s3 += src[o + 3]!;
    }
    for (let x = 0; x < w; x++) {
      const o = row + x * 4;
      dst[o] = s0 * scale; dst[o + 1] = s1 * scale; dst[o + 2] = s2 * scale; dst[o + 3] = s3 * scale;
      const add = row + at(x + r + 1), sub = row + at(x - r);
      s0 += src[add]! - src[sub]!; s1 += src[add + 1]! - src[sub + 1]!;
      s2 += src[add + 2]! - src[sub + 2]!; s3 += src[add + 3]! - src[sub + 3]!;
    }
  }
}

/** Vertical box mean of height 2r+1, a whole row of running sums at a time (cache friendly). */
function boxColumns(src: Float32Array, dst: Float32Array, w: number, h: number, r: number): void {
  const scale = 1 / (2 * r + 1);
  const rowLength = w * 4;
  const at = (y: number) => (y < 0 ? 0 : y >= h ? h - 1 : y) * rowLength;
  const sums = new Float64Array(rowLength);
  for (let k = -r; k <= r; k++) {
    const o = at(k);
    for (let x = 0; x < rowLength; x++) sums[x] = sums[x]! + src[o + x]!;
  }
  for (let y = 0; y < h; y++) {
    const out = y * rowLength, add = at(y + r + 1), sub = at(y - r);
    for (let x = 0; x < rowLength; x++) {
      dst[out + x] = sums[x]! * scale;
      sums[x] = sums[x]! + src[add + x]! - src[sub + x]!;
    }
  }
}
