// BMP: a small codec of our own. BMP is a header in front of (mostly) raw rows, so a library
// would add more than it saves.
//
// Reading: OS/2 core headers and Windows BITMAPINFOHEADER through V5; 1, 4 and 8-bit palettes,
// 16-bit (5-5-5 or bit fields), 24-bit and 32-bit (plain or bit fields, with alpha when a mask
// or the data says so); RLE8 and RLE4. Bottom-up and top-down (negative height) rows.
// Writing (native/bmp_sink.c, laid out as bmpLayout says): 24-bit BI_RGB, bottom-up, alpha
// composited onto black (BMP readers commonly ignore a fourth channel, so keeping it would not
// keep transparency anyway). No colour profile.

import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { spendWork } from "./fuel.ts";

export const BMP_INFO = FORMAT_INFO.bmp;

const CORE_HEADER = 12;
const INFO_HEADER_SIZES = new Set([40, 52, 56, 64, 108, 124]);

const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;

/** "BM", a known DIB header size and a pixel offset past the headers. */
export function looksLikeBmp(bytes: Uint8Array): boolean {
  if (bytes.length < 26 || !hasAscii(bytes, 0, "BM")) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dibSize = view.getUint32(14, true);
  const pixelOffset = view.getUint32(10, true);
  return (dibSize === CORE_HEADER || INFO_HEADER_SIZES.has(dibSize)) && pixelOffset >= 14 + dibSize;
}

interface BmpInfo {
  width: number;
  height: number;
  topDown: boolean;
  bitCount: number;
  compression: number;
  pixelOffset: number;
  /** RGB triples (the file stores BGR[X]). */
  palette: Uint8Array | null;
  masks: [number, number, number, number] | null;
}

function readInfo(bytes: Uint8Array): BmpInfo {
  if (!looksLikeBmp(bytes)) throw invalidImage("The data is not a BMP (bad header).");
  const r = new ByteReader(bytes, true, "BMP");
  const dibSize = r.u32(14);
  const pixelOffset = r.u32(10);
  let width: number, height: number, bitCount: number, compression = BI_RGB, colorsUsed = 0;
  if (dibSize === CORE_HEADER) {
    width = r.u16(18);
    height = r.u16(20);
    bitCount = r.u16(24);
  } else {
    width = r.i32(18);
    height = r.i32(22);
    bitCount = r.u16(28);
    compression = r.u32(30);
    colorsUsed = r.u32(46);
  }
  const topDown = height < 0;
  height = Math.abs(height);
  if (width <= 0 || height <= 0) throw invalidImage("The BMP has no pixels.");
  if (![1, 4, 8, 16, 24, 32].includes(bitCount)) throw invalidImage(`The BMP has an unsupported bit depth ${bitCount}.`);
  if (topDown && (compression === BI_RLE8 || compression === BI_RLE4)) throw invalidImage("A top-down BMP cannot be RLE-compressed.");

  let masks: BmpInfo["masks"] = null;
  if (compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS) {
    // Masks sit inside V2+ headers, or right after a 40-byte header.
    const at = 14 + 40;
    masks = [r.u32(at), r.u32(at + 4), r.u32(at + 8), compression === BI_ALPHABITFIELDS || dibSize >= 56 ? r.u32(at + 12) : 0];
    for (const mask of masks) assertMaskFits(mask, bitCount);
  } else if (compression === BI_RGB && bitCount === 16) {
    masks = [0x7c00, 0x03e0, 0x001f, 0];
  } else if (compression !== BI_RGB && compression !== BI_RLE8 && compression !== BI_RLE4) {
    throw invalidImage(`The BMP uses an unsupported compression ${compression}.`);
  }

  let palette: Uint8Array | null = null;
  if (bitCount <= 8) {
    const entrySize = dibSize === CORE_HEADER ? 3 : 4;
    const count = colorsUsed > 0 && colorsUsed <= 1 << bitCount ? colorsUsed : 1 << bitCount;
    const start = 14 + dibSize + (compression === BI_BITFIELDS && dibSize === 40 ? 12 : 0);
    // Some writers store fewer entries than they declare: take what fits before the pixels.
    const available = Math.min(count, Math.floor((pixelOffset - start) / entrySize));
    if (available < 1) throw invalidImage("The BMP has no colour table.");
    palette = new Uint8Array(available * 3);
    for (let k = 0; k < available; k++) {
      palette[k * 3] = r.u8(start + k * entrySize + 2);
      palette[k * 3 + 1] = r.u8(start + k * entrySize + 1);
      palette[k * 3 + 2] = r.u8(start + k * entrySize);
    }
  }
  return { width, height, topDown, bitCount, compression, pixelOffset, palette, masks };
}

