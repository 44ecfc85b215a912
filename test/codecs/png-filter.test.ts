// The PNG encoder's row filter choice (src/codecs/png-filter.ts): whatever filter it picks, the
// row must come back exactly when unfiltered the way the PNG spec says, for every pixel size
// and row length (including rows too short to sample), and a row that one filter turns into
// zeros must get that filter.

import { describe, expect, it } from "vitest";
import { paeth, RowFilter } from "../../src/codecs/png-filter.ts";
import { prng } from "../support/prng.ts";

/** The PNG specification's Paeth predictor, as the specification writes it. */
function specPaeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The PNG specification's reconstruction, written independently of the codec's decoder. */
function unfilter(type: number, filtered: Uint8Array, prev: Uint8Array, bpp: number): Uint8Array {
  const out = new Uint8Array(filtered.length);
  for (let i = 0; i < filtered.length; i++) {
    const a = i >= bpp ? out[i - bpp]! : 0;
    const b = prev[i]!;
    const c = i >= bpp ? prev[i - bpp]! : 0;
    let predictor = 0;
    if (type === 1) predictor = a;
    else if (type === 2) predictor = b;
    else if (type === 3) predictor = (a + b) >> 1;
    else if (type === 4) predictor = specPaeth(a, b, c);
    out[i] = (filtered[i]! + predictor) & 0xff;
  }
  return out;
}

/** Rows of different character: noise, smooth ramps, flat runs, and mixtures of them. */
function rows(length: number, count: number, seed: number): Uint8Array[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, y) => {
    const row = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      const kind = y % 8 < 4 ? y % 4 : (y + (i >> 5)) % 4; // whole rows of one kind, then mixed rows
      row[i] = kind === 0 ? Math.floor(random() * 256) : kind === 1 ? (i * 3 + y) & 0xff : kind === 2 ? 90 : (y * 7 + Math.floor(random() * 6)) & 0xff;
    }
    return row;
  });
}

describe("PNG row filter", () => {
  for (const bpp of [1, 2, 3, 4]) {
    for (const pixels of [1, 5, 21, 64, 333]) {
      it(`round-trips ${pixels} pixels of ${bpp} bytes`, () => {
        const length = pixels * bpp;
        const filter = new RowFilter(bpp);
        let prev: Uint8Array = new Uint8Array(length);
        const seen = new Set<number>();
        for (const raw of rows(length, 40, bpp * 1000 + pixels)) {
          const target = new Uint8Array(length + 1);
          filter.filter(raw, prev, target);
          expect(target[0]).toBeLessThanOrEqual(4);
          seen.add(target[0]!);
          expect(unfilter(target[0]!, target.subarray(1), prev, bpp)).toEqual(raw);
          prev = raw;
        }
        // Mixed content must not collapse onto one filter for rows long enough to differ.
        if (pixels >= 64) expect(seen.size).toBeGreaterThan(1);
      });
    }
  }

  it("the branch-free Paeth predictor equals the specification's for every byte triple", () => {
    let mismatches = 0;
    let first = "";
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        for (let c = 0; c < 256; c++) {
          if (paeth(a, b, c) === specPaeth(a, b, c)) continue;
          mismatches++;
          first ||= `paeth(${a}, ${b}, ${c}) = ${paeth(a, b, c)}, spec ${specPaeth(a, b, c)}`;
        }
      }
    }
    expect(first).toBe("");
    expect(mismatches).toBe(0);
  });

  it("picks the filter that turns a row into zeros", () => {
    const random = prng(5);
    const length = 300 * 3;
    const noise = Uint8Array.from({ length }, () => Math.floor(random() * 256));
    const cases: [string, Uint8Array, Uint8Array, number][] = [
      ["up: the row repeats the one above", noise, noise, 2],
      ["sub: a flat row under noise", noise, new Uint8Array(length).fill(200), 1],
      ["none: zeros under noise", noise, new Uint8Array(length), 0],
    ];
    for (const [what, prev, raw, expected] of cases) {
      const target = new Uint8Array(length + 1);
      new RowFilter(3).filter(raw, prev, target);
      // A row of zeros is zeros under None and Sub alike; ties go to None (tried first).
      expect(target[0], what).toBe(expected);
      expect(target.subarray(1 + 3).every((v) => v === 0), what).toBe(true);
    }
  });
});
