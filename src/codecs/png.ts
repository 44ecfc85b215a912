// PNG: read here in TypeScript over the runtime's native zlib, so decoding needs no WASM
// instance. Decoding inflates the image data in one call into a buffer of exactly its declared
// size (1 to 4 bytes per pixel next to the 4 of the raster), then unfilters it in place.
//
// PNG is written by our own WASM build (native/png_sink.c, docs/native-codecs.md), from a raster
// (encodeImage) or straight from an upload's rows:
// - quality 100 (the default, and what convert uses): lossless. The layout is the smallest
//   exact one: a palette when the image has at most 256 colours (bit-packed when at most 16),
//   8-bit grey for grey images, RGB for opaque images, RGBA otherwise.
// - quality 1-99 (compress): palette quantization like pngquant. Every 10 quality points double
//   the palette (paletteSizeForQuality): 80-99 keep 256 colours, 70 -> 128, 50 -> 32, 30 -> 8,
//   10 and below -> 2. Images that already fit the palette stay exact. Alpha is quantized with
//   the colours (tRNS), so soft edges survive. The lossless file is written too and wins when it
//   is smaller (smooth synthetic images can filter down below any palette), so compress never
//   grows a PNG.
// Only IHDR, PLTE, tRNS, IDAT and IEND are written: no metadata chunk is ever copied.

import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { inflatePrefix } from "./deflate.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { paeth } from "./png-filter.ts";

