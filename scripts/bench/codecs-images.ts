// Deterministic "photo-like" test images for `npm run bench:codecs`, and the input files made
// from them. Random noise alone would be unfair to every codec (incompressible) and a flat
// gradient unfair the other way, so the picture mixes what photos have: smooth sky and lighting
// gradients, hard object edges, mid-frequency texture and per-pixel sensor grain. Features are
// placed in relative coordinates, so every size shows the same scene at a different resolution.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp, { type Sharp } from "sharp";
import { gridHeic } from "../heic-grid.ts";
// The same seeded generator the hostile-input corpus uses.
import { prng } from "../../test/support/prng.ts";

export interface Dimensions {
  width: number;
  height: number;
}

/** RGBA pixels, the layout of the service's RasterImage. */
export interface Pixels extends Dimensions {
  data: Uint8ClampedArray;
}

/** The scene's sizes for the megapixel counts the issue names; others get a 4:3 frame. */
export function dimensionsFor(megapixels: number): Dimensions {
  const known: Record<string, Dimensions> = {
    "0.25": { width: 500, height: 500 },
    "1": { width: 1000, height: 1000 },
    "4": { width: 2000, height: 2000 },
    "12": { width: 4000, height: 3000 },
    "24": { width: 6000, height: 4000 }, // a camera's 24 MP, the largest JPEG the service takes
  };
  const fixed = known[String(megapixels)];
  if (fixed) return fixed;
  const width = Math.round(Math.sqrt((megapixels * 1e6 * 4) / 3));
  return { width, height: Math.round((width * 3) / 4) };
}

/** An opaque photo-like image; with `alpha`, a cut-out with a feathered elliptical edge. */
export function photoLike({ width, height }: Dimensions, alpha: boolean): Pixels {
  const data = new Uint8ClampedArray(width * height * 4);
  const random = prng(20260801);
  paintBackground(data, width, height);
  paintShapes(data, width, height, random);
  addTextureAndGrain(data, width, height, random);
  if (alpha) cutOut(data, width, height);
  else for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { width, height, data };
}

/** Sky fading into ground at a soft horizon, under a slow separable lighting wave. */
function paintBackground(data: Uint8ClampedArray, width: number, height: number): void {
  const light = new Float32Array(width);
  for (let x = 0; x < width; x++) light[x] = 1 + 0.12 * Math.sin(2 * Math.PI * (x / width) * 1.3 + 0.7);
  for (let y = 0; y < height; y++) {
    const v = y / height;
    const ground = Math.min(1, Math.max(0, (v - 0.42) / 0.06)); // horizon band
    const sky = 1 - ground;
    const r = sky * (110 + 60 * v) + ground * (95 + 40 * (1 - v));
    const g = sky * (150 + 50 * v) + ground * (110 + 20 * v);
    const b = sky * (215 - 30 * v) + ground * (60 + 10 * v);
    const rowLight = 1 + 0.08 * Math.cos(2 * Math.PI * v * 0.9);
    for (let x = 0, o = y * width * 4; x < width; x++, o += 4) {
      const l = light[x]! * rowLight;
      data[o] = r * l;
      data[o + 1] = g * l;
      data[o + 2] = b * l;
    }
  }
}

/** A dozen shaded ellipses and rectangles with anti-aliased hard edges (buildings, objects). */
function paintShapes(data: Uint8ClampedArray, width: number, height: number, random: () => number): void {
  const scale = Math.min(width, height);
  for (let k = 0; k < 12; k++) {
    const cx = random() * width;
    const cy = (0.3 + random() * 0.7) * height;
    const rx = (0.04 + random() * 0.14) * scale;
    const ry = (0.04 + random() * 0.14) * scale;
    const ellipse = random() < 0.5;
    const color = [40 + random() * 200, 40 + random() * 200, 40 + random() * 200];
    const shade = 0.5 + random() * 0.5; // darker towards the bottom-right, as if lit from the top-left
    const x0 = Math.max(0, Math.floor(cx - rx - 1));
    const x1 = Math.min(width, Math.ceil(cx + rx + 1));
    const y0 = Math.max(0, Math.floor(cy - ry - 1));
    const y1 = Math.min(height, Math.ceil(cy + ry + 1));
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const dx = (x + 0.5 - cx) / rx;
        const dy = (y + 0.5 - cy) / ry;
        // Signed distance to the edge in pixels (approximate), turned into 1-pixel coverage.
        const inside = ellipse ? (1 - Math.hypot(dx, dy)) * Math.min(rx, ry) : Math.min((1 - Math.abs(dx)) * rx, (1 - Math.abs(dy)) * ry);
        const cover = Math.min(1, Math.max(0, inside + 0.5));
        if (cover === 0) continue;
        const l = 1 - (1 - shade) * (0.5 + 0.25 * (dx + dy));
        const o = (y * width + x) * 4;
        for (let c = 0; c < 3; c++) data[o + c] = data[o + c]! * (1 - cover) + color[c]! * l * cover;
      }
    }
  }
}

