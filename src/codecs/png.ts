// PNG: read and written here in TypeScript over the runtime's native zlib, so neither direction
// needs a WASM instance and the encoder can pick the smallest lossless layout: palette, grey,
// RGB or RGBA. Decoding inflates the image data in one call into a buffer of exactly its
// declared size, then unfilters it in place; a lossless encode filters the whole image into one
// buffer and deflates it in one call. Either way that buffer is 1 to 4 bytes per pixel next to
// the 4 of the raster; a palette encode streams, so that a losing encoding stops early.
//
// Encoder settings:
// - quality 100 (the default, and what convert uses): lossless. The layout is the smallest
//   exact one: a palette when the image has at most 256 colours (bit-packed when at most 16),
//   8-bit grey for grey images, RGB for opaque images, RGBA otherwise.
// - quality 1-99 (compress): palette quantization like pngquant. Every 10 quality points double
//   the palette: 80-99 keep 256 colours, 70 -> 128, 50 -> 32, 30 -> 8, 10 and below -> 2. Images
//   that already fit the palette stay exact. Alpha is quantized with the colours (tRNS), so soft
//   edges survive. The lossless file is written too and wins when it is smaller (smooth
//   synthetic images can filter down below any palette), so compress never grows a PNG.
// - zlib level per image (deflateLevelFor): 6 for rows that filter to mostly zeros and for
//   palettes, 3 for photographic rows.
// Only IHDR, PLTE, tRNS, IDAT and IEND are written: no metadata chunk is ever copied.

