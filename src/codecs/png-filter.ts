// The PNG Paeth predictor, as the decoder (png.ts) unfilters rows with it. The PNG writer's
// filters are native/png_filter.c's.

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
