// JPEG: MozJPEG (jsquash's Squoosh build), one WASM instance per operation (see wasm.ts), for
// decoding and for the baseline strips of JPEG-compressed TIFF. Compress and convert write JPEG
// with our own build instead (native.ts: libjpeg-turbo, the same table, no trellis).
//
// Encoder settings (both encoders): quality 80 unless compress passes its own, MozJPEG's
// quantisation table, optimised Huffman tables, 4:2:0 chroma, progressive except in TIFF.
// Progressive costs CPU (MozJPEG: 1.3 s against 0.7 s for baseline at 2048x2048) for a file
// about 15% smaller; size is what compress is for. JPEG has no alpha: transparent pixels are
// composited onto black first. Both write a JFIF APP0 segment and nothing else, so no EXIF or
// ICC data can reach the output.

import decoderFactory from "@jsquash/jpeg/codec/dec/mozjpeg_dec.js";
import decoderWasm from "@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm";
import encoderFactory from "@jsquash/jpeg/codec/enc/mozjpeg_enc.js";
import encoderWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm";
import { ByteReader, invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { flattenOntoBlack } from "./raster.ts";
import { instantiateCodec } from "./wasm.ts";

export const JPEG_INFO = FORMAT_INFO.jpeg;
/** The fixed convert setting (spec 4.14); compress passes its own quality. */
export const JPEG_DEFAULT_QUALITY = 80;

interface MozJpegEncoder {
  encode(data: BufferSource, width: number, height: number, options: MozJpegOptions): Uint8Array;
}
interface MozJpegDecoder {
  decode(data: BufferSource, preserveOrientation: boolean): { data: Uint8ClampedArray; width: number; height: number } | null;
}

/** The full option set MozJPEG's Squoosh binding requires (every field must be present). */
export interface MozJpegOptions {
  quality: number;
  baseline: boolean;
  arithmetic: boolean;
  progressive: boolean;
  optimize_coding: boolean;
  smoothing: number;
  color_space: number;
  quant_table: number;
  trellis_multipass: boolean;
  trellis_opt_zero: boolean;
  trellis_opt_table: boolean;
  trellis_loops: number;
  auto_subsample: boolean;
  chroma_subsample: number;
  separate_chroma_quality: boolean;
  chroma_quality: number;
}

const YCBCR = 3;

function mozjpegOptions(quality: number, overrides: Partial<MozJpegOptions> = {}): MozJpegOptions {
  return {
    quality,
    baseline: false,
    arithmetic: false, // arithmetic coding is unsupported by most decoders
    progressive: true,
    optimize_coding: true,
    smoothing: 0,
    color_space: YCBCR,
    quant_table: 3, // MozJPEG's default (ImageMagick) tables
    trellis_multipass: false,
    trellis_opt_zero: false,
    trellis_opt_table: false,
    trellis_loops: 1,
    auto_subsample: false,
    chroma_subsample: 2, // 4:2:0
    separate_chroma_quality: false,
    chroma_quality: quality,
    ...overrides,
  };
}

/** SOFn markers that carry the frame size (not DHT C4, JPG C8 or DAC CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

export interface JpegFrame {
  width: number;
  height: number;
  /** Offset of the first SOS marker: entropy-coded data follows it. */
  scanOffset: number;
  /** A progressive frame (SOF2, SOF6, SOF10, SOF14): decoded whole before any row comes out. */
  progressive: boolean;
  /** Colour components in the frame (1 grey, 3 YCbCr or RGB, 4 CMYK or YCCK). */
  components: number;
  /**
   * How the components code colour, as libjpeg decides it from the header (jdapimin.c): a JFIF
   * marker or component ids 1, 2, 3 mean YCbCr, an Adobe marker's transform says it, ids R, G, B
   * mean RGB; four components are CMYK, or YCCK by Adobe's transform 2.
   */
  colorSpace: JpegColorSpace;
  /**
   * The quality its first quantisation table (luma) stands for on libjpeg's 1 to 100 scale,
   * from how far its steps are from the standard table's (null: no table before the scan).
   * How coarse the file was written tells how much finer a re-encoding can come out.
   */
  quality: number | null;
}

export type JpegColorSpace = "grey" | "ycbcr" | "rgb" | "cmyk" | "ycck";

/** libjpeg's reading of a frame's colour space from its component ids and the JFIF and Adobe markers. */
function colorSpaceOf(ids: number[], jfif: boolean, adobeTransform: number | null): JpegColorSpace {
  if (ids.length === 1) return "grey";
  if (ids.length === 4) return adobeTransform === 2 ? "ycck" : "cmyk";
  if (ids.length !== 3 || jfif) return "ycbcr";
  if (adobeTransform !== null) return adobeTransform === 0 ? "rgb" : "ycbcr";
  if (ids[0] === 1 && ids[1] === 2 && ids[2] === 3) return "ycbcr";
  return ids[0] === 82 && ids[1] === 71 && ids[2] === 66 ? "rgb" : "ycbcr";
}

