// How big an image the worker agrees to decode and encode, and how much memory one request is
// expected to need. Both come from one table of measured peak bytes per pixel (docs/codecs.md,
// `npm run bench:codecs`), so the pixel limits, the per-isolate memory gate (memory-gate.ts)
// and the documentation cannot disagree. Checked from the header, before any pixel is decoded.
//
// A figure here may only change together with a measurement that backs it. Our own WASM build
// (native.ts) decodes JPEG and PNG straight into the WebP and JPEG encoders: its paths have
// their own, much lower figures (recode-cost.ts), which set the limits of those conversions;
// recode-route.ts decides which path a call takes.

import { INPUT_FORMATS, type ImageFormat, type InputFormat } from "./formats.ts";
import { CHEAPEST_READ_BYTES_PER_PIXEL } from "./recode-cost.ts";

const MiB = 1024 * 1024;

/**
 * Bytes the isolate spends on codec work at once: a Worker isolate has 128 MB, and the V8 heap
 * of the rest of the request (routing, JSON, the MCP server), the compiled code and the runtime
 * need the remaining 28 MB. One request alone may use all of it; requests together share it.
 */
export const ISOLATE_CODEC_BUDGET = 100 * MiB;

/**
 * The most pixels any image may have, whatever the measurement allows: 24 MP for JPEG (a
 * 6000x4000 camera photo), 4096 x 4096 for the other formats.
 */
export const HARD_MAX_PIXELS = 16_777_216;
export const HARD_MAX_JPEG_PIXELS = 24_000_000;

/**
 * Peak bytes per pixel of one request's decode stage, by input format: the codec's memory and
 * the RGBA raster it returns (4 B/px). Slopes between the sizes measured (4, 12 and 24 MP with
 * the request body counted, `npm run bench:codecs` memory child; table in docs/codecs.md), so
 * fixed costs sit in FIXED_BYTES and the upload in UPLOAD_BYTE_COST.
 */
export const DECODE_BYTES_PER_PIXEL: Record<InputFormat, number> = {
  jpeg: 8.6,
  webp: 8.6,
  png: 8.6,
  heic: 13, // libheif holds the YCbCr planes and the RGBA image at once
  // Not re-measured with the body counted: sized so the earlier limits below still hold.
  avif: 33,
  gif: 22,
  bmp: 22,
  tiff: 22,
};

/**
 * Peak bytes per pixel of the encode stage, by target: the raster it reads (4 B/px), the
 * encoder's copies of it (jsquash's bindings take the pixels as a std::string: a copy on the
 * way in and one inside), its working memory and the file it writes.
 */
export const ENCODE_BYTES_PER_PIXEL: Record<ImageFormat, number> = {
  webp: 14.2,
  jpeg: 18.5,
  png: 12.6, // an upper bound: set for the TypeScript encoder the C writer replaced (docs/codecs.md)
  avif: 33,
  // Not re-measured: sized so the earlier limits below still hold.
  gif: 22,
  bmp: 22,
  tiff: 22,
};

/**
 * Formats whose limits were not measured again here keep the ones measured before (2 MP for
 * AVIF either way: 4 MP to AVIF peaked at 137 MB; 4 MP for the TypeScript GIF, BMP and TIFF
 * codecs). A cap, never a raise.
 */
const EARLIER_LIMITS: Partial<Record<InputFormat, number>> = { avif: 2_000_000, gif: 4_000_000, bmp: 4_000_000, tiff: 4_000_000 };

/**
 * The most pixels libavif encodes as one image (the general path): larger pictures are written
 * as a grid of cells by the route table's AVIF rows (avif-cells.ts), and smaller ones stay the
 * single image they always were.
 */
export const SINGLE_AVIF_MAX_PIXELS = EARLIER_LIMITS.avif!;

/**
 * What a large codec request costs besides its pixels and its upload (codec instances, tables,
 * WASM memory grown in steps): the intercept under which every measured peak from 1 MP up lies.
 * The pixel limits are computed with it.
 */
export const FIXED_BYTES = 10 * MiB;

