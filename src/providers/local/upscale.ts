// The local upscaler (model local-lanczos-v1): separable Lanczos-3 resampling, not a neural
// model. It adds no detail; it enlarges with sharp edges and little ringing, which is the best
// a classical filter can do. Because the factor is an integer, output pixel x always sits at the
// same fractional offset from its source pixels for a given x % factor, so the filter weights
// are computed once per phase (factor sets of 6 taps) instead of once per output pixel.

import type { RasterImage, RasterRows } from "../../codecs/formats.ts";
import { rasterPicture, type PictureRows } from "../../codecs/picture-rows.ts";
import type { ScaleFactor } from "../types.ts";
import { assertUpscaleFits, UPSCALE_OUTPUT_LIMITS } from "../upscale-limits.ts";
import { premultiplyInto, unpremultiplyInto } from "./edit/alpha.ts";

const LOBES = 3;
/** Source pixels inside the window of one output pixel (the window is 2 * LOBES wide). */
const TAPS = 2 * LOBES;

/** Output rows handed out at once by upscaleRows: a band of at most this many bytes (1 MB). */
const BAND_BYTES = 1 << 20;

/**
 * The picture enlarged to exactly width*factor x height*factor with a Lanczos-3 filter, as bands
 * of whole RGBA rows, top to bottom, each band made only when asked for. The source is read a
 * band at a time too (codecs/picture-rows.ts: a JPEG, PNG or WebP through the row source), each
 * row once, as the window moves down it: what is held meanwhile is the source's current band
 * and a few of its rows widened (float, the 6 the vertical taps read and the next), never the
 * output, which at 8192 x 8192 would be 256 MB. Each band is a view of one buffer, valid until
 * the next is asked for (the arrays are reused, so the garbage they would leave between
 * collections does not count against the isolate). `alpha`: whether any output pixel may be
 * translucent (the source may be).
 */
export function upscaleRows(source: PictureRows, factor: ScaleFactor): RasterRows {
  const transparent = source.alpha;
  return { width: source.width * factor, height: source.height * factor, alpha: transparent, bands: lanczosBands(source, factor, transparent) };
}

/** The image enlarged whole: for an upscale step of the local editor, whose next step reads the raster. */
export function upscaleLanczos(image: RasterImage, factor: ScaleFactor): RasterImage {
  assertUpscaleFits(image.width, image.height, factor, "image", UPSCALE_OUTPUT_LIMITS.raster);
  const { width, height, bands } = upscaleRows(rasterPicture(image), factor);
  const out = new Uint8ClampedArray(width * height * 4);
  let at = 0;
  for (const band of bands) {
    out.set(band, at);
    at += band.length;
  }
  return { width, height, data: out };
}

