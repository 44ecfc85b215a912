// TIFF: only the first image (IFD0) is read or written.
//
// Writing: no pure-JS library writes JPEG-compressed TIFF, and the spec asks for it (4.14). So a
// baseline JPEG from MozJPEG (quality 80, 4:2:0) goes into a minimal TIFF container: one strip,
// Compression 7 (JPEG), PhotometricInterpretation 6 (YCbCr) with YCbCrSubSampling 2,2 matching
// the stream, and ReferenceBlackWhite spelled out as TIFF Technote 2 recommends. libtiff reads
// it (checked with tiffinfo/tiffcp). Alpha is composited onto black. The JPEG's JFIF APP0 is
// dropped (TIFF carries the colour information) and no EXIF or ICC tag is ever written.
//
// Reading: the structure is checked first, before the charge (tiff-structure.ts and
// assertTiffDecodable). JPEG-compressed YCbCr or grey strips (our own output, and what most
// photo TIFFs are) are then decoded by one MozJPEG instance, strip by strip; everything else goes
// through utif2, which covers the other compressions and colour models, and sees IFD0 only.
// Deflate, LZW and PackBits chunks are decompressed for utif2, each bounded by the rows it can
// hold (tiff-compression.ts): utif2 itself would let one strip inflate to gigabytes.
// Other compressions are refused before the charge (DECODABLE_COMPRESSIONS): utif2's CCITT fax
// decoders have no bound at all (a 30 KB Group 4 strip of repeated make-up codes kept Node busy
// for 65 s), and the rest (old-style JPEG, JPEG 2000, ...) are rare enough not to risk.

import UTIF from "utif2";
import { PixelgateError } from "../errors.ts";
import { ByteReader, invalidImage } from "./bytes.ts";
import { spendWork } from "./fuel.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { encodeBaselineJpeg, jpegStreamDecoder, readJpegFrame, readJpegScans } from "./jpeg.ts";
import { maxPixelsFor } from "./limits.ts";
import { decompressedHere, unpackChunks, unpackedBytes } from "./tiff-compression.ts";
import {
  TAG,
  TYPE_SIZE,
  assertDirectoryGraph,
  assertValuesInside,
  chunkLayout,
  first,
  readIfd0,
  tiffReader,
  values,
  type Chunk,
  type ChunkLayout,
  type Ifd,
} from "./tiff-structure.ts";

export const TIFF_INFO = FORMAT_INFO.tiff;
/** The JPEG quality inside TIFF: the same fixed setting as JPEG output. */
export const TIFF_JPEG_QUALITY = 80;

export function readTiffHeader(bytes: Uint8Array): { width: number; height: number } {
  const ifd = readIfd0(bytes);
  return { width: first(ifd, TAG.ImageWidth), height: first(ifd, TAG.ImageLength) };
}

/** IFD0 and what decoding it takes, every part checked against the file (tiff-structure.ts). */
interface TiffImage {
  ifd: Ifd;
  width: number;
  height: number;
  compression: number;
  layout: ChunkLayout;
  /** JPEGTables (compression 7), prepended to every strip or tile. */
  tables: Uint8Array | null;
  /** Our MozJPEG strip decoder reads it; otherwise utif2 does. */
  jpegStrips: boolean;
}

/**
 * Everything about a TIFF that can be judged from its structure alone, before the charge (see
 * tiff-structure.ts): the directory graph, IFD0's tag values, the strip or tile layout, the
 * size of each JPEG strip's frame and its scan count, and the buffer utif2 would allocate.
 */
export function assertTiffDecodable(bytes: Uint8Array): void {
  inspectTiff(bytes);
}

/**
 * Compressions decoded with a bound on work and memory: none, LZW (5), JPEG (7), Deflate (8 and
 * 32946) and PackBits (32773).
 */
const DECODABLE_COMPRESSIONS = new Set([1, 5, 7, 8, 32773, 32946]);
const COMPRESSION_NAMES: Record<number, string> = { 2: "CCITT RLE", 3: "CCITT Group 3 fax", 4: "CCITT Group 4 fax", 6: "old-style JPEG", 34712: "JPEG 2000" };

