// TIFF structure, read without decoding: directories (IFDs), their tags, and where the strips
// or tiles of the first image lie. Every read is bounds-checked (ByteReader), so a corrupt file
// fails as invalid_image. The limits that keep a small hostile file from buying seconds of CPU
// or hundreds of MB are checked here too, from the structure alone, so tiff.ts can run them
// before the charge.

import { PixelgateError } from "../errors.ts";
import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { maxPixelsFor } from "./limits.ts";

export const TAG = {
  ImageWidth: 256,
  ImageLength: 257,
  BitsPerSample: 258,
  Compression: 259,
  Photometric: 262,
  StripOffsets: 273,
  SamplesPerPixel: 277,
  RowsPerStrip: 278,
  StripByteCounts: 279,
  XResolution: 282,
  YResolution: 283,
  PlanarConfiguration: 284,
  ResolutionUnit: 296,
  TileWidth: 322,
  TileLength: 323,
  TileOffsets: 324,
  TileByteCounts: 325,
  SubIFDs: 330,
  JPEGTables: 347,
  YCbCrSubSampling: 530,
  ReferenceBlackWhite: 532,
  ExifIFD: 34665,
  GpsIFD: 34853,
  InteropIFD: 40965,
} as const;

export const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 };

/** Tags whose values are offsets of further directories (TIFF 6.0, Technote 1, EXIF 2.3). */
const DIRECTORY_TAGS = [TAG.SubIFDs, TAG.ExifIFD, TAG.GpsIFD, TAG.InteropIFD];

/**
 * Directories (pages, sub-images, EXIF and GPS blocks) a file may have in all. Only IFD0 is read,
 * but every directory is walked to check the file's shape. A 20 MB multi-page fax holds a few
 * hundred pages; 4096 is far beyond any real file and keeps the walk to milliseconds.
 */
export const MAX_TIFF_DIRECTORIES = 4096;
/** Tag entries over all directories, for the same reason (a directory may hold 65535). */
const MAX_TIFF_ENTRIES = 1 << 20;

/**
 * Strips or tiles the first image may be split into. libtiff's default strips hold about 8 KB
 * of pixels, which for the largest image we decode (maxPixelsFor("tiff"), 8-bit RGBA) is 8192
 * strips; each one costs a decoder call, so an absurd count is refused instead of paid for.
 */
export const MAX_TIFF_CHUNKS = 16_384;
/**
 * Bytes of strip or tile data read in all, counting shared JPEGTables once per chunk. An honest
 * file's strips are distinct bytes of a file of at most 20 MB; only strips that point at the same
 * bytes (allowed, and used by the corpus) can add up to more, and this bounds what that costs.
 */
export const MAX_TIFF_CHUNK_BYTES = 64 * 1024 * 1024;

export interface Entry {
  type: number;
  count: number;
  /** Offset of the value bytes (inline or pointed to). */
  valueOffset: number;
}

export interface Ifd {
  r: ByteReader;
  offset: number;
  entries: Map<number, Entry>;
  /** Offset of the 4-byte "next IFD" pointer. */
  nextAt: number;
}

export function tiffReader(bytes: Uint8Array): ByteReader {
  const little = hasAscii(bytes, 0, "II*\0");
  if (!little && !hasAscii(bytes, 0, "MM\0*")) throw invalidImage("The data is not a TIFF (bad byte-order header).");
  return new ByteReader(bytes, little, "TIFF");
}

/** The directory at `offset`; it must lie inside the file, next-IFD pointer included. */
export function readIfd(r: ByteReader, offset: number): Ifd {
  const count = r.u16(offset);
  const nextAt = offset + 2 + count * 12;
  r.u32(nextAt);
  const entries = new Map<number, Entry>();
  for (let i = 0; i < count; i++) {
    const at = offset + 2 + i * 12;
    const type = r.u16(at + 2);
    const n = r.u32(at + 4);
    const size = (TYPE_SIZE[type] ?? 1) * n;
    entries.set(r.u16(at), { type, count: n, valueOffset: size <= 4 ? at + 8 : r.u32(at + 8) });
  }
  return { r, offset, entries, nextAt };
}