import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { crc32 } from "../ids/crc32.ts";
import { deflateFrom, deflateWhole, inflatePrefix, PNG_DEFLATE } from "./deflate.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { paeth, RowFilter } from "./png-filter.ts";
import { quantize } from "./quantize.ts";
import { imageHasAlpha, pixelWords } from "./raster.ts";

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
function unfilter(line: Uint8Array, prev: Uint8Array, bpp: number): void {
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
// Encoding

export interface PngEncodeOptions {
  /** 100 = lossless (default); 1-99 = palette quantization, see the top of this file. */
  quality?: number;
}

/** Palette size for a compress quality below 100: every 10 points double it, 2 to 256. */
export function paletteSizeForQuality(quality: number): number {
  return Math.max(2, Math.min(256, Math.round(2 ** (quality / 10))));
}

/** What the encoder writes: the colour type, its bit depth and how to produce each raw row. */
interface Layout {
  colorType: ColorType;
  bitDepth: number;
  rowBytes: number;
  /** Bytes per complete pixel for the filters (1 for sub-byte depths). */
  bpp: number;
  /** Adaptive filtering pays off for continuous-tone rows; palette rows compress best unfiltered. */
  filter: boolean;
  plte?: Uint8Array;
  trns?: Uint8Array;
  fillRow: (y: number, raw: Uint8Array) => void;
}

export async function encodePng(image: RasterImage, options: PngEncodeOptions = {}): Promise<Uint8Array> {
  const quality = Math.round(options.quality ?? PNG_DEFAULT_QUALITY);
  if (quality >= 100) return (await writePng(image, losslessLayout(image)))!;
  // Smooth synthetic images can filter down to less than any palette: quantizing must never
  // make the file bigger, so the lossless file stands when it is the smaller one. The palette
  // file is written first; the lossless one is abandoned as soon as its compressed data is
  // longer, which for photos happens a fraction of the way in.
  const quantized = (await writePng(image, paletteLayout(image, quantize(image, paletteSizeForQuality(quality), "full"))))!;
  const lossless = await writePng(image, losslessLayout(image), quantized.length);
  return lossless !== null && lossless.length < quantized.length ? lossless : quantized;
}

/**
 * The zlib level per image. Rows that filter to mostly zeros (graphics, screenshots, flat
 * colour, smooth renders) deflate fast even at zlib's default level 6 and come out much smaller
 * there: a 1 MP UI-like image took 15 ms for 26 KB at level 6 against 4 ms for 44 KB at level 3,
 * a smooth render 142 ms for 208 KB against 53 ms for 287 KB. Photographic rows are the other
 * way round: level 6 took twice as long (77 -> 150 ms at 1 MP) for files 0.6% smaller (RGB;
 * 3.7% with alpha), so they get level 3. Palette indices are not filtered and count as flat.
 */
export const PNG_LEVEL_FLAT = 6;
export const PNG_LEVEL_PHOTO = 3;
/**
 * Share of zero bytes in the filtered sample rows from which an image counts as flat (graphics:
 * 96%, a smooth render: 82%, the benchmark's photo: 9%, its cut-out with a transparent
 * surround: 30%). High, because level 6 costs double on whatever part is photographic.
 */
const FLAT_ZERO_SHARE = 0.75;
/** Rows filtered to decide: evenly spread, about 3% of a 1 MP image's filter work. */
const LEVEL_SAMPLE_ROWS = 32;

function deflateLevelFor(layout: Layout, height: number): number {
  if (!layout.filter) return PNG_LEVEL_FLAT;
  const rows = Math.min(height, LEVEL_SAMPLE_ROWS);
  const raw = new Uint8Array(layout.rowBytes);
  const prev = new Uint8Array(layout.rowBytes);
  const out = new Uint8Array(layout.rowBytes + 1);
  const filter = new RowFilter(layout.bpp);
  let zeros = 0;
  for (let k = 0; k < rows; k++) {
    const y = Math.floor(((k + 0.5) * height) / rows);
    if (y > 0) layout.fillRow(y - 1, prev);
    else prev.fill(0);
    layout.fillRow(y, raw);
    filter.filter(raw, prev, out);
    for (let i = 1; i < out.length; i++) if (out[i] === 0) zeros++;
  }
  return zeros >= FLAT_ZERO_SHARE * rows * layout.rowBytes ? PNG_LEVEL_FLAT : PNG_LEVEL_PHOTO;
}

/** IDAT chunks are cut at this size: readers handle any size, and it bounds CRC work per chunk. */
const IDAT_MAX = 1 << 20;

/**
 * Produces the filtered image data (each row: its filter type byte, then the filtered row) a
 * few rows at a time, keeping only the two unfiltered rows the filters need.
 */
class FilteredRows {
  private y = 0;
  private raw: Uint8Array;
  private prev: Uint8Array; // the row above, unfiltered (zeros at the top)
  private readonly filter: RowFilter | null;

  constructor(private readonly layout: Layout) {
    this.raw = new Uint8Array(layout.rowBytes);
    this.prev = new Uint8Array(layout.rowBytes);
    this.filter = layout.filter ? new RowFilter(layout.bpp) : null;
  }

  get stride(): number {
    return this.layout.rowBytes + 1;
  }

  /** Writes the next `rows` rows into `target` (rows * stride bytes). */
  next(rows: number, target: Uint8Array): void {
    const stride = this.stride;
    for (let k = 0; k < rows; k++, this.y++) {
      this.layout.fillRow(this.y, this.raw);
      const row = target.subarray(k * stride, (k + 1) * stride);
      if (this.filter) this.filter.filter(this.raw, this.prev, row);
      else row.set(this.raw, 1);
      [this.raw, this.prev] = [this.prev, this.raw];
    }
  }
}

/**
 * The PNG file for `image` in `layout`. With `maxBytes`: null as soon as the compressed image
 * data alone is longer than that (the file would be too).
 */
async function writePng(image: RasterImage, layout: Layout, maxBytes = Infinity): Promise<Uint8Array | null> {
  const { width, height } = image;
  const rows = new FilteredRows(layout);
  const settings = { ...PNG_DEFLATE, level: deflateLevelFor(layout, height) };
  let compressed: Uint8Array[] | null;
  if (maxBytes === Infinity) {
    // Filtered whole and deflated in one synchronous call: the filtered copy costs 3 to 4 bytes
    // per pixel next to the 4 of the raster, and saves the stream's per-batch round trips
    // (about 10% of a lossless encode, npm run bench:codecs).
    const filtered = new Uint8Array(height * rows.stride);
    rows.next(height, filtered);
    compressed = [deflateWhole(filtered, settings)];
  } else {
    // Streamed, so that a losing encoding stops early: rows go to the compressor in batches of
    // about 256 KB.
    const rowsPerBatch = Math.max(1, Math.floor((256 * 1024) / rows.stride));
    compressed = await deflateFrom(
      async (write) => {
        for (let y0 = 0; y0 < height; y0 += rowsPerBatch) {
          const count = Math.min(rowsPerBatch, height - y0);
          const batch = new Uint8Array(count * rows.stride);
          rows.next(count, batch);
          await write(batch);
        }
      },
      settings,
      maxBytes,
    );
  }
  if (compressed === null) return null;
  const dataLength = compressed.reduce((n, part) => n + part.length, 0);
  const idatCount = Math.max(1, Math.ceil(dataLength / IDAT_MAX));

  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr[8] = layout.bitDepth;
  ihdr[9] = layout.colorType;
  const small: [string, Uint8Array][] = [["IHDR", ihdr]];
  if (layout.plte) small.push(["PLTE", layout.plte]);
  if (layout.trns) small.push(["tRNS", layout.trns]);

  const total = SIGNATURE.length + small.reduce((n, [, data]) => n + 12 + data.length, 0) + 12 * idatCount + dataLength + 12;
  const out = new Uint8Array(total);
  const outView = new DataView(out.buffer);
  out.set(SIGNATURE, 0);
  let at = SIGNATURE.length;
  const chunk = (type: string, length: number, fill: (target: Uint8Array) => void): void => {
    outView.setUint32(at, length);
    out.set(CHUNK_TYPES[type]!, at + 4);
    fill(out.subarray(at + 8, at + 8 + length));
    outView.setUint32(at + 8 + length, crc32(out.subarray(at + 4, at + 8 + length)));
    at += 12 + length;
  };
  for (const [type, data] of small) chunk(type, data.length, (target) => target.set(data));
  // The compressed pieces are copied straight into IDAT chunks of up to IDAT_MAX bytes.
  let piece = 0;
  let pieceAt = 0;
  let remaining = dataLength;
  for (let k = 0; k < idatCount; k++) {
    const length = Math.min(IDAT_MAX, remaining);
    chunk("IDAT", length, (target) => {
      for (let filled = 0; filled < length; ) {
        const source = compressed[piece]!;
        const take = Math.min(length - filled, source.length - pieceAt);
        target.set(source.subarray(pieceAt, pieceAt + take), filled);
        filled += take;
        pieceAt += take;
        if (pieceAt === source.length) {
          piece++;
          pieceAt = 0;
        }
      }
    });
    remaining -= length;
  }
  chunk("IEND", 0, () => {});
  return out;
}

const CHUNK_TYPES: Record<string, Uint8Array> = Object.fromEntries(
  ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"].map((t) => [t, new TextEncoder().encode(t)]),
);

/** The smallest exact layout for this image. */
function losslessLayout(image: RasterImage): Layout {
  const { width, data } = image;
  const words = pixelWords(data);
  const alpha = imageHasAlpha(image);
  let gray = true;
  for (let i = 0; i < words.length && gray; i++) {
    const w = words[i]!;
    gray = (w & 0xff) === ((w >>> 8) & 0xff) && (w & 0xff) === ((w >>> 16) & 0xff);
  }
  // A palette wins outright when few colours allow packing below 8 bits; for grey images an
  // 8-bit grey channel filters (and so compresses) better than palette indices.
  const exact = countColorsUpTo(words, 256);
  if (exact !== null && (exact <= 16 || !gray)) {
    return paletteLayout(image, quantize(image, 256, "full"));
  }
  if (gray && !alpha) {
    return {
      colorType: ColorType.Gray, bitDepth: 8, rowBytes: width, bpp: 1, filter: true,
      fillRow: (y, raw) => {
        for (let x = 0, s = y * width * 4; x < width; x++, s += 4) raw[x] = data[s]!;
      },
    };
  }
  if (gray) {
    return {
      colorType: ColorType.GrayAlpha, bitDepth: 8, rowBytes: width * 2, bpp: 2, filter: true,
      fillRow: (y, raw) => {
        for (let x = 0, s = y * width * 4; x < width; x++, s += 4) {
          raw[x * 2] = data[s]!;
          raw[x * 2 + 1] = data[s + 3]!;
        }
      },
    };
  }
  if (!alpha) {
    return {
      colorType: ColorType.Rgb, bitDepth: 8, rowBytes: width * 3, bpp: 3, filter: true,
      fillRow: (y, raw) => {
        // One 32-bit read per pixel (little-endian: R is the low byte); stores keep the low 8 bits.
        for (let x = 0, s = y * width, d = 0; x < width; x++, s++, d += 3) {
          const w = words[s]!;
          raw[d] = w;
          raw[d + 1] = w >>> 8;
          raw[d + 2] = w >>> 16;
        }
      },
    };
  }
  return {
    colorType: ColorType.Rgba, bitDepth: 8, rowBytes: width * 4, bpp: 4, filter: true,
    fillRow: (y, raw) => raw.set(data.subarray(y * width * 4, (y + 1) * width * 4)),
  };
}

function countColorsUpTo(words: Uint32Array, limit: number): number | null {
  const seen = new Set<number>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    // All fully transparent pixels are one colour, whatever RGB they store.
    seen.add(w >>> 24 === 0 ? 0 : w);
    if (seen.size > limit) return null;
  }
  return seen.size;
}

