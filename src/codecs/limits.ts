// How big an image the worker agrees to decode and encode, and how much memory one request is
// expected to need. Both come from one table of terms (route-costs.json, read by
// recode-cost.ts: every route's fixed, per-pixel, per-input-byte and per-output-byte figures,
// checked against the measured peaks recorded beside them), so the pixel limits, the
// per-isolate memory gate (memory-gate.ts) and the documentation cannot disagree. Checked from
// the header, before any pixel is decoded. recode-route.ts decides which route a call takes and
// prices it (a Price); what is here turns a price into bytes and pixels.

import { INPUT_FORMATS, type ImageFormat, type InputFormat } from "./formats.ts";
import { generalStages, priceStages, ROUTE_COSTS, termsOf, type Price } from "./recode-cost.ts";

const MiB = 1024 * 1024;

/**
 * Bytes the isolate spends on codec work at once: a Worker isolate has 128 MB, and the V8 heap
 * of the rest of the request (routing, JSON, the MCP server), the compiled code and the runtime
 * need the remaining 28 MB. One request alone may use all of it; requests together share it.
 */
export const ISOLATE_CODEC_BUDGET = 100 * MiB;

/**
 * The most pixels any image may have, whatever its memory allows: 24 MP for JPEG (a 6000x4000
 * camera photo), 4096 x 4096 for the other formats. Product limits, not measurements: below
 * them every limit is the memory's (the terms' `maxPixels` and what fits the budget).
 */
export const HARD_MAX_PIXELS = 16_777_216;
export const HARD_MAX_JPEG_PIXELS = 24_000_000;

const hardCap = (format: InputFormat | ImageFormat) => (format === "jpeg" ? HARD_MAX_JPEG_PIXELS : HARD_MAX_PIXELS);

/**
 * A request's own state while it waits at the memory gate (its parsed JSON, the context), beside
 * its upload: an allowance, not a measurement (a tiny compress's whole body is 0.4 KB).
 */
const WAITING_REQUEST_BYTES = 64 * 1024;

/** What a request holds while it waits at the memory gate: its upload, as it is held for the work, and its own state. */
export function waitingBytes(inputBytes: number): number {
  return WAITING_REQUEST_BYTES + (ROUTE_COSTS.terms.upload?.perInputByte ?? 0) * inputBytes;
}

/** The general path's price: `input` decoded to a raster, then (unless null) encoded as `target`. */
export function generalPrice(input: InputFormat, target: ImageFormat | null, inputBytes: number, pixels: number): Price {
  return priceStages(generalStages(input, target), inputBytes, pixels);
}

/** The largest picture whose price fits the budget with the isolate to itself: its per-pixel terms alone. */
function fitsBudget(price: Price, inputBytes: number): number {
  return Math.floor((ISOLATE_CODEC_BUDGET - price.fixed - price.perInputByte * inputBytes) / price.perPixel);
}

/**
 * The pixel limit for reading `format` at all: what its cheapest route (route-costs.json
 * readLimit, and the general decode) fits in the isolate's budget. Whether a given target fits
 * is decided per call (maxRecodePixels), before the charge.
 */
export function maxPixelsFor(format: InputFormat): number {
  const general = generalPrice(format, null, 0, 0);
  const cheapest = (ROUTE_COSTS.readLimit[format] ?? []).map((key) => priceStages([[key]], 0, 0));
  const fits = Math.max(...[general, ...cheapest].map((price) => fitsBudget(price, 0)));
  return Math.min(fits, general.maxPixels, hardCap(format));
}

/** The pixel limit of one compress or convert priced at `price`: it and the upload fit the isolate's budget, within the caps. */
export function maxRecodePixels(input: InputFormat, price: Price, inputBytes: number): number {
  return Math.max(0, Math.min(fitsBudget(price, inputBytes), price.maxPixels, hardCap(input)));
}

/**
 * Bytes the isolate's budget leaves beside a call priced at `price` at `pixels`, its upload and
 * fixed part: what that call may still spend when it has the isolate to itself.
 */
export function bytesLeftBeside(price: Price, inputBytes: number, pixels: number): number {
  return ISOLATE_CODEC_BUDGET - price.fixed - price.perInputByte * inputBytes - pixels * price.perPixel;
}

/** The pixel limit for writing `format`: what the general path's encode fits in the isolate's budget. */
export function maxTargetPixelsFor(format: ImageFormat): number {
  const price = priceStages([[`general: encode ${format}`]], 0, 0);
  return Math.min(fitsBudget(price, 0), price.maxPixels, hardCap(format));
}

/**
 * The most pixels libavif encodes as one image (the general path's cap on writing AVIF): larger
 * pictures are written as a grid of cells by the route table's AVIF rows (avif-cells.ts), and
 * smaller ones stay the single image they always were.
 */
export const SINGLE_AVIF_MAX_PIXELS = termsOf("general: encode avif").maxPixels!;

/** The largest pixel limit of any input format (JPEG's), for checks that apply to every format. */
export const MAX_DECODE_PIXELS = Math.max(...INPUT_FORMATS.map(maxPixelsFor));
export const MAX_AVIF_PIXELS = Math.min(maxPixelsFor("avif"), maxTargetPixelsFor("avif"));

/**
 * The largest picture decoded whole, as one RGBA raster, outside compress and convert: MCP
 * previews (mcp/preview.ts). The model tools take each format's own read limit (maxPixelsFor)
 * and read larger photos in bands (picture-rows.ts, providers/local/full-size.ts).
 */
export const MODEL_INPUT_MAX_PIXELS = 4_000_000;

/**
 * The memory one request is expected to need at its peak, priced at `price` (recode-route.ts
 * planPrice): its fixed part, growing from the call's floor by the table's ramp a pixel up to
 * `fixed`, and its pixels' terms, at least the floor; plus the upload's. What the memory gate
 * admits against its budget; every recorded peak lies at or under it
 * (test/codecs/measured-peaks.test.ts).
 */
export function estimateCodecBytes(pixels: number, price: Price, inputBytes: number): number {
  const fixed = Math.min(price.fixed, price.floor + ROUTE_COSTS.rampPerPixel * pixels);
  return Math.ceil(Math.max(price.floor, fixed + pixels * price.perPixel) + price.perInputByte * inputBytes);
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
