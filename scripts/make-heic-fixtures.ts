// Writes test/fixtures/heic.ts: small HEIC files for the codec and hostile-input tests, made
// with Debian's heif-enc (apt-get install libheif-examples) from pictures sharp draws, so the
// tests know exactly which colour sits where. Run again only to change the fixtures:
//
//   node scripts/make-heic-fixtures.ts
//
// - quadrants: 64x48, red | green over blue | yellow, no transformation.
// - turned:    the same file with its colour-profile property rewritten in place as an `irot`
//              of 270 degrees anticlockwise (a portrait phone photo's 90 degree clockwise turn).
//              The box keeps its size, so no offset in the file moves; libheif reads the angle
//              from the first byte and skips the rest.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.join(ROOT, "test/fixtures/heic.ts");
const QUADRANT_COLOURS = [
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
  [255, 255, 0],
] as const;

function quadrants(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const colour = QUADRANT_COLOURS[(x < width / 2 ? 0 : 1) + (y < height / 2 ? 0 : 2)]!;
      data.set(colour, (y * width + x) * 3);
    }
  }
  return data;
}

/** The file with its first `colr` property box turned into an `irot` of the same size. */
function withTurn(heic: Buffer, angleCode: number): Buffer {
  const out = Buffer.from(heic);
  const at = out.indexOf("colr");
  if (at < 4) throw new Error("heif-enc wrote no colr property to rewrite");
  out.write("irot", at, "latin1");
  out[at + 4] = angleCode;
  return out;
}

const dir = mkdtempSync(path.join(os.tmpdir(), "pixelgate-heic-"));
try {
  const png = path.join(dir, "quadrants.png");
  await sharp(quadrants(64, 48), { raw: { width: 64, height: 48, channels: 3 } }).withIccProfile("srgb").png().toFile(png);
  const heicPath = path.join(dir, "quadrants.heic");
  execFileSync("heif-enc", ["-q", "90", "-o", heicPath, png], { stdio: "ignore" });
  const quadrantsHeic = readFileSync(heicPath);
  const turned = withTurn(quadrantsHeic, 3);
  const lines = [
    "// Written by scripts/make-heic-fixtures.ts (heif-enc from libheif-examples); do not edit.",
    `export const QUADRANTS_HEIC = "${quadrantsHeic.toString("base64")}";`,
    `export const TURNED_HEIC = "${turned.toString("base64")}";`,
    "",
  ];
  writeFileSync(OUT, lines.join("\n"));
  console.log(`wrote ${path.relative(ROOT, OUT)} (${quadrantsHeic.length} and ${turned.length} bytes)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