/** Sum of the 64 steps of the standard luminance quantisation table (ITU T.81 Annex K), libjpeg's quality 50. */
const STANDARD_LUMA_STEPS = 3688;

/** libjpeg's quality for a luma table whose steps add up to `sum` (its scaling, inverted). */
function qualityOfSteps(sum: number): number {
  const scale = (100 * sum) / STANDARD_LUMA_STEPS;
  const quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale;
  return Math.min(100, Math.max(1, Math.round(quality)));
}

/** The first table (destination 0) of a DQT segment's tables, summed, or null. */
function lumaStepsIn(r: ByteReader, start: number, end: number): number | null {
  for (let at = start; at < end; ) {
    const precision = r.u8(at) >> 4;
    const destination = r.u8(at) & 0x0f;
    const size = precision ? 2 : 1;
    let sum = 0;
    for (let i = 0; i < 64; i++) sum += size === 2 ? r.u16(at + 1 + 2 * i) : r.u8(at + 1 + i);
    if (destination === 0) return sum;
    at += 1 + 64 * size;
  }
  return null;
}

/** `length` bytes at `at` as Latin-1 text (an APPn segment's identifier). */
function markerName(r: ByteReader, at: number, length: number): string {
  let name = "";
  for (let i = 0; i < length; i++) name += String.fromCharCode(r.u8(at + i));
  return name;
}

/** Walks the marker segments up to the first scan, reading the frame header on the way. */
export function readJpegFrame(bytes: Uint8Array): JpegFrame {
  const r = new ByteReader(bytes, false, "JPEG");
  if (r.u8(0) !== 0xff || r.u8(1) !== 0xd8) throw invalidImage("The data is not a JPEG (no SOI marker).");
  let frame: Omit<JpegFrame, "scanOffset" | "quality" | "colorSpace"> | null = null;
  let ids: number[] = [];
  let jfif = false;
  let adobeTransform: number | null = null;
  let lumaSteps: number | null = null;
  let offset = 2;
  for (;;) {
    if (r.u8(offset) !== 0xff) throw invalidImage("The JPEG marker structure is corrupt.");
    const marker = r.u8(offset + 1);
    if (marker === 0xff) {
      offset++; // fill byte before a marker
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2; // standalone markers carry no length
      continue;
    }
    if (marker === 0xd9) throw invalidImage("The JPEG ends before its image data.");
    const length = r.u16(offset + 2);
    if (length < 2) throw invalidImage("The JPEG has a segment with an impossible length.");
    if (isStartOfFrame(marker)) {
      // precision (1), height (2), width (2), components (1): height 0 would defer to a DNL
      // marker, which nothing we accept writes.
      frame = { height: r.u16(offset + 5), width: r.u16(offset + 7), progressive: (marker & 0x03) === 0x02, components: r.u8(offset + 9) };
      ids = Array.from({ length: Math.min(frame.components, 4) }, (_, i) => r.u8(offset + 10 + 3 * i));
    }
    if (marker === 0xe0 && length >= 7 && markerName(r, offset + 4, 5) === "JFIF\0") jfif = true;
    if (marker === 0xee && length >= 14 && markerName(r, offset + 4, 5) === "Adobe") adobeTransform = r.u8(offset + 15);
    if (marker === 0xdb) lumaSteps = lumaStepsIn(r, offset + 4, offset + 2 + length) ?? lumaSteps;
    if (marker === 0xda) {
      if (!frame) throw invalidImage("The JPEG has image data before its frame header.");
      const colorSpace = colorSpaceOf(ids, jfif, adobeTransform);
      return { ...frame, colorSpace, scanOffset: offset, quality: lumaSteps === null ? null : qualityOfSteps(lumaSteps) };
    }
    offset += 2 + length;
  }
}

export function readJpegHeader(bytes: Uint8Array): { width: number; height: number } {
  const { width, height } = readJpegFrame(bytes);
  return { width, height };
}

/**
 * At most this many scans (SOS markers) per JPEG stream. A progressive decoder walks every block
 * of the image once per scan, so a file of thousands of tiny scans costs CPU in proportion to its
 * length rather than its pixels ("Two Issues with the JPEG Standard", libjpeg-turbo; TurboJPEG
 * has TJPARAM_SCANLIMIT for it, unlimited by default, and libjpeg-turbo's own fuzz targets set
 * 500). Real encoders write 1 (baseline), 3 (non-interleaved) or about 10 (libjpeg's and
 * MozJPEG's progressive scripts; some encoders up to about 20; jpegtran custom scripts stay well
 * under 64). 100 leaves room for any of those in an image up to JPEG_SCAN_BUDGET / 100 pixels.
 */
export const MAX_JPEG_SCANS = 100;