/** A grid of random values, bilinearly interpolated: smooth noise at one scale. */
class ValueNoise {
  private readonly grid: Float32Array;
  private readonly columns: number;
  private readonly cell: number;
  constructor(width: number, height: number, cell: number, random: () => number) {
    this.cell = cell;
    this.columns = Math.ceil(width / cell) + 2;
    this.grid = new Float32Array(this.columns * (Math.ceil(height / cell) + 2));
    for (let i = 0; i < this.grid.length; i++) this.grid[i] = random() * 2 - 1;
  }
  at(x: number, y: number): number {
    const gx = x / this.cell;
    const gy = y / this.cell;
    const ix = Math.floor(gx);
    const iy = Math.floor(gy);
    const fx = gx - ix;
    const fy = gy - iy;
    const g = this.grid;
    const k = iy * this.columns + ix;
    const top = g[k]! + (g[k + 1]! - g[k]!) * fx;
    const bottom = g[k + this.columns]! + (g[k + this.columns + 1]! - g[k + this.columns]!) * fx;
    return top + (bottom - top) * fy;
  }
}

/**
 * Texture in four octaves (cells of 1/40, 1/160 and 1/640 of the width, and 2.5 pixels: fields,
 * foliage, fine detail), stronger below the horizon, plus per-pixel grain of a few levels (mostly luma, a
 * little chroma), as a camera sensor gives.
 */
function addTextureAndGrain(data: Uint8ClampedArray, width: number, height: number, random: () => number): void {
  const octaves = [
    { noise: new ValueNoise(width, height, Math.max(2, width / 40), random), amplitude: 14 },
    { noise: new ValueNoise(width, height, Math.max(2, width / 160), random), amplitude: 10 },
    { noise: new ValueNoise(width, height, Math.max(2, width / 640), random), amplitude: 8 },
    // Fine detail at a fixed pixel scale (grass, hair, fabric), as a sharp lens resolves it.
    { noise: new ValueNoise(width, height, 2.5, random), amplitude: 12 },
  ];
  for (let y = 0; y < height; y++) {
    const strength = y / height > 0.45 ? 1 : 0.3;
    for (let x = 0, o = y * width * 4; x < width; x++, o += 4) {
      let texture = 0;
      for (const { noise, amplitude } of octaves) texture += noise.at(x, y) * amplitude;
      texture *= strength;
      const luma = (random() + random() - 1) * 7;
      data[o] = data[o]! + texture + luma + (random() - 0.5) * 3;
      data[o + 1] = data[o + 1]! + texture + luma + (random() - 0.5) * 3;
      data[o + 2] = data[o + 2]! + texture * 0.8 + luma + (random() - 0.5) * 3;
    }
  }
}

/** Alpha: opaque inside a centred ellipse, a feathered edge of 3% of the width, clear outside. */
function cutOut(data: Uint8ClampedArray, width: number, height: number): void {
  const feather = 0.03 * width;
  const rx = 0.38 * width;
  const ry = 0.42 * height;
  for (let y = 0; y < height; y++) {
    for (let x = 0, o = y * width * 4 + 3; x < width; x++, o += 4) {
      const d = (1 - Math.hypot((x - width / 2) / rx, (y - height / 2) / ry)) * Math.min(rx, ry);
      data[o] = (d / feather) * 255 + 0.5;
    }
  }
}

export type InputKind =
  | "jpeg"
  | "jpeg-progressive"
  | "png"
  | "png-alpha"
  | "webp"
  | "webp-lossless"
  | "webp-alpha"
  | "avif"
  | "heic"
  | "jpeg-product"
  // The variants that take routes of their own (codecs-cases.ts TERM_CASES):
  | "jpeg-turned"
  | "jpeg-progressive-turned"
  | "png-interlaced"
  | "webp-lossless-alpha"
  | "gif"
  | "bmp"
  | "tiff"
  | "heic-alpha"
  | "heic-single-alpha"
  | "heic-single-turned"
  | "heic-mirrored"
  | "heic-mirrored-alpha";

/** The formats the service's own encoders make the inputs of (sharp writes no BMP, and our TIFF reader takes what our writer writes). */
export type ServiceWritten = "gif" | "bmp" | "tiff";

/**
 * The uploaded file for each input kind, made by sharp from the scene: a camera-like JPEG
 * (quality 90, 4:2:0, baseline) and the same as a progressive file, an RGB PNG (as photos are saved) or an RGBA PNG for the
 * cut-out, a quality-80 WebP (lossy; lossless; lossy with alpha for the cut-out) and a
 * quality-50 AVIF. HEIC comes from Debian's heif-enc at quality 50 (sharp's libvips cannot
 * write HEVC), laid out as phones write it, a grid of 512x512 tiles (scripts/heic-grid.ts):
 * only where heif-enc is installed (HEIC_INPUT). The variants: the JPEGs held in portrait
 * (EXIF orientation 6, baseline and progressive), an interlaced PNG (Adam7: the general path
 * reads it), a lossless WebP with alpha, a GIF, BMP and TIFF written by the service's own
 * encoders (`service`), the cut-out as a grid HEIC with an alpha grid, and single HEIC images
 * (heif-enc's own layout) with alpha, turned by irot, or mirrored by imir (which our reader
 * leaves to libheif), opaque and with alpha.
 */
