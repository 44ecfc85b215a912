// The local background cut-out (model local-cutout-v1): classical image processing, not a
// neural model. It works where product shots and renders usually are: a subject in front of a
// plain or smoothly varying backdrop (a studio sweep, a gradient, a vignette).
//
// 1. Model the background from the image border: a quadratic colour surface per channel,
//    fitted robustly so a subject touching the border (a person cut at the shoulders) does
//    not drag the fit. A border the surface cannot explain (a busy photo) means no background.
// 2. Flood-fill from the border through pixels close to the modelled background: what is
//    reached is background, the rest is subject. Enclosed areas stay (a classical cut-out
//    cannot tell a hole from a white shirt), and specks left by noise are dropped.
// 3. Soften the edge over about two pixels, mixing the geometry of the mask with how far each
//    edge pixel's colour is from the background, so anti-aliased edges stay smooth.

import type { RasterImage } from "../../codecs/formats.ts";
import { fitBorderModel, type BackgroundModel } from "./edit/background-model.ts";

/** A subject component smaller than this share of the largest one is noise, not subject. */
const SPECK_SHARE = 0.001;
/** Fewer subject pixels than this and there is nothing to cut out. */
const MIN_SUBJECT_PIXELS = 16;

export function cutOutBackground(image: RasterImage): { image: RasterImage; backgroundFound: boolean } {
  const model = fitBorderModel(image);
  if (!model) return { image, backgroundFound: false };
  const subject = findSubject(image, model);
  if (!subject) return { image, backgroundFound: false };
  return { image: composeCutout(image, subject, model), backgroundFound: true };
}

// The masks below live on a grid one pixel wider than the image on every side, so neighbour
// lookups need no bounds checks: cell (x + 1, y + 1) is pixel (x, y), row stride w + 2.

/** 1 for subject cells, 0 for background and padding; null when no subject is left. */
function findSubject(image: RasterImage, model: BackgroundModel): Uint8Array | null {
  const { width: w, height: h } = image;
  const stride = w + 2;
  const background = model.classify(image);
  // 0 = subject, 1 = looks like background, 2 = background reached from the border, 3 = pad.
  const state = new Uint8Array(stride * (h + 2)).fill(3);
  for (let y = 0; y < h; y++) state.set(background.subarray(y * w, y * w + w), (y + 1) * stride + 1);
  const queue = new Int32Array(w * h);
  let tail = 0;
  for (let y = 1; y <= h; y++) {
    for (let x = 1; x <= w; x++) {
      const i = y * stride + x;
      if (state[i] === 1 && (y === 1 || y === h || x === 1 || x === w)) {
        state[i] = 2;
        queue[tail++] = i;
      }
      if (x === 1 && y > 1 && y < h && w > 2) x = w - 1; // only the outermost ring seeds
    }
  }
  // 4-connected: the background must not leak through a diagonal gap in a thin outline.
  for (let head = 0; head < tail; head++) {
    const i = queue[head]!;
    if (state[i - 1] === 1) (state[i - 1] = 2), (queue[tail++] = i - 1);
    if (state[i + 1] === 1) (state[i + 1] = 2), (queue[tail++] = i + 1);
    if (state[i - stride] === 1) (state[i - stride] = 2), (queue[tail++] = i - stride);
    if (state[i + stride] === 1) (state[i + stride] = 2), (queue[tail++] = i + stride);
  }
  // The state grid becomes the subject mask in place (one fewer full-size buffer).
  for (let i = 0; i < state.length; i++) state[i] = state[i]! < 2 ? 1 : 0;
  return dropSpecks(state, stride, queue);
}

/**
 * Removes subject components much smaller than the largest; null when nothing is left. No
 * label image (4 bytes a pixel): the first sweep marks visited cells 2 and notes where each
 * component starts and its size; the second clears the small ones from their starts.
 */
