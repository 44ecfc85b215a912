// Seeded randomness for the local renderers. Everything they draw is a pure function of
// (prompt, seed, size), so the same request always gives the same bytes and a new seed a new
// picture. Integer-only (mulberry32, FNV-1a) so the sequence is identical on every machine.

/** FNV-1a over the UTF-16 code units: a stable 32-bit hash of a word or a whole prompt. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  range(min: number, max: number): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    range: (min, max) => min + (max - min) * next(),
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** One seed from the words and the request seed, so a prompt and a seed each change the picture. */
export function sceneSeed(prompt: string, seed: number): number {
  return (hashText(prompt.trim().toLowerCase()) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0;
}
