// The PNG decoder's Paeth predictor (src/codecs/png-filter.ts) against the specification's. The
// writer's filters (native/png_filter.c) are tested through its files: png.test.ts.

import { describe, expect, it } from "vitest";
import { paeth } from "../../src/codecs/png-filter.ts";

/** The PNG specification's Paeth predictor, as the specification writes it. */
function specPaeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

describe("PNG Paeth predictor", () => {
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
});
