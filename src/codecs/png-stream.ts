// A PNG written as its rows arrive, for results too large to hold (the local upscaler's 8192 x
// 8192: 256 MB as a raster, 50 to 150 MB as a file). The rows come a band at a time
// (RasterRows), are filtered with the encoder's adaptive row filter (png-filter.ts) and deflated
// by the runtime's zlib as a stream, and the file leaves as IDAT chunks of about a megabyte, so
// what is held at once is a band, two rows, zlib's window and one chunk. The caller sends the
// chunks on as they come (an R2 multipart upload: storage/results.ts hostPieces).
//
// Why not the C writers (native.ts): a WASM call is synchronous, so everything it writes stays in
// memory until it returns; nothing can be uploaded in between. This writer awaits between bands.
// It writes the one layout an upscale needs: 8-bit RGB, or RGBA when the rows may be translucent.

import { createDeflate } from "node:zlib";
import { crc32 } from "../ids/crc32.ts";
import { PNG_DEFLATE } from "./deflate.ts";
import type { RasterRows } from "./formats.ts";
import { RowFilter } from "./png-filter.ts";

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const IDAT_TYPE = new TextEncoder().encode("IDAT");
/** Compressed bytes gathered into one IDAT chunk before it is handed on. */
const IDAT_BYTES = 1 << 20;
/** zlib level: 3, the TypeScript encoder's level for photographic rows (png.ts PNG_LEVEL_PHOTO). */
const LEVEL = 3;

/** One chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  const typeBytes = new TextEncoder().encode(type);
  out.set(typeBytes, 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(typeBytes, data));
  return out;
}

function header(width: number, height: number, alpha: boolean): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr[8] = 8; // bit depth
  ihdr[9] = alpha ? 6 : 2; // RGBA or RGB; compression, filter and interlace stay 0
  const head = chunk("IHDR", ihdr);
  const out = new Uint8Array(SIGNATURE.length + head.length);
  out.set(SIGNATURE);
  out.set(head, SIGNATURE.length);
  return out;
}

/**
 * The PNG of `rows`, in pieces: the signature and IHDR, IDAT chunks as the compressed data
 * grows, then IEND. Each band is read only when the pieces before it have been taken, so a
 * caller that uploads each piece before asking for the next holds one band at a time. A piece is
 * valid until the next is asked for (its buffer is reused): copy it to keep it.
 */
export async function* pngPieces(rows: RasterRows): AsyncGenerator<Uint8Array> {
  const { width, height, alpha } = rows;
  const bpp = alpha ? 4 : 3;
  const rowBytes = width * bpp;
  yield header(width, height, alpha);

  const deflater = createDeflate({ ...PNG_DEFLATE, level: LEVEL, chunkSize: 64 * 1024 });
  const compressed: Uint8Array[] = [];
  let compressedBytes = 0;
  let failure: Error | null = null;
  deflater.on("data", (piece: Uint8Array) => {
    compressed.push(piece);
    compressedBytes += piece.length;
  });
  deflater.on("error", (error: Error) => {
    failure ??= error;
  });
  const ended = new Promise<void>((resolve) => {
    deflater.on("end", resolve);
    deflater.on("error", () => resolve());
  });
  // One IDAT chunk's buffer, reused: each piece is taken before the next is made.
  const idat = new Uint8Array(12 + IDAT_BYTES);
  const idatView = new DataView(idat.buffer);
  idat.set(IDAT_TYPE, 4);
  /** IDAT chunks of what has been compressed: whole IDAT_BYTES ones, or everything at the end. */
  const idats = function* (all: boolean): Generator<Uint8Array> {
    while (compressedBytes >= IDAT_BYTES || (all && compressedBytes > 0)) {
      const n = Math.min(IDAT_BYTES, compressedBytes);
      takeBytes(compressed, idat.subarray(8, 8 + n));
      compressedBytes -= n;
      idatView.setUint32(0, n);
      idatView.setUint32(8 + n, crc32(idat.subarray(4, 8 + n)));
      yield idat.subarray(0, 12 + n);
    }
  };

  const filter = new RowFilter(bpp);
  let raw = new Uint8Array(rowBytes);
  let prev = new Uint8Array(rowBytes); // the row above, unfiltered (zeros at the top)
  let written = 0;
  // The filtered rows of a band, reused once zlib has taken them (the write's callback).
  let filteredBuffer = new Uint8Array(0);
  try {
    for (const band of rows.bands) {
      const count = band.length / (width * 4);
      if (filteredBuffer.length < count * (rowBytes + 1)) filteredBuffer = new Uint8Array(count * (rowBytes + 1));
      const filtered = filteredBuffer.subarray(0, count * (rowBytes + 1));
      for (let k = 0; k < count; k++) {
        const rgba = band.subarray(k * width * 4, (k + 1) * width * 4);
        if (alpha) raw.set(rgba);
        else for (let x = 0, s = 0, d = 0; x < width; x++, s += 4, d += 3) (raw[d] = rgba[s]!), (raw[d + 1] = rgba[s + 1]!), (raw[d + 2] = rgba[s + 2]!);
        filter.filter(raw, prev, filtered.subarray(k * (rowBytes + 1), (k + 1) * (rowBytes + 1)));
        [raw, prev] = [prev, raw];
      }
      written += count;
      await new Promise<void>((resolve) => deflater.write(filtered, () => resolve()));
      if (failure) throw failure;
      yield* idats(false);
    }
    if (written !== height) throw new Error(`the rows ended at ${written} of ${height}`);
    deflater.end();
    await ended;
    if (failure) throw failure;
    yield* idats(true);
    yield chunk("IEND", new Uint8Array(0));
  } finally {
    deflater.destroy();
  }
}

/** Fills `out` with the first bytes of `pieces`, removed from it. */
function takeBytes(pieces: Uint8Array[], out: Uint8Array): void {
  const n = out.length;
  let at = 0;
  while (at < n) {
    const piece = pieces[0]!;
    const take = Math.min(piece.length, n - at);
    out.set(piece.subarray(0, take), at);
    at += take;
    if (take === piece.length) pieces.shift();
    else pieces[0] = piece.subarray(take);
  }
}