export function readBmpHeader(bytes: Uint8Array): { width: number; height: number } {
  const { width, height } = readInfo(bytes);
  return { width, height };
}

/** Bytes from one stored row to the next (rows are padded to 4 bytes). */
function rowStride(info: BmpInfo): number {
  return Math.ceil((info.width * info.bitCount) / 32) * 4;
}

/**
 * The rows an uncompressed BMP's header promises are in the file (the last row need not be
 * padded), checked before the charge: a cut-off file is refused from its header and length.
 * RLE rows are found only by decoding them.
 */
export function assertBmpPixelsPresent(bytes: Uint8Array): void {
  const info = readInfo(bytes);
  if (info.compression === BI_RLE8 || info.compression === BI_RLE4) return;
  new ByteReader(bytes, true, "BMP").slice(info.pixelOffset, rowStride(info) * (info.height - 1) + Math.ceil((info.width * info.bitCount) / 8));
}

export async function decodeBmp(bytes: Uint8Array): Promise<RasterImage> {
  const info = readInfo(bytes);
  const { width, height } = info;
  const out = new Uint8ClampedArray(width * height * 4);
  spendWork(width * height);
  if (info.compression === BI_RLE8 || info.compression === BI_RLE4) {
    decodeRle(bytes, info, out);
    return { width, height, data: out };
  }
  const stride = rowStride(info);
  assertBmpPixelsPresent(bytes);

  const fields = info.masks?.map(maskField) ?? null;
  let sawAlpha = false;
  for (let row = 0; row < height; row++) {
    const y = info.topDown ? row : height - 1 - row;
    const src = info.pixelOffset + row * stride;
    let o = y * width * 4;
    for (let x = 0; x < width; x++, o += 4) {
      if (info.bitCount <= 8) {
        const bit = x * info.bitCount;
        const index = (bytes[src + (bit >> 3)]! >> (8 - info.bitCount - (bit & 7))) & ((1 << info.bitCount) - 1);
        setPaletteColor(out, o, info.palette!, index);
      } else if (info.bitCount === 24) {
        const s = src + x * 3;
        out[o] = bytes[s + 2]!;
        out[o + 1] = bytes[s + 1]!;
        out[o + 2] = bytes[s]!;
        out[o + 3] = 255;
      } else {
        const s = src + x * (info.bitCount >> 3);
        const value = info.bitCount === 16 ? bytes[s]! | (bytes[s + 1]! << 8) : (bytes[s]! | (bytes[s + 1]! << 8) | (bytes[s + 2]! << 16) | (bytes[s + 3]! << 24)) >>> 0;
        if (fields) {
          out[o] = fields[0]!(value);
          out[o + 1] = fields[1]!(value);
          out[o + 2] = fields[2]!(value);
          out[o + 3] = info.masks![3] ? fields[3]!(value) : 255;
          if (info.masks![3] && out[o + 3] !== 0) sawAlpha = true;
        } else {
          // Plain 32-bit BI_RGB: BGRX. The fourth byte is officially unused; many writers
          // store alpha there. Read it, and fall back to opaque if it is zero everywhere.
          out[o] = bytes[s + 2]!;
          out[o + 1] = bytes[s + 1]!;
          out[o + 2] = bytes[s]!;
          out[o + 3] = bytes[s + 3]!;
          if (out[o + 3] !== 0) sawAlpha = true;
        }
      }
    }
  }
  const alphaSource = info.bitCount === 32 && (!fields || info.masks![3] !== 0);
  if (alphaSource && !sawAlpha) for (let i = 3; i < out.length; i += 4) out[i] = 255;
  return { width, height, data: out };
}