function inspectTiff(bytes: Uint8Array): TiffImage {
  assertDirectoryGraph(tiffReader(bytes));
  const ifd = readIfd0(bytes);
  assertValuesInside(ifd);
  const width = first(ifd, TAG.ImageWidth);
  const height = first(ifd, TAG.ImageLength);
  const compression = first(ifd, TAG.Compression, 1);
  if (!DECODABLE_COMPRESSIONS.has(compression)) {
    const name = COMPRESSION_NAMES[compression] ?? `compression ${compression}`;
    throw new PixelgateError(
      "unsupported_image_format",
      `The TIFF uses ${name}, which is not supported. Save it uncompressed or with LZW, Deflate, PackBits or JPEG compression, or send a PNG.`,
      { param: "image" },
    );
  }
  const tablesEntry = compression === 7 ? ifd.entries.get(TAG.JPEGTables) : undefined;
  const tables = tablesEntry ? ifd.r.slice(tablesEntry.valueOffset, tablesEntry.count) : null;
  const layout = chunkLayout(ifd, width, height, tables?.length ?? 0);
  const photometric = first(ifd, TAG.Photometric, -1);
  const samples = first(ifd, TAG.SamplesPerPixel, 1);
  const jpegStrips =
    compression === 7 &&
    !layout.tiled &&
    values(ifd, TAG.BitsPerSample).every((b) => b === 8) &&
    ((photometric === 6 && samples === 3 && first(ifd, TAG.PlanarConfiguration, 1) === 1) || (photometric === 1 && samples === 1));
  const image = { ifd, width, height, compression, layout, tables, jpegStrips };

  if (compression === 7) {
    // Each strip or tile is a JPEG of its own: its frame must be the chunk (a 1-row strip that
    // claims 65535 rows would be decoded in full) and its scans must stay under the JPEG limit.
    const { chunkWidth, chunkHeight } = layout;
    for (const chunk of layout.chunks) {
      const frame = readJpegScans(jpegChunkStream(image, chunk));
      if (frame.width !== chunkWidth || frame.height < chunk.rows || frame.height > chunkHeight) {
        throw invalidImage(`A TIFF JPEG ${layout.tiled ? "tile" : "strip"} is ${frame.width}x${frame.height}, where the layout needs ${chunkWidth}x${chunk.rows}.`);
      }
    }
  }
  if (!jpegStrips) {
    // utif2 unpacks the samples into one buffer (and one tile buffer) before converting to RGBA;
    // Deflate, LZW and PackBits chunks are decompressed into another one first, for utif2 to read.
    const bitsPerPixel = first(ifd, TAG.BitsPerSample, 1) * samples;
    const utifBytes = Math.max(width, layout.chunkWidth) * Math.max(height, layout.chunkHeight) * (bitsPerPixel / 8);
    const rawBytes = Math.max(utifBytes, decompressedHere(compression) ? unpackedBytes(layout) : 0);
    if (rawBytes > 4 * maxPixelsFor("tiff")) {
      throw new PixelgateError("image_too_large", `The TIFF's ${bitsPerPixel}-bit samples need ${Math.ceil(rawBytes)} bytes to decode; at most ${4 * maxPixelsFor("tiff")} can be used.`, { param: "image" });
    }
  }
  return image;
}

/** A strip or tile as a JPEG stream: the chunk itself, or JPEGTables + the chunk (abbreviated). */
function jpegChunkStream(image: TiffImage, chunk: Chunk): Uint8Array {
  const strip = image.ifd.r.slice(chunk.offset, chunk.length);
  const tables = image.tables;
  if (!tables) return strip;
  // Tables without their EOI, then the strip without its SOI.
  const head = tables.length >= 2 && tables[tables.length - 2] === 0xff && tables[tables.length - 1] === 0xd9 ? tables.subarray(0, -2) : tables;
  const body = strip[0] === 0xff && strip[1] === 0xd8 ? strip.subarray(2) : strip;
  const joined = new Uint8Array(head.length + body.length);
  joined.set(head);
  joined.set(body, head.length);
  return joined;
}

export async function decodeTiff(bytes: Uint8Array): Promise<RasterImage> {
  const image = inspectTiff(bytes);
  return image.jpegStrips ? decodeJpegStrips(image) : decodeWithUtif(bytes, image);
}