/**
 * What a codec call costs however small its picture, whole request (docs/codecs.md "Fixed cost
 * of a call"): our own build's instance starts at 1 MiB (16x16 calls 3.3 to 4.1 MiB, up to 6.3 at
 * 256x256); a PNG written as a palette file keeps a colour histogram of 10 MiB (12.8); the general
 * path's jsquash and TIFF instances start at 16 MiB each (18.6 to 19.4 at 16x16, up to 26.1 at
 * 256x256, AVIF to JPEG); writing AVIF, libavif's encoder grows in large steps (JPEG to AVIF:
 * 38.8 MiB at 0.25 MP). The pixel limits are computed with FIXED_BYTES, the large calls' figure.
 */
export const CALL_FLOOR_BYTES = { native: 5 * MiB, nativePalettePng: 14 * MiB, general: 28 * MiB, generalAvif: 40 * MiB } as const;

/**
 * Above the floor, the fixed part grows with the picture (WASM memory's steps, buffers sized by
 * the picture's width, zlib's and the row writers' windows) by this much a pixel until it is
 * FIXED_BYTES (from about 0.1 MP): every call measured from 32x32 to 316x316, noise, lies at or
 * under it.
 */
const FIXED_BYTES_PER_PIXEL = 64;

/** The fixed part of a call of `pixels` above its floor: FIXED_BYTES from about 0.1 MP. */
function fixedBytes(floor: number, pixels: number): number {
  return Math.min(FIXED_BYTES, floor + FIXED_BYTES_PER_PIXEL * pixels);
}

/**
 * Bytes per byte of upload at the peak: the decoded file, and what is left of the body's bytes
 * it was decoded from (src/images/inline-body.ts). On the general path PNG adds its inflate
 * buffer (2.5); our own build's PNG reader inflates from the file in JavaScript a piece at a
 * time (native/png_source.c). Parsing the body as JSON first cost 3.6 (6.1 for PNG): bytes,
 * text and parsed string all held at once.
 */
const UPLOAD_BYTE_COST = 2;
const GENERAL_PNG_UPLOAD_BYTE_COST = 2.5;

/**
 * A request's own state while it waits at the memory gate (its parsed JSON, the context), beside
 * its upload: an allowance, not a measurement (a tiny compress's whole body is 0.4 KB).
 */
const WAITING_REQUEST_BYTES = 64 * 1024;

/** What a request holds while it waits at the memory gate: its upload, as it is held for the work, and its own state. */
export function waitingBytes(inputBytes: number): number {
  return WAITING_REQUEST_BYTES + UPLOAD_BYTE_COST * inputBytes;
}

function uploadCost(input: InputFormat, inputBytes: number, nativePerPixel: number | null): number {
  return inputBytes * (input === "png" && nativePerPixel === null ? GENERAL_PNG_UPLOAD_BYTE_COST : UPLOAD_BYTE_COST);
}

function measuredMax(format: InputFormat, bytesPerPixel: number): number {
  const fits = Math.floor((ISOLATE_CODEC_BUDGET - FIXED_BYTES) / bytesPerPixel);
  return Math.min(fits, EARLIER_LIMITS[format] ?? Infinity, format === "jpeg" ? HARD_MAX_JPEG_PIXELS : HARD_MAX_PIXELS);
}

/**
 * The pixel limit for reading `format` at all: what its cheapest path fits in the isolate's
 * budget (JPEG, PNG, still WebP and HEIC: our own build's cheapest route, recode-cost.ts). Whether a given target fits is decided per call (maxRecodePixels), before the charge.
 */
export function maxPixelsFor(format: InputFormat): number {
  const cheapest = (CHEAPEST_READ_BYTES_PER_PIXEL as Partial<Record<InputFormat, number>>)[format] ?? Infinity;
  return measuredMax(format, Math.min(DECODE_BYTES_PER_PIXEL[format], cheapest));
}

/**
 * The pixel limit of one compress or convert: the path's bytes per pixel (`nativePerPixel` from
 * recode-cost.ts, or the general decode and encode stages) and the upload's own cost must fit
 * the isolate's budget, within the format's caps.
 */
export function maxRecodePixels(input: InputFormat, target: ImageFormat, nativePerPixel: number | null, inputBytes: number): number {
  const perPixel = nativePerPixel ?? Math.max(DECODE_BYTES_PER_PIXEL[input], ENCODE_BYTES_PER_PIXEL[target]);
  const left = leftBesideUpload(input, inputBytes, nativePerPixel);
  // A target's earlier cap was measured on the general path; the native paths have their own figures.
  const earlier = Math.min(EARLIER_LIMITS[input] ?? Infinity, nativePerPixel === null ? (EARLIER_LIMITS[target] ?? Infinity) : Infinity);
  return Math.max(0, Math.min(Math.floor(left / perPixel), earlier, input === "jpeg" ? HARD_MAX_JPEG_PIXELS : HARD_MAX_PIXELS));
}

