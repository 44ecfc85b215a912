// TIFF: only the first image (IFD0) is read or written.
//
// Writing: no pure-JS library writes JPEG-compressed TIFF, and the spec asks for it (4.14). So a
// baseline JPEG from MozJPEG (quality 80, 4:2:0) goes into a minimal TIFF container: one strip,
// Compression 7 (JPEG), PhotometricInterpretation 6 (YCbCr) with YCbCrSubSampling 2,2 matching
// the stream, and ReferenceBlackWhite spelled out as TIFF Technote 2 recommends. libtiff reads
// it (checked with tiffinfo/tiffcp). Alpha is composited onto black. The JPEG's JFIF APP0 is
// dropped (TIFF carries the colour information) and no EXIF or ICC tag is ever written.
//
// Reading: JPEG-compressed YCbCr or grey strips (our own output, and what most photo TIFFs
// are) are decoded by MozJPEG strip by strip; everything else goes through utif2, which
// covers the other compressions and colour models.

import UTIF from "utif2";
import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { decodeJpegStream, encodeBaselineJpeg, readJpegFrame } from "./jpeg.ts";

export const TIFF_INFO = FORMAT_INFO.tiff;
/** The JPEG quality inside TIFF: the same fixed setting as JPEG output. */
export const TIFF_JPEG_QUALITY = 80;

const TAG = {
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
  JPEGTables: 347,
  YCbCrSubSampling: 530,
  ReferenceBlackWhite: 532,
} as const;

const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 };

interface Entry {
  type: number;
  count: number;
  /** Offset of the value bytes (inline or pointed to). */
  valueOffset: number;
}

interface Ifd {
  r: ByteReader;
  entries: Map<number, Entry>;
}

function readIfd0(bytes: Uint8Array): Ifd {
  const little = hasAscii(bytes, 0, "II*\0");
  if (!little && !hasAscii(bytes, 0, "MM\0*")) throw invalidImage("The data is not a TIFF (bad byte-order header).");
  const r = new ByteReader(bytes, little, "TIFF");
  const ifd = r.u32(4);
  const count = r.u16(ifd);
  const entries = new Map<number, Entry>();
  for (let i = 0; i < count; i++) {
    const at = ifd + 2 + i * 12;
    const type = r.u16(at + 2);
    const n = r.u32(at + 4);
    const size = (TYPE_SIZE[type] ?? 1) * n;
    entries.set(r.u16(at), { type, count: n, valueOffset: size <= 4 ? at + 8 : r.u32(at + 8) });
  }
  return { r, entries };
}

/** All values of a SHORT/LONG/BYTE tag (throws invalid_image if they run past the file). */
function values(ifd: Ifd, tag: number): number[] {
  const e = ifd.entries.get(tag);
  if (!e) return [];
  const out: number[] = [];
  for (let k = 0; k < e.count; k++) {
    if (e.type === 3) out.push(ifd.r.u16(e.valueOffset + k * 2));
    else if (e.type === 4) out.push(ifd.r.u32(e.valueOffset + k * 4));
    else if (e.type === 1 || e.type === 7) out.push(ifd.r.u8(e.valueOffset + k));
    else throw invalidImage(`The TIFF tag ${tag} has an unexpected type ${e.type}.`);
  }
  return out;
}

function first(ifd: Ifd, tag: number, fallback?: number): number {
  const v = values(ifd, tag)[0] ?? fallback;
  if (v === undefined) throw invalidImage(`The TIFF lacks the required tag ${tag}.`);
  return v;
}

export function readTiffHeader(bytes: Uint8Array): { width: number; height: number } {
  const ifd = readIfd0(bytes);
  return { width: first(ifd, TAG.ImageWidth), height: first(ifd, TAG.ImageLength) };
}

export async function decodeTiff(bytes: Uint8Array): Promise<RasterImage> {
  const ifd = readIfd0(bytes);
  const width = first(ifd, TAG.ImageWidth);
  const height = first(ifd, TAG.ImageLength);
  const compression = first(ifd, TAG.Compression, 1);
  const photometric = first(ifd, TAG.Photometric, -1);
  const samples = first(ifd, TAG.SamplesPerPixel, 1);
  const jpegStrips =
    compression === 7 &&
    !ifd.entries.has(TAG.TileWidth) &&
    values(ifd, TAG.BitsPerSample).every((b) => b === 8) &&
    ((photometric === 6 && samples === 3 && first(ifd, TAG.PlanarConfiguration, 1) === 1) || (photometric === 1 && samples === 1));
  if (jpegStrips) return decodeJpegStrips(ifd, width, height);
  return decodeWithUtif(bytes, ifd);
}