function setPaletteColor(out: Uint8ClampedArray, o: number, palette: Uint8Array, index: number): void {
  // An index past the table shows as black, as Windows does.
  const p = index * 3 < palette.length ? index * 3 : -1;
  out[o] = p < 0 ? 0 : palette[p]!;
  out[o + 1] = p < 0 ? 0 : palette[p + 1]!;
  out[o + 2] = p < 0 ? 0 : palette[p + 2]!;
  out[o + 3] = 255;
}

/**
 * A channel mask must be one run of set bits inside the pixel's `bitCount` bits (0: the channel
 * is absent), as every writer makes them. Checked with the header, before the charge.
 */
function assertMaskFits(mask: number, bitCount: number): void {
  if (mask === 0) return;
  if (bitCount !== 16 && bitCount !== 32) throw invalidImage(`A ${bitCount}-bit BMP cannot use channel masks.`);
  const { shift, bits } = maskRun(mask);
  if (shift + bits > bitCount || (mask >>> shift) !== 2 ** bits - 1) {
    throw invalidImage(`The BMP's channel mask 0x${mask.toString(16)} is not one run of bits inside its ${bitCount}-bit pixels.`);
  }
}

/**
 * Where a non-zero mask's lowest run of set bits starts and how long it is. Both loops stop at
 * bit 32 whatever the mask holds: a JavaScript shift count is taken mod 32, so `mask >>> 32` is
 * the mask again, and a loop bounded only by the mask's bits would never end on 0xFFFFFFFF.
 */
function maskRun(mask: number): { shift: number; bits: number } {
  let shift = 0;
  while (shift < 32 && ((mask >>> shift) & 1) === 0) shift++;
  let bits = 0;
  while (shift + bits < 32 && ((mask >>> (shift + bits)) & 1) === 1) bits++;
  return { shift, bits };
}

/** Extracts one channel through its bit mask, scaled to 0-255. */
function maskField(mask: number): (value: number) => number {
  if (mask === 0) return () => 0;
  const { shift, bits } = maskRun(mask);
  const max = 2 ** bits - 1;
  return (value) => Math.round((((value & mask) >>> 0) / 2 ** shift / max) * 255);
}

/** RLE8 / RLE4 (bottom-up only). Pixels the stream skips stay transparent. */
function decodeRle(bytes: Uint8Array, info: BmpInfo, out: Uint8ClampedArray): void {
  const r = new ByteReader(bytes, true, "BMP");
  const four = info.compression === BI_RLE4;
  const { width, height } = info;
  let x = 0;
  let y = height - 1;
  let at = info.pixelOffset;
  const put = (index: number): void => {
    if (x < width && y >= 0) setPaletteColor(out, (y * width + x) * 4, info.palette!, index);
    x++;
  };
  for (;;) {
    const count = r.u8(at);
    const value = r.u8(at + 1);
    at += 2;
    if (count > 0) {
      for (let k = 0; k < count; k++) put(four ? (k & 1 ? value & 15 : value >> 4) : value);
    } else if (value === 0) {
      x = 0; // end of line
      y--;
    } else if (value === 1) {
      return; // end of bitmap
    } else if (value === 2) {
      x += r.u8(at);
      y -= r.u8(at + 1);
      at += 2;
    } else {
      // Absolute run of `value` pixels, padded to a 16-bit boundary.
      const length = four ? Math.ceil(value / 2) : value;
      const run = r.slice(at, length);
      for (let k = 0; k < value; k++) put(four ? (k & 1 ? run[k >> 1]! & 15 : run[k >> 1]! >> 4) : run[k]!);
      at += length + (length & 1);
    }
    if (y < 0) return;
  }
}

/** The 24-bit BMP we write: its header's bytes, a row's bytes (padded to 4) and the file's (native/bmp_sink.c writes the same). */
export function bmpLayout(width: number, height: number): { headerSize: number; stride: number; size: number } {
  const stride = Math.ceil((width * 3) / 4) * 4;
  const headerSize = 14 + 40;
  return { headerSize, stride, size: headerSize + stride * height };
}