export async function encodeInput(kind: InputKind, opaque: Pixels, cutout: () => Pixels, service: (pixels: Pixels, format: ServiceWritten) => Promise<Uint8Array>): Promise<Uint8Array> {
  const withAlpha = ["png-alpha", "webp-alpha", "webp-lossless-alpha", "heic-alpha", "heic-single-alpha", "heic-mirrored-alpha"].includes(kind);
  const source = kind === "jpeg-product" ? onStudioBackdrop(cutout()) : withAlpha ? cutout() : opaque;
  const raw = sharp(Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength), {
    raw: { width: source.width, height: source.height, channels: 4 },
  });
  // An opaque photo is stored without an alpha channel, as cameras and editors write it.
  const image = withAlpha ? raw : raw.removeAlpha();
  switch (kind) {
    case "jpeg":
      return image.jpeg({ quality: 90, chromaSubsampling: "4:2:0" }).toBuffer();
    case "jpeg-progressive":
      return image.jpeg({ quality: 90, chromaSubsampling: "4:2:0", progressive: true }).toBuffer();
    case "png":
    case "png-alpha":
      return image.png({ compressionLevel: 6 }).toBuffer();
    case "webp":
    case "webp-alpha":
      return image.webp({ quality: 80 }).toBuffer();
    case "webp-lossless":
      return image.webp({ lossless: true }).toBuffer();
    case "avif":
      return image.avif({ quality: 50, effort: 2 }).toBuffer();
    case "heic":
      return gridHeic(image, source.width, source.height, { tileWidth: 512, tileHeight: 512, args: ["-q", "50"] });
    case "jpeg-product":
      // A phone's product shot, held in portrait: the file stored sideways, EXIF orientation 6.
      return image.jpeg({ quality: 90, chromaSubsampling: "4:2:0" }).withMetadata({ orientation: 6 }).toBuffer();
    case "jpeg-turned":
      return image.jpeg({ quality: 90, chromaSubsampling: "4:2:0" }).withMetadata({ orientation: 6 }).toBuffer();
    case "jpeg-progressive-turned":
      return image.jpeg({ quality: 90, chromaSubsampling: "4:2:0", progressive: true }).withMetadata({ orientation: 6 }).toBuffer();
    case "png-interlaced":
      return image.png({ compressionLevel: 6, progressive: true }).toBuffer();
    case "webp-lossless-alpha":
      return image.webp({ lossless: true }).toBuffer();
    case "gif":
    case "bmp":
    case "tiff":
      return service(source, kind);
    case "heic-alpha":
      return gridHeic(image, source.width, source.height, { tileWidth: 512, tileHeight: 512, args: ["-q", "50"] });
    case "heic-single-alpha":
      return singleHeic(image, null);
    case "heic-single-turned":
      return singleHeic(image, { box: "irot", value: 1 });
    case "heic-mirrored":
    case "heic-mirrored-alpha":
      return singleHeic(image, { box: "imir", value: 0 });
  }
}

/**
 * One HEVC image as heif-enc writes it, at quality 50; with `transform`, its colour property
 * (the sRGB profile's colr box) rewritten in place into an irot (a quarter turn) or an imir (a
 * mirror), as scripts/make-heic-fixtures.ts turns its fixtures.
 */
async function singleHeic(image: Sharp, transform: { box: "irot" | "imir"; value: number } | null): Promise<Uint8Array> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pixelgate-heic-single-"));
  try {
    const [png, heic] = [path.join(dir, "in.png"), path.join(dir, "out.heic")];
    await image.withIccProfile("srgb").png({ compressionLevel: 1 }).toFile(png);
    execFileSync("heif-enc", ["-q", "50", "-o", heic, png], { stdio: "ignore" });
    const file = readFileSync(heic);
    if (!transform) return file;
    const at = file.indexOf("colr");
    if (at < 4) throw new Error("heif-enc wrote no colr property to rewrite");
    file.write(transform.box, at, "latin1");
    file[at + 4] = transform.value;
    return file;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The cut-out (the scene inside a feathered ellipse) on a smooth light studio backdrop: what a
 * background remover is given (the model-tool memory cases' input).
 */
function onStudioBackdrop(cutout: Pixels): Pixels {
  const { width, height } = cutout;
  const data = new Uint8ClampedArray(cutout.data);
  for (let y = 0; y < height; y++) {
    const backdrop = 232 - (18 * y) / height;
    for (let x = 0, o = y * width * 4; x < width; x++, o += 4) {
      const a = data[o + 3]! / 255;
      for (let c = 0; c < 3; c++) data[o + c] = data[o + c]! * a + backdrop * (1 - a);
      data[o + 3] = 255;
    }
  }
  return { width, height, data };
}

/** Whether heif-enc (apt-get install libheif-examples) is here to make the HEIC input. */
export const HEIC_INPUT = spawnSync("heif-enc", ["--version"]).status === 0;

