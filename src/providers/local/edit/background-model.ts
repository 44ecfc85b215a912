// The background model behind the local cut-out (cutout.ts) and the "remove the background"
// edit: a colour surface fitted to the image border. Each channel is a quadratic in the pixel
// position, c(u, v) = a0 + a1 u + a2 v + a3 uv + a4 u^2 + a5 v^2 with u, v in -1..1, which
// covers a flat backdrop, a linear or diagonal gradient and a vignette or studio-sweep falloff.
//
// The fit must survive a subject that touches the border, so it is a least trimmed squares
// fit: starting from two guesses, refit on the half of the border samples the current surface
// explains best until that half stops improving. The surface is accepted only when its best
// samples are close (low noise) and it explains most of the border; a busy photo fails both.

import type { RasterImage } from "../../../codecs/formats.ts";

const TERMS = 6;
/** Border ring thickness sampled, in pixels. */
const RING = 2;
/** Upper bound on samples: enough for a stable 6-term fit, cheap to sort. */
const MAX_SAMPLES = 2048;
/** RGB distance from the surface under which a pixel reads as background, at the least. */
const MIN_THRESHOLD = 24;
/** Distance at the 30th percentile of border residuals above which the border is not a backdrop. */
const MAX_BORDER_NOISE = 8;
/** Share of the border the surface must explain (the rest may be subject touching the edge). */
const MIN_BORDER_SHARE = 0.6;

export interface BackgroundModel {
  /** RGB distance under which a pixel reads as background. */
  threshold: number;
  /** The modelled background colour at (x, y), written to `out` as r, g, b. */
  colourAt(x: number, y: number, out: number[]): void;
  /** Per pixel, 1 when it reads as background (close to the surface, or transparent), else 0. */
  classify(image: RasterImage): Uint8Array;
}

interface Samples {
  u: Float64Array;
  v: Float64Array;
  rgb: Float64Array;
  n: number;
}

/** The border's background surface, or null when the border is not a plain or smooth backdrop. */
export function fitBorderModel(image: RasterImage): BackgroundModel | null {
  const samples = borderSamples(image);
  const { residuals } = trimmedFit(samples);
  const sorted = Float64Array.from(residuals).sort();
  const noise = sorted[Math.floor(samples.n * 0.3)]!;
  if (noise > MAX_BORDER_NOISE) return null;
  const threshold = Math.max(MIN_THRESHOLD, 3.5 * noise);
  // Refit on every sample the surface explains, not just the best half.
  const inliers = residuals.map((r) => (r < threshold ? 1 : 0));
  const final = fitSurface(samples, Uint8Array.from(inliers));
  let explained = 0;
  for (const r of residualsOf(samples, final)) if (r < threshold) explained++;
  if (explained < samples.n * MIN_BORDER_SHARE) return null;
  return surfaceModel(final, image.width, image.height, threshold);
}

function borderSamples(image: RasterImage): Samples {
  const { width: w, height: h, data } = image;
  const ring: number[] = [];
  for (let y = 0; y < h; y++) {
    const edgeRow = y < RING || y >= h - RING;
    for (let x = 0; x < w; x++) {
      if (edgeRow || x < RING || x >= w - RING) ring.push(y * w + x);
      else x = w - RING - 1; // jump across the interior of the row
    }
  }
  const step = Math.ceil(ring.length / MAX_SAMPLES);
  const n = Math.ceil(ring.length / step);
  const samples: Samples = { u: new Float64Array(n), v: new Float64Array(n), rgb: new Float64Array(n * 3), n };
  for (let s = 0; s < n; s++) {
    const i = ring[s * step]!;
    samples.u[s] = normalised(i % w, w);
    samples.v[s] = normalised(Math.floor(i / w), h);
    samples.rgb.set(data.subarray(i * 4, i * 4 + 3), s * 3);
  }
  return samples;
}

function normalised(position: number, size: number): number {
  return size > 1 ? (2 * position) / (size - 1) - 1 : 0;
}

function basis(u: number, v: number, out: Float64Array): void {
  out[0] = 1;
  out[1] = u;
  out[2] = v;
  out[3] = u * v;
  out[4] = u * u;
  out[5] = v * v;
}

/** Least trimmed squares over half the samples, from a flat median start and a plain fit. */
function trimmedFit(samples: Samples): { coefficients: Float64Array; residuals: Float64Array } {
  const half = Math.ceil(samples.n / 2);
  let best: { coefficients: Float64Array; residuals: Float64Array; score: number } = {
    coefficients: new Float64Array(0),
    residuals: new Float64Array(0),
    score: Infinity,
  };
  for (const start of [medianSurface(samples), fitSurface(samples, null)]) {
    let coefficients = start;
    let previous = Infinity;
    for (let step = 0; step < 10; step++) {
      const residuals = residualsOf(samples, coefficients);
      const sorted = Float64Array.from(residuals).sort();
      let score = 0;
      for (let i = 0; i < half; i++) score += sorted[i]! * sorted[i]!;
      if (score < best.score) best = { coefficients, residuals, score };
      if (score >= previous * 0.999) break;
      previous = score;
      const cutoff = sorted[half - 1]!;
      coefficients = fitSurface(samples, residuals.map((r) => (r <= cutoff ? 1 : 0)));
    }
  }
  return best;
}

