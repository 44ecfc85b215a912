// GIF: the first frame is decoded here (a small LZW decoder); native/gif_sink.c writes GIF
// (encodeImage, and uploads written from their rows).
//
// Reading: animation is never preserved (spec 4.14), so only the first image is parsed and
// decoded: a long animation costs no more than its first frame, and later frames are never
// touched. The frame is composited onto a transparent canvas the size of the logical screen
// and clipped to it.
// Writing: one frame, no loop extension. At most 256 colours: an exact palette when the image
// has that few, otherwise median cut (native/png_palette.c). Transparency is 1-bit: alpha < 128
// becomes the one transparent index, everything else is opaque. GIF has no metadata we could copy.

import { PixelgateError } from "../errors.ts";
import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { spendWork } from "./fuel.ts";
import { maxPixelsFor } from "./limits.ts";
import { blankImage } from "./raster.ts";

export const GIF_INFO = FORMAT_INFO.gif;

interface FirstFrame {
  screenWidth: number;
  screenHeight: number;
  x: number;
  y: number;
  width: number;
  height: number;
  interlaced: boolean;
  palette: Uint8Array;
  transparentIndex: number | null;
  /** Offset of the LZW minimum code size byte. */
  dataOffset: number;
}

/** Skips a chain of data sub-blocks starting at `offset`; returns the offset after its terminator. */
function skipSubBlocks(r: ByteReader, offset: number): number {
  for (let size = r.u8(offset); size !== 0; size = r.u8(offset)) offset += 1 + size;
  return offset + 1;
}

/** Parses the logical screen and everything up to the first image descriptor. */
function readFirstFrame(bytes: Uint8Array): FirstFrame {
  if (!hasAscii(bytes, 0, "GIF87a") && !hasAscii(bytes, 0, "GIF89a")) throw invalidImage("The data is not a GIF (bad signature).");
  const r = new ByteReader(bytes, true, "GIF");
  const screenWidth = r.u16(6);
  const screenHeight = r.u16(8);
  const flags = r.u8(10);
  let offset = 13;
  let globalPalette: Uint8Array | null = null;
  if (flags & 0x80) {
    globalPalette = r.slice(offset, 3 << ((flags & 7) + 1));
    offset += globalPalette.length;
  }
  let transparentIndex: number | null = null;
  for (;;) {
    const block = r.u8(offset);
    if (block === 0x21) {
      const label = r.u8(offset + 1);
      if (label === 0xf9 && r.u8(offset + 2) >= 4) {
        // Graphic Control Extension: bit 0 of its flags says whether a transparent index is set.
        transparentIndex = r.u8(offset + 3) & 1 ? r.u8(offset + 6) : null;
      }
      offset = skipSubBlocks(r, offset + 2);
    } else if (block === 0x2c) {
      const x = r.u16(offset + 1);
      const y = r.u16(offset + 3);
      const width = r.u16(offset + 5);
      const height = r.u16(offset + 7);
      const frameFlags = r.u8(offset + 9);
      offset += 10;
      let palette = globalPalette;
      if (frameFlags & 0x80) {
        palette = r.slice(offset, 3 << ((frameFlags & 7) + 1));
        offset += palette.length;
      }
      if (width === 0 || height === 0) throw invalidImage("The first GIF frame has no pixels.");
      if (!palette) throw invalidImage("The first GIF frame has no colour table.");
      return {
        screenWidth,
        screenHeight,
        x,
        y,
        width,
        height,
        interlaced: (frameFlags & 0x40) !== 0,
        palette,
        transparentIndex,
        dataOffset: offset,
      };
    } else if (block === 0x3b) {
      throw invalidImage("The GIF has no image.");
    } else {
      throw invalidImage(`The GIF has an unknown block 0x${block.toString(16)}.`);
    }
  }
}

export function readGifHeader(bytes: Uint8Array): { width: number; height: number } {
  const frame = readFirstFrame(bytes);
  return { width: frame.screenWidth, height: frame.screenHeight };
}

/**
 * What the screen size (readGifHeader) does not tell: the first frame, whose rows are decoded at
 * its own width before being clipped to the screen, must hold at most maxPixelsFor("gif") pixels,
 * and its image data must be there (a valid code size, a sub-block chain that ends). Cheap,
 * and called before the charge.
 */
export function assertGifFrameDecodable(bytes: Uint8Array): void {
  firstFrameData(bytes);
}

/** The first frame and its LZW code size and data, checked as assertGifFrameDecodable says. */
function firstFrameData(bytes: Uint8Array): { frame: FirstFrame; minCodeSize: number; stream: Uint8Array } {
  const frame = readFirstFrame(bytes);
  const { width, height } = frame;
  if (width * height > maxPixelsFor("gif")) {
    throw new PixelgateError(
      "image_too_large",
      `The first GIF frame is ${width}x${height} (${width * height} pixels); at most ${maxPixelsFor("gif")} pixels can be processed.`,
      { param: "image" },
    );
  }
  const r = new ByteReader(bytes, true, "GIF");
  const minCodeSize = r.u8(frame.dataOffset);
  if (minCodeSize < 2 || minCodeSize > 11) throw invalidImage("The GIF image data has an invalid code size.");
  // Gather the sub-blocks into one stream. A chain that runs off the end is a cut-off file.
  const end = skipSubBlocks(r, frame.dataOffset + 1);
  let length = 0;
  for (let at = frame.dataOffset + 1; at < end - 1; at += 1 + r.u8(at)) length += r.u8(at);
  const stream = new Uint8Array(length);
  for (let at = frame.dataOffset + 1, fill = 0; at < end - 1; at += 1 + r.u8(at)) {
    stream.set(r.slice(at + 1, r.u8(at)), fill);
    fill += r.u8(at);
  }
  return { frame, minCodeSize, stream };
}