export function readIfd0(bytes: Uint8Array): Ifd {
  const r = tiffReader(bytes);
  return readIfd(r, r.u32(4));
}

/** All values of a BYTE/SHORT/LONG/IFD tag (throws invalid_image if they run past the file). */
export function values(ifd: Ifd, tag: number): number[] {
  const e = ifd.entries.get(tag);
  if (!e) return [];
  const out: number[] = [];
  for (let k = 0; k < e.count; k++) {
    if (e.type === 3) out.push(ifd.r.u16(e.valueOffset + k * 2));
    else if (e.type === 4 || e.type === 13) out.push(ifd.r.u32(e.valueOffset + k * 4));
    else if (e.type === 1 || e.type === 7) out.push(ifd.r.u8(e.valueOffset + k));
    else throw invalidImage(`The TIFF tag ${tag} has an unexpected type ${e.type}.`);
  }
  return out;
}

export function first(ifd: Ifd, tag: number, fallback?: number): number {
  const v = values(ifd, tag)[0] ?? fallback;
  if (v === undefined) throw invalidImage(`The TIFF lacks the required tag ${tag}.`);
  return v;
}

/**
 * Walks every directory the file links to (the next-IFD chain and the SubIFD, EXIF, GPS and
 * Interoperability pointers) and refuses a graph that reaches any directory twice, which covers
 * loops and "fan-out" files where a few hundred bytes of pointers make a reader that follows them
 * parse millions of directories, or one bigger than the limits above.
 */
export function assertDirectoryGraph(r: ByteReader): void {
  const pending = [r.u32(4)];
  const seen = new Set<number>();
  let entries = 0;
  while (pending.length > 0) {
    const offset = pending.pop()!;
    if (seen.has(offset)) throw invalidImage("The TIFF directories loop or are shared: a directory is reached twice.");
    seen.add(offset);
    const ifd = readIfd(r, offset);
    entries += ifd.entries.size;
    if (entries > MAX_TIFF_ENTRIES) throw invalidImage(`The TIFF directories hold more than ${MAX_TIFF_ENTRIES} tags.`);
    const next = r.u32(ifd.nextAt);
    if (next !== 0) pending.push(next);
    for (const tag of DIRECTORY_TAGS) {
      // Checked before reading the values, so a pointer list of millions is never built.
      if ((ifd.entries.get(tag)?.count ?? 0) > MAX_TIFF_DIRECTORIES) throw tooManyDirectories();
      for (const child of values(ifd, tag)) if (child !== 0) pending.push(child);
    }
    if (seen.size + pending.length > MAX_TIFF_DIRECTORIES) throw tooManyDirectories();
  }
}

function tooManyDirectories(): PixelgateError {
  return invalidImage(`The TIFF has more than ${MAX_TIFF_DIRECTORIES} directories (pages, sub-images and metadata blocks).`);
}

/**
 * utif2 reads every value of every IFD0 tag into arrays, whatever the tag: each value list must
 * lie inside the file, and together they may not claim more bytes than the file has (lists that
 * overlap would multiply the work and memory). Unknown types are skipped, as readers do.
 */
export function assertValuesInside(ifd: Ifd): void {
  let total = 0;
  for (const [tag, e] of ifd.entries) {
    const size = (TYPE_SIZE[e.type] ?? 0) * e.count;
    if (size <= 4) continue;
    if (e.valueOffset + size > ifd.r.length) throw invalidImage(`The values of TIFF tag ${tag} lie outside the file.`);
    total += size;
  }
  if (total > ifd.r.length) throw invalidImage("The TIFF tags claim more bytes than the file holds.");
}

/** One strip or tile as stored: its bytes and the image rows it carries. */
export interface Chunk {
  offset: number;
  length: number;
  /** Rows of the image in this chunk (fewer than chunkHeight in the last strip). */
  rows: number;
}

export interface ChunkLayout {
  tiled: boolean;
  /** Size of a chunk as stored: the image width and RowsPerStrip, or the tile size. */
  chunkWidth: number;
  chunkHeight: number;
  /** Bytes of one row of a chunk once decompressed (one plane's samples when planar). */
  rowBytes: number;
  chunks: Chunk[];
}