function medianSurface(samples: Samples): Float64Array {
  const coefficients = new Float64Array(3 * TERMS);
  for (let c = 0; c < 3; c++) {
    const channel = new Float64Array(samples.n);
    for (let s = 0; s < samples.n; s++) channel[s] = samples.rgb[s * 3 + c]!;
    coefficients[c * TERMS] = channel.sort()[Math.floor(samples.n / 2)]!;
  }
  return coefficients;
}

function residualsOf(samples: Samples, coefficients: Float64Array): Float64Array {
  const residuals = new Float64Array(samples.n);
  const b = new Float64Array(TERMS);
  for (let s = 0; s < samples.n; s++) {
    basis(samples.u[s]!, samples.v[s]!, b);
    let sum = 0;
    for (let c = 0; c < 3; c++) {
      let predicted = 0;
      for (let t = 0; t < TERMS; t++) predicted += coefficients[c * TERMS + t]! * b[t]!;
      const d = samples.rgb[s * 3 + c]! - predicted;
      sum += d * d;
    }
    residuals[s] = Math.sqrt(sum);
  }
  return residuals;
}

/** Least squares over the samples marked in `use` (all when null): normal equations, 3 RHS. */
function fitSurface(samples: Samples, use: Uint8Array | Float64Array | null): Float64Array {
  // Augmented matrix: TERMS rows of [A^T A | A^T r | A^T g | A^T b].
  const cols = TERMS + 3;
  const m = new Float64Array(TERMS * cols);
  const b = new Float64Array(TERMS);
  let used = 0;
  for (let s = 0; s < samples.n; s++) {
    if (use && !use[s]) continue;
    used++;
    basis(samples.u[s]!, samples.v[s]!, b);
    for (let i = 0; i < TERMS; i++) {
      for (let j = 0; j < TERMS; j++) m[i * cols + j] = m[i * cols + j]! + b[i]! * b[j]!;
      for (let c = 0; c < 3; c++) m[i * cols + TERMS + c] = m[i * cols + TERMS + c]! + b[i]! * samples.rgb[s * 3 + c]!;
    }
  }
  // A small ridge keeps the system solvable when the samples cannot pin every term (a one-pixel
  // wide image, a border that is all one edge); the unpinned terms then stay near 0.
  for (let i = 0; i < TERMS; i++) m[i * cols + i] = m[i * cols + i]! + 1e-6 * (used + 1);
  return solve(m, cols);
}

/** Gauss-Jordan elimination with partial pivoting; returns coefficients [channel * TERMS + term]. */
function solve(m: Float64Array, cols: number): Float64Array {
  for (let col = 0; col < TERMS; col++) {
    let pivot = col;
    for (let r = col + 1; r < TERMS; r++) if (Math.abs(m[r * cols + col]!) > Math.abs(m[pivot * cols + col]!)) pivot = r;
    for (let k = 0; k < cols; k++) {
      const t = m[col * cols + k]!;
      m[col * cols + k] = m[pivot * cols + k]!;
      m[pivot * cols + k] = t;
    }
    const p = m[col * cols + col]!;
    for (let k = 0; k < cols; k++) m[col * cols + k] = m[col * cols + k]! / p;
    for (let r = 0; r < TERMS; r++) {
      const f = m[r * cols + col]!;
      if (r === col || f === 0) continue;
      for (let k = 0; k < cols; k++) m[r * cols + k] = m[r * cols + k]! - f * m[col * cols + k]!;
    }
  }
  const coefficients = new Float64Array(3 * TERMS);
  for (let c = 0; c < 3; c++) for (let t = 0; t < TERMS; t++) coefficients[c * TERMS + t] = m[t * cols + TERMS + c]!;
  return coefficients;
}

function surfaceModel(k: Float64Array, width: number, height: number, threshold: number): BackgroundModel {
  const b = new Float64Array(TERMS);
  return {
    threshold,
    colourAt(x, y, out) {
      basis(normalised(x, width), normalised(y, height), b);
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let t = 0; t < TERMS; t++) sum += k[c * TERMS + t]! * b[t]!;
        out[c] = sum;
      }
    },
    classify(image) {
      const { data } = image;
      const background = new Uint8Array(width * height);
      const limit = threshold * threshold;
      for (let y = 0; y < height; y++) {
        const v = normalised(y, height);
        // Along a row the surface is a quadratic in u: c = p + q u + s u^2.
        const p0 = k[0]! + k[2]! * v + k[5]! * v * v, q0 = k[1]! + k[3]! * v, s0 = k[4]!;
        const p1 = k[6]! + k[8]! * v + k[11]! * v * v, q1 = k[7]! + k[9]! * v, s1 = k[10]!;
        const p2 = k[12]! + k[14]! * v + k[17]! * v * v, q2 = k[13]! + k[15]! * v, s2 = k[16]!;
        for (let x = 0, i = y * width; x < width; x++, i++) {
          const u = normalised(x, width);
          const o = i * 4;
          const dr = data[o]! - (p0 + u * (q0 + u * s0));
          const dg = data[o + 1]! - (p1 + u * (q1 + u * s1));
          const db = data[o + 2]! - (p2 + u * (q2 + u * s2));
          background[i] = dr * dr + dg * dg + db * db < limit || data[o + 3] === 0 ? 1 : 0;
        }
      }
      return background;
    },
  };
}