/** JPEG-in-TIFF strips through MozJPEG, one decoder instance for all of them. */
async function decodeJpegStrips(image: TiffImage): Promise<RasterImage> {
  const { width, height, layout } = image;
  const decode = await jpegStreamDecoder();
  const data = new Uint8ClampedArray(width * height * 4);
  let row = 0;
  for (const chunk of layout.chunks) {
    const strip = decode(jpegChunkStream(image, chunk));
    if (strip.width !== width || strip.height < chunk.rows) throw invalidImage("A TIFF strip does not match the image size.");
    data.set(strip.data.subarray(0, width * chunk.rows * 4), row * width * 4);
    row += chunk.rows;
  }
  return { width, height, data };
}

/** Any other TIFF, through utif2 (first image only). */
async function decodeWithUtif(bytes: Uint8Array, image: TiffImage): Promise<RasterImage> {
  const ifd = utifSamples(bytes, image);
  let rgba: Uint8Array;
  try {
    rgba = UTIF.toRGBA8(ifd);
  } catch {
    throw invalidImage("The TIFF could not be decoded.");
  }
  const { width, height } = ifd;
  if (!width || !height || rgba.length !== width * height * 4) throw invalidImage("The TIFF could not be decoded.");
  return { width, height, data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length) };
}

/**
 * IFD0 as utif2 reads it, with its samples unpacked into ifd.data. Deflate, LZW and PackBits
 * chunks are decompressed here first (each bounded, tiff-compression.ts) and utif2 is handed
 * them as uncompressed chunks in a buffer of their own. A function of its own so that buffer
 * is garbage once the samples are out, before toRGBA8 allocates the RGBA image.
 */
function utifSamples(bytes: Uint8Array, image: TiffImage): UTIF.IFD {
  const file = onlyIfd0(bytes, image.ifd);
  const unpacked = decompressedHere(image.compression) ? unpackChunks(bytes, image.layout, image.compression) : null;
  spendWork(image.width * image.height + (unpacked?.buffer.byteLength ?? file.byteLength));
  try {
    // parseMN false: camera MakerNotes are skipped, not parsed (we drop all metadata anyway).
    const decode = UTIF.decode as (buffer: ArrayBuffer, options: { parseMN: boolean; debug: boolean }) => UTIF.IFD[];
    const ifd = decode(file, { parseMN: false, debug: false })[0];
    if (!ifd) throw new Error("no image");
    if (unpacked) {
      const [offsetTag, countTag] = image.layout.tiled ? [TAG.TileOffsets, TAG.TileByteCounts] : [TAG.StripOffsets, TAG.StripByteCounts];
      ifd[`t${TAG.Compression}`] = [1];
      ifd[`t${offsetTag}`] = unpacked.offsets;
      ifd[`t${countTag}`] = unpacked.counts;
    }
    UTIF.decodeImage(unpacked?.buffer ?? file, ifd);
    return ifd;
  } catch {
    // utif2 throws strings, Errors and RangeErrors alike; any of them means we cannot read it.
    throw invalidImage("The TIFF could not be decoded.");
  }
}

/** The directory tags utif2 follows into further directories (UTIF._readIFD). */
const UTIF_FOLLOWS = new Set([TAG.SubIFDs, TAG.ExifIFD, TAG.GpsIFD, 50740, 61440]);

/**
 * utif2 parses every directory it can reach (the whole next-IFD chain, SubIFDs, EXIF, GPS, DNG
 * and Fuji blocks), with no cycle check. Only IFD0 is used, so it gets a copy of the file in
 * which IFD0 leads nowhere: its next pointer is 0 and its pointer tags are renamed to tag 0,
 * which means nothing. The walk before the charge already refused hostile graphs; this keeps
 * utif2's work to one directory whatever it would have followed. (Exported for its test.)
 */