export async function decodeGif(bytes: Uint8Array): Promise<RasterImage> {
  const { frame, minCodeSize, stream } = firstFrameData(bytes);
  const image = blankImage(frame.screenWidth, frame.screenHeight);
  const out = image.data;
  const palette = frame.palette;
  const colors = palette.length / 3;
  // Only the part of the frame on the screen is kept: columns past its right edge are dropped
  // as rows arrive, and decoding stops after the last stored row that lands on it.
  const columns = Math.max(0, Math.min(frame.width, frame.screenWidth - frame.x));
  const rows = rowOrder(frame.height, frame.interlaced);
  let rowsWanted = 0;
  for (let k = 0; k < frame.height; k++) if (frame.y + rows[k]! < frame.screenHeight) rowsWanted = k + 1;
  if (columns === 0 || rowsWanted === 0) return image;

  // A complete file whose LZW data falls short is sloppy but displayable: the rest stays
  // transparent, as browsers show it.
  lzwDecode(stream, minCodeSize, frame.width, rowsWanted, (k, row, filled) => {
    spendWork(frame.width);
    const y = frame.y + rows[k]!;
    if (y >= frame.screenHeight) return;
    for (let i = 0; i < Math.min(filled, columns); i++) {
      const index = row[i]!;
      if (index === frame.transparentIndex || index >= colors) continue;
      const o = (y * frame.screenWidth + frame.x + i) * 4;
      out[o] = palette[index * 3]!;
      out[o + 1] = palette[index * 3 + 1]!;
      out[o + 2] = palette[index * 3 + 2]!;
      out[o + 3] = 255;
    }
  });
  return image;
}

/** For each stored row, the image row it belongs to (interlaced GIFs store 4 passes). */
function rowOrder(height: number, interlaced: boolean): Uint32Array {
  const rows = new Uint32Array(height);
  if (!interlaced) {
    for (let y = 0; y < height; y++) rows[y] = y;
    return rows;
  }
  let k = 0;
  for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]] as const) {
    for (let y = start; y < height; y += step) rows[k++] = y;
  }
  return rows;
}

/**
 * Variable-length-code LZW as GIF uses it. Decodes at most `rowCount` stored rows of `width`
 * indices, handing each to `onRow` (stored row number, a reused row buffer, how many indices
 * it holds: `width`, or fewer for a last row the data cuts short). Memory: one row.
 */
function lzwDecode(
  stream: Uint8Array,
  minCodeSize: number,
  width: number,
  rowCount: number,
  onRow: (k: number, row: Uint8Array, filled: number) => void,
): void {
  const clear = 1 << minCodeSize;
  const endOfInformation = clear + 1;
  const prefix = new Uint16Array(4096);
  const suffix = new Uint8Array(4096);
  const firstOf = new Uint8Array(4096);
  const stack = new Uint8Array(4097);
  for (let c = 0; c < clear; c++) {
    suffix[c] = c;
    firstOf[c] = c;
  }
  const row = new Uint8Array(width);
  let k = 0;
  let filled = 0;
  const emit = (index: number): boolean => {
    row[filled++] = index;
    if (filled < width) return true;
    onRow(k++, row, width);
    filled = 0;
    return k < rowCount;
  };

  let codeSize = minCodeSize + 1;
  let next = clear + 2;
  let previous = -1;
  let bits = 0;
  let bitCount = 0;
  let at = 0;
  decoding: for (;;) {
    while (bitCount < codeSize && at < stream.length) {
      bits |= stream[at++]! << bitCount;
      bitCount += 8;
    }
    if (bitCount < codeSize) break; // data exhausted
    const code = bits & ((1 << codeSize) - 1);
    bits >>>= codeSize;
    bitCount -= codeSize;

    if (code === clear) {
      codeSize = minCodeSize + 1;
      next = clear + 2;
      previous = -1;
      continue;
    }
    if (code === endOfInformation) break;
    if (previous === -1) {
      if (code >= clear) throw invalidImage("The GIF image data is corrupt.");
      previous = code;
      if (!emit(code)) return;
      continue;
    }
    if (code > next) throw invalidImage("The GIF image data is corrupt.");

    // Emit the string for `code` (or, for the not-yet-defined code, previous + its first byte).
    let depth = 0;
    let c = code;
    if (code === next) {
      stack[depth++] = firstOf[previous]!;
      c = previous;
    }
    while (c >= clear) {
      stack[depth++] = suffix[c]!;
      c = prefix[c]!;
    }
    stack[depth++] = c;
    while (depth > 0) if (!emit(stack[--depth]!)) break decoding;

    if (next < 4096) {
      prefix[next] = previous;
      suffix[next] = c; // first byte of the current string
      firstOf[next] = firstOf[previous]!;
      next++;
      if (next === 1 << codeSize && codeSize < 12) codeSize++;
    }
    previous = code;
  }
  if (filled > 0) onRow(k, row, filled);
}
