// Deflate, LZW and PackBits strips and tiles are decompressed here rather than by utif2, each
// into at most the bytes it can legitimately hold: RowsPerStrip (or TileLength) rows of the
// chunk's width. utif2 has no such bound. It inflates Deflate with pako into a buffer of
// whatever size the data asks for (a 200 KB strip of zeros is 200 MB: an out-of-memory 500
// after the charge), and its LZW and PackBits loops keep going past the strip for as long as
// the data says (LZW can ask for ~2,500 bytes per input byte: seconds of CPU from one file).
// Decoding happens after the charge; a chunk that would pass its bound, or ends short of its
// rows, is corrupt and refused as invalid_image, which is refunded. utif2 then reads the
// result as uncompressed data.

import { invalidImage } from "./bytes.ts";
import { inflateAtMost } from "./deflate.ts";
import type { ChunkLayout } from "./tiff-structure.ts";

const LZW = 5;
const PACKBITS = 32773;
/** Deflate has two codes: 8 (Adobe) and 32946 (the older PKZIP-style one). */
const DEFLATE = [8, 32946];

/** Whether chunks of this Compression are decompressed here, before utif2 sees them. */
export function decompressedHere(compression: number): boolean {
  return compression === LZW || compression === PACKBITS || DEFLATE.includes(compression);
}

/** The bytes all decompressed chunks take: what unpackChunks allocates. */
export function unpackedBytes(layout: ChunkLayout): number {
  return layout.chunks.reduce((n, chunk) => n + chunk.rows, 0) * layout.rowBytes;
}

export interface UnpackedChunks {
  /** The file's byte-order mark, then the rows of every chunk, in order. */
  buffer: ArrayBuffer;
  offsets: number[];
  counts: number[];
}

/**
 * Every chunk of the layout decompressed into one buffer, laid out for utif2 as uncompressed
 * chunks. It starts with the file's byte-order mark ("II" or "MM") because utif2 takes the
 * byte order of 16-bit samples from the buffer it is handed, not from the directory.
 */
export function unpackChunks(bytes: Uint8Array, layout: ChunkLayout, compression: number): UnpackedChunks {
  const what = layout.tiled ? "TIFF tile" : "TIFF strip";
  const limit = layout.rowBytes * layout.chunkHeight;
  const scratch = new Uint8Array(compression === LZW || compression === PACKBITS ? limit : 0);
  const out = new Uint8Array(2 + unpackedBytes(layout));
  out.set(bytes.subarray(0, 2));
  const offsets: number[] = [];
  const counts: number[] = [];
  let at = 2;
  for (const chunk of layout.chunks) {
    const data = bytes.subarray(chunk.offset, chunk.offset + chunk.length);
    const raw =
      compression === LZW ? scratch.subarray(0, lzwDecode(data, scratch, what))
      : compression === PACKBITS ? scratch.subarray(0, packBitsDecode(data, scratch, what))
      : inflateAtMost(data, limit, what);
    // The last strip may hold fewer rows than RowsPerStrip; only the rows it has are kept.
    const size = chunk.rows * layout.rowBytes;
    if (raw.length < size) throw invalidImage(`A ${what} decompresses to ${raw.length} bytes, fewer than the ${size} its rows need.`);
    out.set(raw.subarray(0, size), at);
    offsets.push(at);
    counts.push(size);
    at += size;
  }
  return { buffer: out.buffer, offsets, counts };
}

const CLEAR = 256;
const END = 257;

/**
 * TIFF LZW (codes of 9 to 12 bits, most significant bit first, widening one code early as
 * TIFF 6.0 specifies) into `out`; returns the bytes written. Each code's string is checked
 * against the room left before it is written, so the work is bounded by out.length.
 */
function lzwDecode(src: Uint8Array, out: Uint8Array, what: string): number {
  // Entry k is the string of entry prefix[k] followed by the byte last[k].
  const prefix = new Uint16Array(4096);
  const last = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let c = 0; c < 256; c++) {
    last[c] = first[c] = c;
    length[c] = 1;
  }
  let next = 258;
  let width = 9;
  let previous = -1;
  let bits = 0;
  let held = 0;
  let pos = 0;
  let at = 0;
  for (;;) {
    while (held < width && pos < src.length) {
      bits = ((bits << 8) | src[pos++]!) & 0xffffff;
      held += 8;
    }
    // Data that stops without an END code is accepted, as libtiff does; short rows are not.
    if (held < width) break;
    held -= width;
    const code = (bits >>> held) & ((1 << width) - 1);
    if (code === END) break;
    if (code === CLEAR) {
      next = 258;
      width = 9;
      previous = -1;
      continue;
    }
    if (code > (previous < 0 ? 255 : next)) throw invalidImage(`A ${what}'s LZW data uses a code it has not defined.`);
    // Once the table is full, no entry is added until the next CLEAR.
    if (previous >= 0 && next < 4096) {
      prefix[next] = previous;
      last[next] = first[code === next ? previous : code]!;
      first[next] = first[previous]!;
      length[next] = length[previous]! + 1;
      next++;
      if (next + 1 === 1 << width && width < 12) width++;
    }
    const n = length[code]!;
    if (at + n > out.length) throw invalidImage(`A ${what}'s LZW data decodes to more than its ${out.length} bytes.`);
    for (let k = at + n - 1, c = code; k >= at; k--) {
      out[k] = last[c]!;
      c = prefix[c]!;
    }
    at += n;
    previous = code;
  }
  return at;
}

/** PackBits (byte-oriented run lengths) into `out`; returns the bytes written. */
function packBitsDecode(src: Uint8Array, out: Uint8Array, what: string): number {
  let at = 0;
  for (let pos = 0; pos < src.length; ) {
    const n = (src[pos++]! << 24) >> 24;
    if (n === -128) continue; // a no-op, written as padding
    const literal = n >= 0;
    const count = literal ? n + 1 : 1 - n;
    // Data that stops inside a run ends the chunk, as in libtiff; short rows are still refused.
    if (pos + (literal ? count : 1) > src.length) break;
    if (at + count > out.length) throw invalidImage(`A ${what}'s PackBits data decodes to more than its ${out.length} bytes.`);
    if (literal) out.set(src.subarray(pos, pos + count), at);
    else out.fill(src[pos]!, at, at + count);
    pos += literal ? count : 1;
    at += count;
  }
  return at;
}
