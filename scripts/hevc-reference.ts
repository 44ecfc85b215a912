// The samples Debian's own libde265 decodes from the test fixtures' HEVC images, as SHA-256
// digests, for test/codecs/heic-tiles.test.ts to hold our WASM build of the same decoder
// (src/codecs/native/pixelgate-hevc.wasm, with our patch to its SAO filter) to, byte for byte:
//
//   apt-get install libde265-examples && node scripts/hevc-reference.ts
//
// Each fixture's single coded image is written out as an Annex B stream (the hvcC's parameter
// sets, then the item's NAL units, each after a start code) and decoded by libde265-dec265,
// which writes the Y, Cb and Cr planes one after another, rows packed, two bytes a sample
// (little-endian) above 8 bits. The digest is of that file.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadCodecs, REPO_ROOT } from "./bench/codecs-service.ts";

type ReadLayout = (bytes: Uint8Array) => { image: { tiles: { hvcc: Uint8Array; data: () => Uint8Array }[] } } | null;

/** The item's parameter sets and NAL units as an Annex B byte stream. */
function annexB(hvcc: Uint8Array, data: Uint8Array): Buffer {
  const startCode = Buffer.from([0, 0, 0, 1]);
  const parts: Uint8Array[] = [];
  let at = 23;
  for (let array = 0; array < hvcc[22]!; array++) {
    const count = (hvcc[at + 1]! << 8) | hvcc[at + 2]!;
    at += 3;
    for (let k = 0; k < count; k++) {
      const length = (hvcc[at]! << 8) | hvcc[at + 1]!;
      parts.push(startCode, hvcc.subarray(at + 2, at + 2 + length));
      at += 2 + length;
    }
  }
  const lengthSize = (hvcc[21]! & 3) + 1;
  for (let p = 0; p < data.length; ) {
    let length = 0;
    for (let i = 0; i < lengthSize; i++) length = length * 256 + data[p + i]!;
    parts.push(startCode, data.subarray(p + lengthSize, p + lengthSize + length));
    p += lengthSize + length;
  }
  return Buffer.concat(parts);
}

await loadCodecs(); // the loader hooks that let Node import the service's TypeScript
const { readHeicLayout } = (await import(pathToFileURL(path.join(REPO_ROOT, "src/codecs/heic-layout.ts")).href)) as { readHeicLayout: ReadLayout };
const fixtures = (await import(pathToFileURL(path.join(REPO_ROOT, "test/fixtures/heic.ts")).href)) as Record<string, string>;
const dir = mkdtempSync(path.join(os.tmpdir(), "pixelgate-hevc-"));
try {
  for (const name of ["QUADRANTS_HEIC", "TEN_BIT_HEIC", "PHOTO_12MP_HEIC"]) {
    const [tile] = readHeicLayout(new Uint8Array(Buffer.from(fixtures[name]!, "base64")))!.image.tiles;
    const [stream, yuv] = [path.join(dir, "image.265"), path.join(dir, "image.yuv")];
    writeFileSync(stream, annexB(tile!.hvcc, tile!.data()));
    execFileSync("libde265-dec265", ["-q", "-o", yuv, stream], { stdio: "ignore" });
    console.log(`${name}: "${createHash("sha256").update(readFileSync(yuv)).digest("hex")}",`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