export function onlyIfd0(bytes: Uint8Array, ifd0: Ifd = readIfd0(bytes)): ArrayBuffer {
  const copy = bytes.slice();
  const r = new ByteReader(copy, ifd0.r.littleEndian, "TIFF");
  const v = new DataView(copy.buffer);
  v.setUint32(ifd0.nextAt, 0, r.littleEndian);
  for (let at = ifd0.offset + 2; at < ifd0.nextAt; at += 12) if (UTIF_FOLLOWS.has(r.u16(at))) v.setUint16(at, 0, r.littleEndian);
  return copy.buffer;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Drops APPn segments (JFIF) from a JPEG stream: TIFF tags describe the colour model. */
function withoutAppSegments(jpeg: Uint8Array): Uint8Array {
  const { scanOffset } = readJpegFrame(jpeg);
  const r = new ByteReader(jpeg);
  const keep: [number, number][] = [[0, 2]];
  for (let offset = 2; offset < scanOffset; ) {
    const marker = r.u8(offset + 1);
    const end = offset + 2 + r.u16(offset + 2);
    if (marker < 0xe0 || marker > 0xef) keep.push([offset, end]);
    offset = end;
  }
  keep.push([scanOffset, jpeg.length]);
  const out = new Uint8Array(keep.reduce((n, [a, b]) => n + b - a, 0));
  let at = 0;
  for (const [a, b] of keep) {
    out.set(jpeg.subarray(a, b), at);
    at += b - a;
  }
  return out;
}

export async function encodeTiff(image: RasterImage): Promise<Uint8Array> {
  return tiffAroundJpeg(await encodeBaselineJpeg(image, TIFF_JPEG_QUALITY), image.width, image.height)!;
}

/**
 * A TIFF whose one strip is `baselineJpeg` (YCbCr 4:2:0, three components), its APPn segments
 * dropped. Null for a JPEG of another component count, which these tags would not describe.
 */
export function tiffAroundJpeg(baselineJpeg: Uint8Array, width: number, height: number): Uint8Array | null {
  if (readJpegFrame(baselineJpeg).components !== 3) return null;
  const jpeg = withoutAppSegments(baselineJpeg);

  const SHORT = 3, LONG = 4, RATIONAL = 5;
  // [tag, type, count, inline value or out-of-line bytes], ascending tag order as TIFF requires.
  type Value = number | number[];
  const entries: [number, number, number, Value][] = [
    [TAG.ImageWidth, LONG, 1, width],
    [TAG.ImageLength, LONG, 1, height],
    [TAG.BitsPerSample, SHORT, 3, [8, 8, 8]],
    [TAG.Compression, SHORT, 1, 7],
    [TAG.Photometric, SHORT, 1, 6],
    [TAG.StripOffsets, LONG, 1, 0], // patched below
    [TAG.SamplesPerPixel, SHORT, 1, 3],
    [TAG.RowsPerStrip, LONG, 1, height],
    [TAG.StripByteCounts, LONG, 1, jpeg.length],
    [TAG.XResolution, RATIONAL, 1, [72, 1]],
    [TAG.YResolution, RATIONAL, 1, [72, 1]],
    [TAG.PlanarConfiguration, SHORT, 1, 1],
    [TAG.ResolutionUnit, SHORT, 1, 2], // inches
    [TAG.YCbCrSubSampling, SHORT, 2, [2, 2]],
    [TAG.ReferenceBlackWhite, RATIONAL, 6, [0, 1, 255, 1, 128, 1, 255, 1, 128, 1, 255, 1]],
  ];

  const ifdOffset = 8;
  const ifdSize = 2 + entries.length * 12 + 4;
  // Out-of-line values follow the IFD; then the JPEG strip (word-aligned).
  let extra = ifdOffset + ifdSize;
  const placed = entries.map(([tag, type, count, value]) => {
    const bytes = TYPE_SIZE[type]! * count;
    if (bytes <= 4) return { tag, type, count, value, at: -1 };
    const at = extra;
    extra += bytes + (bytes & 1);
    return { tag, type, count, value, at };
  });
  const stripOffset = extra + (extra & 1);
  const out = new Uint8Array(stripOffset + jpeg.length);
  const v = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0], 0); // "II*\0": little-endian
  v.setUint32(4, ifdOffset, true);
  v.setUint16(ifdOffset, entries.length, true);
  placed.forEach(({ tag, type, count, value, at }, i) => {
    const e = ifdOffset + 2 + i * 12;
    v.setUint16(e, tag, true);
    v.setUint16(e + 2, type, true);
    v.setUint32(e + 4, count, true);
    const list = Array.isArray(value) ? value : [tag === TAG.StripOffsets ? stripOffset : value];
    const target = at < 0 ? e + 8 : at;
    if (at >= 0) v.setUint32(e + 8, at, true);
    list.forEach((n, k) => {
      if (type === SHORT) v.setUint16(target + k * 2, n, true);
      else v.setUint32(target + k * 4, n, true); // LONG, and RATIONAL as numerator/denominator pairs
    });
  });
  v.setUint32(ifdOffset + 2 + entries.length * 12, 0, true); // no further IFD
  out.set(jpeg, stripOffset);
  return out;
}