/**
 * Each scan also re-packs the whole-image coefficient rows (native/coef_store.c): 44 ms more CPU
 * per scan at 24 MP for a camera photo (its own 10 scans 1.3 s to JPEG, with 100 scans 5.3 s,
 * with 32 2.3 s: scripts/bench/jpeg-scans-cpu.ts).
 * So the scans allowed shrink as the pixels grow, scans x pixels within this budget (32 scans
 * at 24 MP, 64 at 12 MP, 100 up to 7.68 MP), and never below MIN_JPEG_SCANS, which every real
 * encoder's script fits: the extra CPU of a file full of tiny scans stays about a second.
 */
export const JPEG_SCAN_BUDGET = 32 * 24_000_000;
export const MIN_JPEG_SCANS = 32;

/** The scans a JPEG of `pixels` may have (maxJpegScans(0) is MAX_JPEG_SCANS). */
export function maxJpegScans(pixels: number): number {
  return Math.max(MIN_JPEG_SCANS, Math.min(MAX_JPEG_SCANS, Math.floor(JPEG_SCAN_BUDGET / Math.max(1, pixels))));
}

/**
 * Walks a whole JPEG stream (marker segments and the entropy-coded data of every scan) without
 * decoding it, and returns its frame and scan count. Linear in the file size; called before the
 * charge. Throws invalid_image when:
 * - the stream has more scans than maxJpegScans allows its pixels (see there);
 * - it has no EOI marker: libjpeg decodes a cut-off file "successfully", filling the missing
 *   part with grey. Inside entropy-coded data 0xFF is always followed by 00 (stuffing), an RSTn
 *   or a fill byte, so the first other FF xx after a scan is the next marker.
 */
export function readJpegScans(bytes: Uint8Array): JpegFrame & { scans: number } {
  const frame = readJpegFrame(bytes);
  const r = new ByteReader(bytes, false, "JPEG");
  const most = maxJpegScans(frame.width * frame.height);
  let scans = 0;
  for (let offset = frame.scanOffset; ; ) {
    const marker = r.u8(offset + 1);
    if (marker === 0xd9) return { ...frame, scans };
    if (marker === 0xda && ++scans > most) {
      throw invalidImage(`The JPEG has more than ${most} scans (the most a ${frame.width}x${frame.height} image may have); real encoders write about ten.`);
    }
    // Past the segment (and, after an SOS header, past the scan's entropy-coded data).
    offset = nextMarker(bytes, offset + 2 + r.u16(offset + 2));
  }
}

/** Offset of the next marker (FF xx, xx not 00, FF or RSTn) at or after `from`. */
function nextMarker(bytes: Uint8Array, from: number): number {
  for (let i = bytes.indexOf(0xff, from); i !== -1 && i + 1 < bytes.length; i = bytes.indexOf(0xff, i + 1)) {
    const next = bytes[i + 1]!;
    if (next !== 0x00 && next !== 0xff && (next < 0xd0 || next > 0xd7)) return i;
  }
  throw invalidImage("The JPEG is truncated (no end-of-image marker).");
}

export async function decodeJpeg(bytes: Uint8Array): Promise<RasterImage> {
  readJpegScans(bytes);
  return decodeJpegStream(bytes);
}

/** Decodes a complete JPEG stream to RGBA (no orientation handling: decode.ts does that). */
export async function decodeJpegStream(bytes: Uint8Array): Promise<RasterImage> {
  return (await jpegStreamDecoder())(bytes);
}

/**
 * One MozJPEG instance for the streams of one image (the strips of a JPEG-compressed TIFF):
 * instantiating costs about a millisecond, far more than decoding a small strip. Results are
 * copied out of WASM memory, so they stay valid across calls. Keep the returned function in a
 * local variable only; the instance goes with it (wasm.ts).
 */
export async function jpegStreamDecoder(): Promise<(bytes: Uint8Array) => RasterImage> {
  const decoder = await instantiateCodec<MozJpegDecoder>(decoderFactory, decoderWasm);
  return (bytes) => {
    const result = decoder.decode(bytes, false);
    if (!result) throw invalidImage("The JPEG could not be decoded.");
    return { width: result.width, height: result.height, data: result.data };
  };
}

/**
 * Baseline (SOF0) JPEG with 2x2 chroma subsampling, as JPEG-in-TIFF readers (libtiff) expect:
 * TIFF's YCbCrSubSampling tag must match the stream.
 */
export async function encodeBaselineJpeg(image: RasterImage, quality: number): Promise<Uint8Array> {
  return encodeJpegWith(image, mozjpegOptions(quality, { baseline: true, progressive: false }));
}

async function encodeJpegWith(image: RasterImage, options: MozJpegOptions): Promise<Uint8Array> {
  // Flattening copies only when the image has transparency; an opaque image goes in as is.
  const pixels = flattenOntoBlack(image);
  const encoder = await instantiateCodec<MozJpegEncoder>(encoderFactory, encoderWasm);
  return encoder.encode(pixels, image.width, image.height, options);
}