/** JPEG-in-TIFF strips through MozJPEG: each strip is (JPEGTables +) a JPEG stream. */
async function decodeJpegStrips(ifd: Ifd, width: number, height: number): Promise<RasterImage> {
  const offsets = values(ifd, TAG.StripOffsets);
  const counts = values(ifd, TAG.StripByteCounts);
  const rowsPerStrip = Math.min(first(ifd, TAG.RowsPerStrip, height), height);
  const strips = Math.ceil(height / rowsPerStrip);
  if (offsets.length < strips || counts.length < strips) throw invalidImage("The TIFF lists fewer strips than its height needs.");
  const tablesEntry = ifd.entries.get(TAG.JPEGTables);
  const tables = tablesEntry ? ifd.r.slice(tablesEntry.valueOffset, tablesEntry.count) : null;

  const streamOf = (k: number): Uint8Array => {
    const strip = ifd.r.slice(offsets[k]!, counts[k]!);
    if (!tables) return strip;
    // Abbreviated stream: tables without their EOI, then the strip without its SOI.
    const head = tables.length >= 2 && tables[tables.length - 2] === 0xff && tables[tables.length - 1] === 0xd9 ? tables.subarray(0, -2) : tables;
    const body = strip[0] === 0xff && strip[1] === 0xd8 ? strip.subarray(2) : strip;
    const joined = new Uint8Array(head.length + body.length);
    joined.set(head);
    joined.set(body, head.length);
    return joined;
  };

  if (strips === 1) {
    const image = await decodeStrip(streamOf(0));
    if (image.width !== width || image.height < height) throw invalidImage("The TIFF strip does not match the image size.");
    if (image.height === height) return image;
    return { width, height, data: image.data.subarray(0, width * height * 4) };
  }
  const data = new Uint8ClampedArray(width * height * 4);
  for (let k = 0; k < strips; k++) {
    const rows = Math.min(rowsPerStrip, height - k * rowsPerStrip);
    const strip = await decodeStrip(streamOf(k));
    if (strip.width !== width || strip.height < rows) throw invalidImage("A TIFF strip does not match the image size.");
    data.set(strip.data.subarray(0, width * rows * 4), k * rowsPerStrip * width * 4);
  }
  return { width, height, data };
}

async function decodeStrip(stream: Uint8Array): Promise<RasterImage> {
  readJpegFrame(stream); // a malformed strip fails as invalid_image before reaching the codec
  return decodeJpegStream(stream);
}

/** Any other TIFF, through utif2 (first image only). */
async function decodeWithUtif(bytes: Uint8Array, ifd0: Ifd): Promise<RasterImage> {
  assertFiniteIfdChain(ifd0.r);
  // utif2 wants an ArrayBuffer holding exactly the file.
  const buffer =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : bytes.slice().buffer;
  let rgba: Uint8Array;
  let ifd: UTIF.IFD;
  try {
    // parseMN false: camera MakerNotes are skipped, not parsed (we drop all metadata anyway).
    const decode = UTIF.decode as (buffer: ArrayBuffer, options: { parseMN: boolean; debug: boolean }) => UTIF.IFD[];
    const ifds = decode(buffer, { parseMN: false, debug: false });
    ifd = ifds[0]!;
    if (!ifd) throw new Error("no image");
    UTIF.decodeImage(buffer, ifd);
    rgba = UTIF.toRGBA8(ifd);
  } catch {
    // utif2 throws strings, Errors and RangeErrors alike; any of them means we cannot read it.
    throw invalidImage("The TIFF could not be decoded.");
  }
  const { width, height } = ifd;
  if (!width || !height || rgba.length !== width * height * 4) throw invalidImage("The TIFF could not be decoded.");
  return { width, height, data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length) };
}

/**
 * utif2 follows the next-IFD chain without a cycle check; a file whose chain loops would keep
 * it busy until the CPU limit. Walk the chain first and refuse a loop.
 */
function assertFiniteIfdChain(r: ByteReader): void {
  const seen = new Set<number>();
  for (let offset = r.u32(4); offset !== 0; ) {
    if (seen.has(offset) || seen.size > 10_000) throw invalidImage("The TIFF directory chain loops.");
    seen.add(offset);
    offset = r.u32(offset + 2 + r.u16(offset) * 12);
  }
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
  const { width, height } = image;
  const jpeg = withoutAppSegments(await encodeBaselineJpeg(image, TIFF_JPEG_QUALITY));

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
