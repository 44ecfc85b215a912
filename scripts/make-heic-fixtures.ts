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
// - alpha:     the quadrants with the right half fully transparent (an alpha auxiliary image).
// - bt709:     the quadrants file with its ICC colour property rewritten in place as an nclx
//              box saying BT.709 matrix, studio range (heif-enc 1.15 writes no nclx of its own).
//              The samples stay as coded, so every reader shows other colours than drawn: a
//              test compares our conversion with libheif's own, which follows the box.
// - tenBit:    the quadrants at 10 bits a sample (from a 16-bit PNG).
// - photo12:   a 4032x3024 picture (two gradients, a checker of four blocks) at quality 30:
//              a 12 MP phone-sized HEIC that stays small (about 36 KB).
// - grid:      a 120x100 picture (red rising left to right, green top to bottom, blue high in
//              two opposite blocks) as a grid of 64x64 tiles, the way phones store photos
//              (scripts/heic-grid.ts): the last row and column reach past the picture.
// - gridAlpha: the same grid with an alpha grid (rows 28-31 of every tile row transparent).
// - gridTurned: the grid with an irot of 90 degrees anticlockwise.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { gridHeic } from "./heic-grid.ts";

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

/** The file with its first `colr` property rewritten as nclx: BT.709 primaries and transfer, `matrix`, `fullRange`. */
function withNclx(heic: Buffer, matrix: number, fullRange: boolean): Buffer {
  const out = Buffer.from(heic);
  const at = out.indexOf("colr");
  if (at < 4) throw new Error("heif-enc wrote no colr property to rewrite");
  out.write("nclx", at + 4, "latin1");
  out.writeUInt16BE(1, at + 8);
  out.writeUInt16BE(1, at + 10);
  out.writeUInt16BE(matrix, at + 12);
  out[at + 14] = fullRange ? 0x80 : 0;
  return out;
}

/** RGB rows as RGBA, opaque on the left half and fully transparent on the right. */
function withRightHalfClear(rgb: Buffer, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgb.copy(out, i * 4, i * 3, i * 3 + 3);
    out[i * 4 + 3] = i % width < width / 2 ? 255 : 0;
  }
  return out;
}

/** RGB rows as RGBA, rows 28-31 of every 64 fully transparent (one band in each grid tile row). */
function withRowsClear(rgb: Buffer, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgb.copy(out, i * 4, i * 3, i * 3 + 3);
    const row = Math.floor(i / width) % 64;
    out[i * 4 + 3] = row >= 28 && row < 32 ? 0 : 255;
  }
  return out;
}

/** Red rising left to right, green top to bottom, blue high in two opposite blocks of a 2x2 checker. */
function gradients(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      data[at] = Math.floor((x * 255) / width);
      data[at + 1] = Math.floor((y * 255) / height);
      data[at + 2] = x < width / 2 !== y < height / 2 ? 200 : 40;
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
  const encode = async (name: string, image: ReturnType<typeof sharp>, args: string[]): Promise<Buffer> => {
    const source = path.join(dir, `${name}.png`);
    const target = path.join(dir, `${name}.heic`);
    await image.png({ compressionLevel: 1 }).toFile(source);
    execFileSync("heif-enc", [...args, "-o", target, source], { stdio: "ignore" });
    return readFileSync(target);
  };
  const raw = (data: Buffer, width: number, height: number, channels: 3 | 4) => sharp(data, { raw: { width, height, channels } });
  const alpha = await encode("alpha", raw(withRightHalfClear(quadrants(64, 48), 64, 48), 64, 48, 4), ["-q", "90"]);
  const bt709 = withNclx(quadrantsHeic, 1, false);
  const tenBit = await encode("ten-bit", raw(quadrants(64, 48), 64, 48, 3).toColourspace("rgb16"), ["-q", "90", "-b", "10"]);
  const gridPixels = withRowsClear(gradients(120, 100), 120, 100);
  const gridImage = () => raw(gridPixels, 120, 100, 4);
  const tiles = { tileWidth: 64, tileHeight: 64, args: ["-q", "90"] };
  const grid = await gridHeic(gridImage().removeAlpha(), 120, 100, tiles);
  const gridAlpha = await gridHeic(gridImage(), 120, 100, tiles);
  const gridTurned = await gridHeic(gridImage().removeAlpha(), 120, 100, { ...tiles, turns: 1 });
  const photo12 = await encode("photo12", raw(gradients(4032, 3024), 4032, 3024, 3), ["-q", "30"]);
  const lines = [
    "// Written by scripts/make-heic-fixtures.ts (heif-enc from libheif-examples); do not edit.",
    `export const QUADRANTS_HEIC = "${quadrantsHeic.toString("base64")}";`,
    `export const TURNED_HEIC = "${turned.toString("base64")}";`,
    `export const ALPHA_HEIC = "${alpha.toString("base64")}";`,
    `export const BT709_STUDIO_HEIC = "${bt709.toString("base64")}";`,
    `export const TEN_BIT_HEIC = "${tenBit.toString("base64")}";`,
    `export const PHOTO_12MP_HEIC = "${photo12.toString("base64")}";`,
    `export const GRID_HEIC = "${grid.toString("base64")}";`,
    `export const GRID_ALPHA_HEIC = "${gridAlpha.toString("base64")}";`,
    `export const GRID_TURNED_HEIC = "${gridTurned.toString("base64")}";`,
    "",
  ];
  writeFileSync(OUT, lines.join("\n"));
  console.log(`wrote ${path.relative(ROOT, OUT)} (${[quadrantsHeic, turned, alpha, bt709, tenBit, photo12, grid, gridAlpha, gridTurned].map((b) => b.length).join(", ")} bytes)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