/**
 * Bytes the isolate's budget leaves beside a native path of `nativePerPixel` at `pixels`, its
 * upload and the fixed costs: what that call may still spend when it has the isolate to itself.
 */
export function bytesLeftBeside(input: InputFormat, nativePerPixel: number, inputBytes: number, pixels: number): number {
  return leftBesideUpload(input, inputBytes, nativePerPixel) - pixels * nativePerPixel;
}

/** The budget less the fixed costs and the upload's: what one call's pixels may take. */
function leftBesideUpload(input: InputFormat, inputBytes: number, nativePerPixel: number | null): number {
  return ISOLATE_CODEC_BUDGET - FIXED_BYTES - uploadCost(input, inputBytes, nativePerPixel);
}

/** The pixel limit for writing `format`: what its encode stage fits in the isolate's budget. */
export function maxTargetPixelsFor(format: ImageFormat): number {
  return measuredMax(format, ENCODE_BYTES_PER_PIXEL[format]);
}

/** The largest pixel limit of any input format (JPEG's), for checks that apply to every format. */
export const MAX_DECODE_PIXELS = Math.max(...INPUT_FORMATS.map(maxPixelsFor));
export const MAX_AVIF_PIXELS = Math.min(maxPixelsFor("avif"), maxTargetPixelsFor("avif"));

/**
 * What the model tools (edit, remove-background, upscale, references) accept: the limit they
 * were measured at before per-format limits existed. Their providers decode and re-encode in
 * ways not measured here, so it does not rise with the codec limits.
 */
export const MODEL_INPUT_MAX_PIXELS = 4_000_000;

/**
 * The memory one request is expected to need at its peak, from its header and upload size: the
 * larger of its decode and encode stages (the decoder's memory is released before the encoder
 * starts) with the fixed part for its size, at least the call's floor, plus the upload's cost. What the memory gate admits against its budget. Every
 * measured case lies at or under it (docs/codecs.md).
 */
export function estimateCodecBytes(pixels: number, input: InputFormat, target: ImageFormat | null, inputBytes: number, nativePerPixel: number | null = null, quality = 100): number {
  const perPixel = nativePerPixel ?? Math.max(DECODE_BYTES_PER_PIXEL[input], target === null ? 0 : ENCODE_BYTES_PER_PIXEL[target]);
  const general = target === "avif" ? CALL_FLOOR_BYTES.generalAvif : CALL_FLOOR_BYTES.general;
  const floor = nativePerPixel === null ? general : target === "png" && quality < 100 ? CALL_FLOOR_BYTES.nativePalettePng : CALL_FLOOR_BYTES.native;
  return Math.ceil(Math.max(floor, fixedBytes(floor, pixels) + pixels * perPixel) + uploadCost(input, inputBytes, nativePerPixel));
}

/**
 * The longest side each target can be written with, whatever its pixels: what the format (or
 * the encoder that writes it) can store. Checked from the header before the charge
 * (assertRecodable), and again by every encoder. WebP stores sides in 14 bits; libjpeg refuses
 * sides over 65,500 (JPEG_MAX_DIMENSION), and a TIFF's strip is one baseline JPEG; GIF stores
 * 16 bits; AV1 codes sides up to 65,536, but at their default limits libavif (Chromium's
 * reader) refuses an AVIF side over 32,768 and libheif one of 32,768 or more; PNG and BMP store
 * 31 bits.
 */
export const TARGET_MAX_SIDE: Record<ImageFormat, number> = {
  webp: 16_383,
  jpeg: 65_500,
  tiff: 65_500,
  gif: 65_535,
  avif: 32_767,
  png: 0x7fff_ffff,
  bmp: 0x7fff_ffff,
};

/**
 * A side longer than this cannot come from an honest header: PNG and BMP store sides as signed
 * 32-bit values and no other format we read allows more. Such a header is corrupt, not large.
 */
export const MAX_HEADER_SIDE = 0x7fff_ffff;
