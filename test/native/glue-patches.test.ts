// scripts/patch-codecs.ts runs after every `npm install`: the codecs work without its patches
// only until a HEIC's chroma plane lies near the top of libheif's memory (a photo-like
// 2000x2000 HEIC did: RangeError out of the glue), so a missing patch must fail here.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const GLUE = path.resolve(import.meta.dirname, "../../node_modules/libheif-js/libheif-wasm/libheif.js");

describe("codec glue patches", () => {
  it("libheif-js ends a plane's view at the end of WASM memory, copies inputs with one set(), and needs no __dirname", () => {
    const glue = readFileSync(GLUE, "utf8");
    expect(glue).toContain("return new n(A.buffer,d,Math.min(l,(A.buffer.byteLength-d)/n.BYTES_PER_ELEMENT|0))}");
    expect(glue).not.toContain("return new n(A.buffer,d,l)}");
    expect(glue).toContain("else M.set(n,d);return");
    expect(glue).toContain('U=(typeof __dirname=="string"?__dirname:".")+"/"');
    expect(glue).not.toContain('U=__dirname+"/"');
  });
});
