// The committed WASM build must be the one native/manifest.json describes (scripts/build-wasm.sh
// writes both); CI never rebuilds it, so this is what ties the binary to its sources.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtOutputs, manifestMismatches, readManifest } from "../../scripts/native-manifest.ts";

const REPO = path.resolve(import.meta.dirname, "../..");

describe("native WASM build manifest", () => {
  it("lists every committed .wasm with its sha256, and they match", () => {
    expect(Object.keys(builtOutputs())).toEqual(["src/codecs/native/pixelgate-codecs.wasm", "src/codecs/native/pixelgate-hevc.wasm"]);
    expect(Object.keys(readManifest().hevc?.outputs ?? {})).toEqual(["src/codecs/native/pixelgate-hevc.wasm"]);
    expect(manifestMismatches()).toEqual([]);
  });

  it("pins the Debian source tarballs the build script checks", () => {
    const manifest = readManifest();
    const pinned = readFileSync(path.join(REPO, "native/sources.sha256"), "utf8").trim().split("\n");
    expect(Object.keys(manifest.sources).sort()).toEqual(["libdeflate", "libjpeg-turbo", "libspng", "libwebp", "zlib"]);
    for (const line of pinned) {
      const [hash, file] = line.split(/\s+/);
      expect(manifest.sources[file!.split("_")[0]!]?.[file!]).toBe(hash);
    }
    expect(manifest.compiler).toMatch(/emcc .* 3\.1\.6/);
    expect(manifest.cflags).toContain("-msimd128");
  });
});

describe("HEVC decoder build manifest", () => {
  it("pins Debian's libde265 tarballs the HEVC build script checks, built as portable C++", () => {
    const hevc = readManifest().hevc;
    const pinned = readFileSync(path.join(REPO, "native/hevc-sources.sha256"), "utf8").trim().split("\n");
    expect(Object.keys(hevc?.sources ?? {})).toEqual(["libde265"]);
    for (const line of pinned) {
      const [hash, file] = line.split(/\s+/);
      expect(hevc?.sources.libde265?.[file!]).toBe(hash);
    }
    expect(hevc?.compiler).toMatch(/emcc .* 3\.1\.6/);
    // libde265's SSE code is left out (HAVE_SSE4_1 undefined), not emulated.
    expect(hevc?.cflags).not.toMatch(/-msse|HAVE_SSE/);
  });
});