function* lanczosBands(source: PictureRows, factor: ScaleFactor, transparent: boolean): Generator<Uint8ClampedArray> {
  const { width: w, height: h } = source;
  const ow = w * factor;
  const oh = h * factor;
  const rowLength = ow * 4;
  const phases = phaseWeights(factor);
  const widen = rowWidener(w, sourceRows(source), factor, phases);
  // Widened source rows by row number (edges clamped): the vertical pass of an output row reads
  // 6 consecutive ones, and the window moves down one source row every `factor` output rows.
  // A row that drops out of the window lends its array to the next one widened.
  const widened = new Map<number, Float32Array>();
  const spare: Float32Array[] = [];
  const sourceRow = (y: number): Float32Array => {
    const sy = y < 0 ? 0 : y >= h ? h - 1 : y;
    let row = widened.get(sy);
    if (!row) {
      row = widen(sy, spare.pop() ?? new Float32Array(rowLength));
      widened.set(sy, row);
    }
    return row;
  };
  // One reusable output row in float, so a translucent image's row can be unpremultiplied.
  const floatRow = transparent ? new Float32Array(rowLength) : null;
  const bandRows = Math.max(1, Math.floor(BAND_BYTES / rowLength));
  const buffer = new Uint8ClampedArray(Math.min(bandRows, oh) * rowLength);
  for (let y0 = 0; y0 < oh; y0 += bandRows) {
    const rows = Math.min(bandRows, oh - y0);
    const band = buffer.subarray(0, rows * rowLength);
    for (let k = 0; k < rows; k++) {
      const oy = y0 + k;
      const phase = oy % factor;
      const first = Math.floor(oy / factor) + phases.first[phase]!;
      for (const [y, row] of widened) if (y < first) (widened.delete(y), spare.push(row)); // rows above the window are done with
      const wb = phase * TAPS;
      const wt = phases.weights;
      const w0 = wt[wb]!, w1 = wt[wb + 1]!, w2 = wt[wb + 2]!, w3 = wt[wb + 3]!, w4 = wt[wb + 4]!, w5 = wt[wb + 5]!;
      const a0 = sourceRow(first), a1 = sourceRow(first + 1), a2 = sourceRow(first + 2);
      const a3 = sourceRow(first + 3), a4 = sourceRow(first + 4), a5 = sourceRow(first + 5);
      const out = band.subarray(k * rowLength, (k + 1) * rowLength);
      const target = floatRow ?? out;
      for (let x = 0; x < rowLength; x++) {
        target[x] = w0 * a0[x]! + w1 * a1[x]! + w2 * a2[x]! + w3 * a3[x]! + w4 * a4[x]! + w5 * a5[x]!;
      }
      // An opaque image's result needs no unpremultiplying (alpha is 255 throughout), which
      // skips a divide per output pixel on the common case.
      if (floatRow) unpremultiplyInto(floatRow, out);
      else for (let x = 3; x < rowLength; x += 4) out[x] = 255;
    }
    yield band;
  }
}

/**
 * Row y of the source's RGBA bytes, for y never less than the last asked for: the bands are read
 * on as far as y's, so a row is valid only until a row of a later band is asked for (the
 * widener copies each row out as it is asked).
 */
function sourceRows(source: PictureRows): (y: number) => Uint8ClampedArray {
  const bands = source.bands()[Symbol.iterator]();
  const rowBytes = source.width * 4;
  let band: RasterImage | null = null;
  let top = 0;
  return (y) => {
    while (!band || y >= top + band.height) {
      if (band) top += band.height;
      const next = bands.next();
      if (next.done) throw new Error(`The picture's bands ended before row ${y} of ${source.height}.`);
      band = next.value;
    }
    if (y < top) throw new Error(`Source row ${y} was asked for after row ${top}: its band is gone.`);
    return band.data.subarray((y - top) * rowBytes, (y - top + 1) * rowBytes);
  };
}

/**
 * The horizontal pass, one source row at a time: row y widened to w*factor into `wide`,
 * premultiplied and kept in float (negative lobes included), so transparent pixels lend no colour.
 */
function rowWidener(w: number, rowOf: (y: number) => Uint8ClampedArray, factor: number, phases: Phases): (y: number, wide: Float32Array) => Float32Array {
  const ow = w * factor;
  // Byte offset within a source row of each tap of each output column, edges clamped.
  const taps = new Int32Array(ow * TAPS);
  for (let ox = 0; ox < ow; ox++) {
    const sx = Math.floor(ox / factor);
    const first = sx + phases.first[ox % factor]!;
    for (let k = 0; k < TAPS; k++) taps[ox * TAPS + k] = Math.min(w - 1, Math.max(0, first + k)) * 4;
  }
  const source = new Float32Array(w * 4);
  return (y, wide) => {
    premultiplyInto(rowOf(y), source);
    for (let ox = 0, o = 0; ox < ow; ox++, o += 4) {
      const wb = (ox % factor) * TAPS;
      const tb = ox * TAPS;
      let r = 0, g = 0, b = 0, a = 0;
      for (let k = 0; k < TAPS; k++) {
        const weight = phases.weights[wb + k]!;
        const s = taps[tb + k]!;
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
    return wide;
  };
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