/**
 * Where the pixels of IFD0 lie, checked against the file without reading them: as many strips or
 * tiles as the image size needs (at most MAX_TIFF_CHUNKS), each inside the file and non-empty,
 * uncompressed ones long enough for their rows, and at most MAX_TIFF_CHUNK_BYTES in all (plus
 * `perChunkBytes`, the JPEGTables prepended to each). A reader handed a strip past the end of
 * the file reads zeros and reports success, so "inside the file" is what makes a cut-off file
 * an error rather than a half-black picture.
 */
export function chunkLayout(ifd: Ifd, width: number, height: number, perChunkBytes: number): ChunkLayout {
  const tiled = ifd.entries.has(TAG.TileWidth);
  const chunkWidth = tiled ? first(ifd, TAG.TileWidth) : width;
  const chunkHeight = tiled ? first(ifd, TAG.TileLength) : Math.min(first(ifd, TAG.RowsPerStrip, height), height);
  if (chunkWidth < 1 || chunkHeight < 1) throw invalidImage(`The TIFF ${tiled ? "tiles have" : "strips have"} no size.`);
  if (chunkWidth * chunkHeight > maxPixelsFor("tiff")) throw invalidImage(`The TIFF tiles are ${chunkWidth}x${chunkHeight}, larger than any image we decode.`);
  const across = Math.ceil(width / chunkWidth);
  const down = Math.ceil(height / chunkHeight);
  const planes = first(ifd, TAG.PlanarConfiguration, 1) === 2 ? first(ifd, TAG.SamplesPerPixel, 1) : 1;
  const expected = across * down * planes;
  const what = tiled ? "tiles" : "strips";
  if (expected > MAX_TIFF_CHUNKS) throw invalidImage(`The TIFF is split into ${expected} ${what}; at most ${MAX_TIFF_CHUNKS} are read.`);

  const offsetTag = tiled ? TAG.TileOffsets : TAG.StripOffsets;
  const countTag = tiled ? TAG.TileByteCounts : TAG.StripByteCounts;
  const listed = [offsetTag, countTag].map((tag) => ifd.entries.get(tag)?.count ?? 0);
  if (listed.some((n) => n !== expected)) {
    throw invalidImage(`The TIFF lists ${listed[0]} ${what} and ${listed[1]} byte counts where its size needs ${expected}.`);
  }
  const offsets = values(ifd, offsetTag);
  const counts = values(ifd, countTag);

  // Uncompressed data has a known size: rows x bytes per row (one plane per chunk when planar).
  const uncompressed = first(ifd, TAG.Compression, 1) === 1;
  const bitsPerPixel = first(ifd, TAG.BitsPerSample, 1) * (planes > 1 ? 1 : first(ifd, TAG.SamplesPerPixel, 1));
  const rowBytes = Math.ceil((chunkWidth * bitsPerPixel) / 8);
  if (rowBytes < 1) throw invalidImage("The TIFF pixels have no bits (BitsPerSample or SamplesPerPixel is 0).");
  let total = 0;
  const chunks = offsets.map((offset, i): Chunk => {
    const band = Math.floor((i % (across * down)) / across);
    const rows = tiled ? chunkHeight : Math.min(chunkHeight, height - band * chunkHeight);
    const length = counts[i]!;
    if (length === 0 || offset + length > ifd.r.length) throw invalidImage(`A TIFF ${what.slice(0, -1)} lies outside the file (the file is cut short or corrupt).`);
    if (uncompressed && length < rows * rowBytes) throw invalidImage(`An uncompressed TIFF ${what.slice(0, -1)} holds fewer bytes than its rows need.`);
    total += length + perChunkBytes;
    if (total > MAX_TIFF_CHUNK_BYTES) throw invalidImage(`The TIFF ${what} add up to more than ${MAX_TIFF_CHUNK_BYTES} bytes.`);
    return { offset, length, rows };
  });
  return { tiled, chunkWidth, chunkHeight, rowBytes, chunks };
}
