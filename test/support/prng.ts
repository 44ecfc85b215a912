// A seeded generator shared by the hostile-input corpus and the codec benchmark, so their
// generated files are the same on every machine. No imports: plain Node loads it too.

/** mulberry32: small, fast, and the same sequence everywhere for a given seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