export const PNG_INFO = FORMAT_INFO.png;
/** Lossless unless a caller (compress) asks for less. */
export const PNG_DEFAULT_QUALITY = 100;

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const enum ColorType {
  Gray = 0,
  Rgb = 2,
  Palette = 3,
  GrayAlpha = 4,
  Rgba = 6,
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ALLOWED_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

interface Ihdr {
  width: number;
  height: number;
  bitDepth: number;
  colorType: ColorType;
  interlaced: boolean;
}

function readIhdr(bytes: Uint8Array): Ihdr {
  const r = new ByteReader(bytes, false, "PNG");
  for (let i = 0; i < 8; i++) if (r.u8(i) !== SIGNATURE[i]) throw invalidImage("The data is not a PNG (bad signature).");
  if (r.u32(8) !== 13 || !hasAscii(bytes, 12, "IHDR")) throw invalidImage("The PNG does not start with an IHDR chunk.");
  const ihdr: Ihdr = {
    width: r.u32(16),
    height: r.u32(20),
    bitDepth: r.u8(24),
    colorType: r.u8(25),
    interlaced: r.u8(28) === 1,
  };
  if (!ALLOWED_DEPTHS[ihdr.colorType]?.includes(ihdr.bitDepth)) {
    throw invalidImage(`The PNG has an invalid colour type ${ihdr.colorType} / bit depth ${ihdr.bitDepth}.`);
  }
  if (r.u8(26) !== 0 || r.u8(27) !== 0 || r.u8(28) > 1) throw invalidImage("The PNG header names an unknown method.");
  return ihdr;
}

export function readPngHeader(bytes: Uint8Array): { width: number; height: number } {
  const { width, height } = readIhdr(bytes);
  return { width, height };
}

/**
 * Every chunk up to IEND (or the file's end) lies inside the file with its CRC, and there is
 * image data: a file cut inside a chunk is refused before the charge. Whether the image data
 * itself is whole only inflating it tells.
 */
export function assertPngChunksPresent(bytes: Uint8Array): void {
  const r = new ByteReader(bytes, false, "PNG");
  let idat = false;
  for (let offset = 8; offset + 8 <= bytes.length; ) {
    const length = r.u32(offset);
    const type = r.ascii(offset + 4, 4);
    if (length > bytes.length - offset - 12) throw invalidImage(`The PNG is truncated: its ${type} chunk runs past the end of the file.`);
    if (type === "IDAT") idat = true;
    if (type === "IEND") break;
    offset += 12 + length;
  }
  if (!idat) throw invalidImage("The PNG has no image data.");
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** Adam7 passes as [x0, y0, dx, dy]; a non-interlaced image is one pass over everything. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

export async function decodePng(bytes: Uint8Array): Promise<RasterImage> {
  const ihdr = readIhdr(bytes);
  const { width, height, bitDepth, colorType } = ihdr;
  const r = new ByteReader(bytes, false, "PNG");

  let palette: Uint8Array | null = null;
  let trns: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  for (let offset = 33; ; ) {
    const length = r.u32(offset);
    const type = r.ascii(offset + 4, 4);
    const data = r.slice(offset + 8, length);
    r.u32(offset + 8 + length); // the CRC must be there: a cut-off file is refused
    if (type === "IDAT") idat.push(data);
    else if (type === "PLTE") palette = data;
    else if (type === "tRNS") trns = data;
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  if (idat.length === 0) throw invalidImage("The PNG has no image data.");
  if (colorType === ColorType.Palette && !palette) throw invalidImage("The PNG has a palette image but no palette.");

  const out = new Uint8ClampedArray(width * height * 4);
  const emit = rowWriter(ihdr, out, palette, trns);
  const bitsPerPixel = CHANNELS[colorType]! * bitDepth;
  const bpp = Math.max(1, bitsPerPixel >> 3);

  const passes = (ihdr.interlaced ? ADAM7 : [[0, 0, 1, 1] as const])
    .map(([x0, y0, dx, dy]) => ({
      x0,
      y0,
      dx,
      dy,
      w: Math.ceil((width - x0) / dx),
      h: Math.ceil((height - y0) / dy),
    }))
    .filter((p) => p.w > 0 && p.h > 0);

  const lines = passes.map((p) => Math.ceil((p.w * bitsPerPixel) / 8) + 1);
  const expected = passes.reduce((n, p, k) => n + p.h * lines[k]!, 0);
  const filtered = await inflatePrefix(idat, expected, "PNG image");
  let at = 0;
  passes.forEach((pass, k) => {
    const line = lines[k]!;
    let prev: Uint8Array = new Uint8Array(line); // each pass starts with an all-zero "previous" row
    for (let row = 0; row < pass.h; row++, at += line) {
      const cur = filtered.subarray(at, at + line);
      unfilter(cur, prev, bpp);
      emit(cur.subarray(1), pass, row);
      prev = cur;
    }
  });
  return { width, height, data: out };
}

/** Undoes the row filter in place. `line[0]` is the filter type; `prev` the previous raw row. */
export function unfilter(line: Uint8Array, prev: Uint8Array, bpp: number): void {
  const n = line.length;
  switch (line[0]) {
    case 0:
      return;
    case 1:
      for (let i = 1 + bpp; i < n; i++) line[i] = line[i]! + line[i - bpp]!;
      return;
    case 2:
      for (let i = 1; i < n; i++) line[i] = line[i]! + prev[i]!;
      return;
    case 3:
      for (let i = 1; i < n; i++) {
        const left = i > bpp ? line[i - bpp]! : 0;
        line[i] = line[i]! + ((left + prev[i]!) >> 1);
      }
      return;
    case 4:
      for (let i = 1; i < n; i++) {
        const a = i > bpp ? line[i - bpp]! : 0;
        const c = i > bpp ? prev[i - bpp]! : 0;
        line[i] = line[i]! + paeth(a, prev[i]!, c);
      }
      return;
    default:
      throw invalidImage(`The PNG uses an unknown row filter ${line[0]}.`);
  }
}

type Pass = { x0: number; y0: number; dx: number; dy: number; w: number };

/** Returns a function that converts one unfiltered row of a pass into RGBA in `out`. */
function rowWriter(
  ihdr: Ihdr,
  out: Uint8ClampedArray,
  palette: Uint8Array | null,
  trns: Uint8Array | null,
): (raw: Uint8Array, pass: Pass, row: number) => void {
  const { width, bitDepth, colorType } = ihdr;
  const sixteen = bitDepth === 16;
  // tRNS for grey / RGB names one exact sample value (at full bit depth) that is transparent.
  const key = trns && colorType !== ColorType.Palette ? trnsKey(trns, colorType) : null;
  const words = new Uint32Array(out.buffer, out.byteOffset, out.length >> 2);

  return (raw, pass, row) => {
    const y = pass.y0 + row * pass.dy;
    let o = (y * width + pass.x0) * 4;
    const step = pass.dx * 4;
    const w = pass.w;
    switch (colorType) {
      case ColorType.Rgba:
        if (!sixteen && pass.dx === 1) {
          out.set(raw.subarray(0, w * 4), o);
          return;
        }
        for (let i = 0, s = 0, bps = sixteen ? 2 : 1; i < w; i++, o += step, s += 4 * bps) {
          out[o] = raw[s]!;
          out[o + 1] = raw[s + bps]!;
          out[o + 2] = raw[s + 2 * bps]!;
          out[o + 3] = raw[s + 3 * bps]!;
        }
        return;
      case ColorType.Rgb:
        if (!sixteen && !key) {
          // The common case, one 32-bit store per pixel (little-endian, as on every Workers
          // host: R is the low byte, alpha the high one).
          for (let i = 0, s = 0, p = o >> 2; i < w; i++, s += 3, p += pass.dx) {
            words[p] = 0xff000000 | (raw[s + 2]! << 16) | (raw[s + 1]! << 8) | raw[s]!;
          }
          return;
        }
        for (let i = 0, s = 0, bps = sixteen ? 2 : 1; i < w; i++, o += step, s += 3 * bps) {
          out[o] = raw[s]!;
          out[o + 1] = raw[s + bps]!;
          out[o + 2] = raw[s + 2 * bps]!;
          let alpha = 255;
          if (key) {
            const r = sixteen ? (raw[s]! << 8) | raw[s + 1]! : raw[s]!;
            const g = sixteen ? (raw[s + 2]! << 8) | raw[s + 3]! : raw[s + 1]!;
            const b = sixteen ? (raw[s + 4]! << 8) | raw[s + 5]! : raw[s + 2]!;
            if (r === key[0] && g === key[1] && b === key[2]) alpha = 0;
          }
          out[o + 3] = alpha;
        }
        return;
      case ColorType.GrayAlpha:
        for (let i = 0, s = 0, bps = sixteen ? 2 : 1; i < w; i++, o += step, s += 2 * bps) {
          out[o] = out[o + 1] = out[o + 2] = raw[s]!;
          out[o + 3] = raw[s + bps]!;
        }
        return;
      case ColorType.Gray: {
        const scale = 255 / ((1 << Math.min(bitDepth, 8)) - 1);
        for (let i = 0; i < w; i++, o += step) {
          const sample = sixteen ? (raw[i * 2]! << 8) | raw[i * 2 + 1]! : packed(raw, i, bitDepth);
          const v = sixteen ? raw[i * 2]! : Math.round(sample * scale);
          out[o] = out[o + 1] = out[o + 2] = v;
          out[o + 3] = key && sample === key[0] ? 0 : 255;
        }
        return;
      }
      case ColorType.Palette: {
        const entries = palette!.length / 3;
        for (let i = 0; i < w; i++, o += step) {
          const index = packed(raw, i, bitDepth);
          if (index < entries) {
            out[o] = palette![index * 3]!;
            out[o + 1] = palette![index * 3 + 1]!;
            out[o + 2] = palette![index * 3 + 2]!;
            out[o + 3] = trns && index < trns.length ? trns[index]! : 255;
          } else {
            // An index past the palette: libpng shows it as opaque black.
            out[o] = out[o + 1] = out[o + 2] = 0;
            out[o + 3] = 255;
          }
        }
        return;
      }
    }
  };
}

/** Sample i of a row packed at 1, 2, 4 or 8 bits, most significant bits first. */
function packed(raw: Uint8Array, i: number, depth: number): number {
  if (depth === 8) return raw[i]!;
  const bit = i * depth;
  return (raw[bit >> 3]! >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
}

function trnsKey(trns: Uint8Array, colorType: ColorType): number[] | null {
  const r = new ByteReader(trns, false, "PNG tRNS chunk");
  if (colorType === ColorType.Gray && trns.length >= 2) return [r.u16(0)];
  if (colorType === ColorType.Rgb && trns.length >= 6) return [r.u16(0), r.u16(2), r.u16(4)];
  return null;
}

// ---------------------------------------------------------------------------------------------
// Encoding: native/png_sink.c (encodeImage, and the uploads it writes from their rows)

/** Palette size for a compress quality below 100: every 10 points double it, 2 to 256 (native/png_sink.c palette_size). */
export function paletteSizeForQuality(quality: number): number {
  return Math.max(2, Math.min(256, Math.round(2 ** (quality / 10))));
}
