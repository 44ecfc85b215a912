// Writes test/fixtures/route-cases.ts: the files whose route the header alone must tell apart
// from their ordinary neighbours (test/codecs/route-table.test.ts). Run again only to change them:
//
//   node scripts/make-route-fixtures.ts
//
// - cmykJpeg:        a 40x30 CMYK JPEG (sharp; Adobe marker, transform 0): our own JPEG readers
//                    take YCbCr and grey only, so it is read by the general path.
// - gridOddTurned:   a 119x99 picture as a grid of 64x64 tiles turned a quarter by irot
//                    (scripts/heic-grid.ts, heif-enc from libheif-examples): odd sides, whose
//                    2x2 chroma cells a turn would split, so its whole planes come from libheif.
import { writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { gridHeic } from "./heic-grid.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.join(ROOT, "test/fixtures/route-cases.ts");

/** Red rising left to right, green top to bottom, blue in one quadrant. */
function gradients(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      data.set([Math.floor((x * 255) / width), Math.floor((y * 255) / height), x < width / 2 && y < height / 2 ? 200 : 40], at);
    }
  }
  return data;
}

const raw = (width: number, height: number) => sharp(gradients(width, height), { raw: { width, height, channels: 3 } });
const cmykJpeg = await raw(40, 30).toColourspace("cmyk").jpeg({ quality: 90 }).toBuffer();
const gridOddTurned = await gridHeic(raw(119, 99), 119, 99, { tileWidth: 64, tileHeight: 64, args: ["-q", "90"], turns: 1 });
const lines = [
  "// Written by scripts/make-route-fixtures.ts (sharp; heif-enc from libheif-examples); do not edit.",
  `export const CMYK_JPEG = "${cmykJpeg.toString("base64")}";`,
  `export const GRID_ODD_TURNED_HEIC = "${gridOddTurned.toString("base64")}";`,
  "",
];
writeFileSync(OUT, lines.join("\n"));
console.log(`wrote ${path.relative(ROOT, OUT)} (${cmykJpeg.length}, ${gridOddTurned.length} bytes)`);