function dropSpecks(subject: Uint8Array, stride: number, queue: Int32Array): Uint8Array | null {
  const steps = Int32Array.of(-stride - 1, -stride, -stride + 1, -1, 1, stride - 1, stride, stride + 1);
  // Floods the 8-connected component at `start` from value `from` to value `to`; its size.
  const flood = (start: number, from: number, to: number): number => {
    subject[start] = to;
    queue[0] = start;
    let tail = 1;
    for (let head = 0; head < tail; head++) {
      const i = queue[head]!;
      for (let k = 0; k < 8; k++) {
        const j = i + steps[k]!;
        if (subject[j] === from) {
          subject[j] = to;
          queue[tail++] = j;
        }
      }
    }
    return tail;
  };
  const starts: number[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < subject.length; i++) {
    if (subject[i] !== 1) continue;
    starts.push(i);
    sizes.push(flood(i, 1, 2));
  }
  let largest = 0;
  for (const size of sizes) largest = Math.max(largest, size);
  if (largest < MIN_SUBJECT_PIXELS) return null;
  const minSize = Math.max(4, largest * SPECK_SHARE);
  for (let c = 0; c < sizes.length; c++) if (sizes[c]! < minSize) flood(starts[c]!, 2, 0);
  for (let i = 0; i < subject.length; i++) subject[i] = subject[i] ? 1 : 0;
  return subject;
}

/**
 * RGBA with the background transparent. Pixels away from the edge keep their alpha or become
 * 0; edge pixels average the 3x3 mask coverage with a colour ramp (background-like at half the
 * threshold, subject-like at twice it). Edge pixels outside the mask take their subject
 * neighbours' colour, so the soft rim carries no halo of the old background.
 */
function composeCutout(image: RasterImage, subject: Uint8Array, model: BackgroundModel): RasterImage {
  const { width: w, height: h, data } = image;
  const stride = w + 2;
  const out = new Uint8ClampedArray(data);
  const coverage = boxCoverage(subject, w, h);
  const colour = [0, 0, 0];
  for (let y = 0; y < h; y++) {
    for (let x = 0, o = y * w * 4, cell = (y + 1) * stride + 1; x < w; x++, o += 4, cell++) {
      const covered = coverage[cell]!;
      if (covered === 9) continue;
      if (covered === 0) {
        out[o + 3] = 0;
        continue;
      }
      model.colourAt(x, y, colour);
      const distance = Math.hypot(data[o]! - colour[0]!, data[o + 1]! - colour[1]!, data[o + 2]! - colour[2]!);
      const ramp = Math.min(1, Math.max(0, (distance - model.threshold / 2) / (model.threshold * 1.5)));
      if (!subject[cell]) borrowSubjectColour(data, subject, stride, cell, out, o);
      // Keep any transparency the input already had.
      out[o + 3] = Math.min((255 * (covered / 9 + ramp)) / 2, data[o + 3]!);
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * Subject cells in each 3x3 neighbourhood. The padding first repeats the image's edge, so a
 * subject cut off by the frame stays opaque at the frame instead of fading out.
 */
function boxCoverage(subject: Uint8Array, w: number, h: number): Uint8Array {
  const stride = w + 2;
  const padded = subject.slice();
  for (let y = 1; y <= h; y++) {
    padded[y * stride] = padded[y * stride + 1]!;
    padded[y * stride + w + 1] = padded[y * stride + w]!;
  }
  padded.copyWithin(0, stride, 2 * stride);
  padded.copyWithin((h + 1) * stride, h * stride, (h + 1) * stride);
  const rows = new Uint8Array(padded.length);
  for (let i = 1; i < padded.length - 1; i++) rows[i] = padded[i - 1]! + padded[i]! + padded[i + 1]!;
  const coverage = new Uint8Array(padded.length);
  for (let i = stride; i < padded.length - stride; i++) coverage[i] = rows[i - stride]! + rows[i]! + rows[i + stride]!;
  return coverage;
}

/** Writes into `out` at byte `o` the mean colour of the subject cells around `cell`. */
function borrowSubjectColour(data: Uint8ClampedArray, subject: Uint8Array, stride: number, cell: number, out: Uint8ClampedArray, o: number): void {
  let n = 0, r = 0, g = 0, b = 0;
  for (const step of [-stride - 1, -stride, -stride + 1, -1, 1, stride - 1, stride, stride + 1]) {
    const j = cell + step;
    if (!subject[j]) continue;
    // Cell j is pixel (jx - 1, jy - 1); its bytes start at ((jy - 1) * w + jx - 1) * 4.
    const jy = Math.floor(j / stride);
    const p = ((jy - 1) * (stride - 2) + (j - jy * stride) - 1) * 4;
    n++;
    r += data[p]!;
    g += data[p + 1]!;
    b += data[p + 2]!;
  }
  if (n === 0) return;
  out[o] = r / n;
  out[o + 1] = g / n;
  out[o + 2] = b / n;
}
