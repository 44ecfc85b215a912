// PNG row filtering for the encoder: per row, the filter whose output has the smallest sum of
// absolute (signed) residuals, the heuristic libpng uses with PNG_ALL_FILTERS (sharp's
// `adaptiveFiltering: true`).
//
// Speed: this runs over every byte of a lossless PNG, and trying all five filters on every
// byte cost more than zlib itself (npm run bench:codecs). The five sums are estimated instead
// on every 7th or 8th byte of the row (sampleStep), in one loop; only the winner is then computed
// in full. A filter's residual at a byte depends only on that byte and its neighbours to the left
// and above, so the sample is an unbiased estimate of the full sum; with a step coprime to
// the pixel size every channel is sampled. On the benchmark's photos the files come out within
// 0.1% of trying every byte (every 4th or 5th byte: 0.03% smaller still, 8 ms more at 1 MP).

/** Sample every 8th byte of 3-byte (RGB) pixels, every 7th of 1-, 2- and 4-byte ones: coprime. */
const sampleStep = (bpp: number) => (bpp === 3 ? 8 : 7);

/**
 * Residual cost of one filtered byte: its distance from 0 as a signed byte. Branch-free, like
 * paeth() below: on photographic rows the branches would go either way at random, and
 * mispredicted branches were most of this loop's time.
 */
function cost(residual: number): number {
  return abs((residual << 24) >> 24); // the low byte, sign-extended
}

const enum Filter {
  None = 0,
  Sub = 1,
  Up = 2,
  Average = 3,
  Paeth = 4,
}

export class RowFilter {
  private readonly bpp: number;
  private row = 0;

  constructor(bpp: number) {
    this.bpp = bpp;
  }

  /** Writes filter type + filtered `raw` (with `prev` the unfiltered row above) into `target`. */
  filter(raw: Uint8Array, prev: Uint8Array, target: Uint8Array): void {
    const type = this.choose(raw, prev);
    target[0] = type;
    applyFilter(type, raw, prev, this.bpp, target);
    this.row++;
  }

  private choose(raw: Uint8Array, prev: Uint8Array): Filter {
    const bpp = this.bpp;
    const n = raw.length;
    // Rows shorter than a few samples are not worth estimating: try them in full.
    const step = n < 64 ? 1 : sampleStep(bpp);
    let sNone = 0, sSub = 0, sUp = 0, sAvg = 0, sPaeth = 0;
    for (let i = bpp + (this.row % step); i < n; i += step) {
      const x = raw[i]!;
      const a = raw[i - bpp]!;
      const b = prev[i]!;
      const c = prev[i - bpp]!;
      sNone += cost(x);
      sSub += cost(x - a);
      sUp += cost(x - b);
      sAvg += cost(x - ((a + b) >> 1));
      sPaeth += cost(x - paeth(a, b, c));
    }
    let type = Filter.None;
    let best = sNone;
    if (sSub < best) (type = Filter.Sub), (best = sSub);
    if (sUp < best) (type = Filter.Up), (best = sUp);
    if (sAvg < best) (type = Filter.Average), (best = sAvg);
    if (sPaeth < best) type = Filter.Paeth;
    return type;
  }
}

/**
 * The PNG Paeth predictor: whichever of a (left), b (above) and c (above left) is closest to
 * a + b - c, ties going to a, then b. Computed with sign masks instead of branches.
 */
export function paeth(a: number, b: number, c: number): number {
  const pa = abs(b - c);
  const pb = abs(a - c);
  const pc = abs(a + b - c - c);
  // -1 when c is closer than b: the runner-up is then c, else b.
  const runnerUp = b ^ ((b ^ c) & ((pc - pb) >> 31));
  // -1 when b or c is strictly closer than a.
  const notA = ((pb - pa) | (pc - pa)) >> 31;
  return a ^ ((a ^ runnerUp) & notA);
}

function abs(v: number): number {
  const sign = v >> 31;
  return (v ^ sign) - sign;
}

/** Writes `raw` filtered with `type` into target[1..]. Left of the first pixel a = c = 0. */
function applyFilter(type: Filter, raw: Uint8Array, prev: Uint8Array, bpp: number, target: Uint8Array): void {
  const n = raw.length;
  const head = Math.min(bpp, n);
  switch (type) {
    case Filter.None:
      target.set(raw, 1);
      return;
    case Filter.Sub:
      for (let i = 0; i < head; i++) target[i + 1] = raw[i]!;
      for (let i = bpp; i < n; i++) target[i + 1] = raw[i]! - raw[i - bpp]!;
      return;
    case Filter.Up:
      for (let i = 0; i < n; i++) target[i + 1] = raw[i]! - prev[i]!;
      return;
    case Filter.Average:
      for (let i = 0; i < head; i++) target[i + 1] = raw[i]! - (prev[i]! >> 1);
      for (let i = bpp; i < n; i++) target[i + 1] = raw[i]! - ((raw[i - bpp]! + prev[i]!) >> 1);
      return;
    case Filter.Paeth:
      for (let i = 0; i < head; i++) target[i + 1] = raw[i]! - prev[i]!;
      for (let i = bpp; i < n; i++) target[i + 1] = raw[i]! - paeth(raw[i - bpp]!, prev[i]!, prev[i - bpp]!);
      return;
  }
}