function paletteLayout(image: RasterImage, q: ReturnType<typeof quantize>): Layout {
  const { width } = image;
  const entries = q.palette.length / 4;
  const bitDepth = entries <= 2 ? 1 : entries <= 4 ? 2 : entries <= 16 ? 4 : 8;
  const plte = new Uint8Array(entries * 3);
  for (let k = 0; k < entries; k++) plte.set(q.palette.subarray(k * 4, k * 4 + 3), k * 3);
  // tRNS only needs to reach the last entry that is not fully opaque.
  let last = -1;
  for (let k = 0; k < entries; k++) if (q.palette[k * 4 + 3]! < 255) last = k;
  const trns = last >= 0 ? new Uint8Array(last + 1) : undefined;
  if (trns) for (let k = 0; k <= last; k++) trns[k] = q.palette[k * 4 + 3]!;
  const indices = q.indices;
  const perByte = 8 / bitDepth;
  return {
    colorType: ColorType.Palette,
    bitDepth,
    rowBytes: Math.ceil(width / perByte),
    bpp: 1,
    filter: false,
    plte,
    trns,
    fillRow: (y, raw) => {
      const row = indices.subarray(y * width, (y + 1) * width);
      if (bitDepth === 8) {
        raw.set(row);
        return;
      }
      raw.fill(0);
      for (let x = 0; x < width; x++) {
        const k = (x / perByte) | 0;
        raw[k] = raw[k]! | (row[x]! << (8 - bitDepth * ((x % perByte) + 1)));
      }
    },
  };
}
