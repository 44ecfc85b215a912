// Decode and re-encode in one step, for compress and convert: the paths our own WASM build
// handles (native.ts; which applies is recode-route.ts's decision) skip the RGBA raster;
// everything else is decoded to a raster and encoded (the general path). TIFF is a baseline JPEG from the same
// encoder, wrapped in a TIFF container (tiff.ts).

import { PixelgateError } from "../errors.ts";
import type { ImageHeader, ImageFormat } from "./formats.ts";
import { assertDecodable, assertFormatHolds, assertSafeToDecode } from "./header.ts";
import { decodeImage } from "./decode.ts";
import { encodeImage, encodeQuality, type EncodeOptions } from "./encode.ts";
import { JPEG_DEFAULT_QUALITY } from "./jpeg.ts";
import { recodedImage, type RecodedImage } from "./file-pieces.ts";
import { encodeRaster } from "./native.ts";
import { planPrice, type NativeRoute } from "./recode-route.ts";
import type { Price } from "./recode-cost.ts";
import { generalPrice } from "./limits.ts";
import { resizedWebpSettings } from "./resize-cost.ts";
import { readRouteFacts } from "./route-table.ts";
import { PNG_DEFAULT_QUALITY } from "./png.ts";
import { planResize, runResize, type ResizePlan, type ResizeRequest } from "./resize.ts";
import { TIFF_JPEG_QUALITY, tiffAroundJpeg } from "./tiff.ts";
import { WEBP_DEFAULT_QUALITY } from "./webp.ts";
import { AVIF_DEFAULT_QUALITY } from "./avif.ts";

/** Targets of the native paths, with the quality convert uses when compress gives none. */
const NATIVE_TARGETS: Partial<Record<ImageFormat, number>> = {
  webp: WEBP_DEFAULT_QUALITY,
  jpeg: JPEG_DEFAULT_QUALITY,
  png: PNG_DEFAULT_QUALITY,
  tiff: TIFF_JPEG_QUALITY,
  // Above libavif's single-image limit only (route-table.ts AVIF rows).
  avif: AVIF_DEFAULT_QUALITY,
  // GIF and BMP take no quality; their writers' rules are fixed (native/gif_sink.c, bmp_sink.c).
  gif: 100,
  bmp: 100,
};

/**
 * The quality `format` is encoded at: compress's own, else convert's fixed setting (TIFF always
 * its own). The memory gate prices a call at this quality too (the WebP route depends on it).
 */
export function recodeQuality(format: ImageFormat, options: EncodeOptions = {}): number {
  const defaultQuality = NATIVE_TARGETS[format] ?? 100;
  return format === "tiff" ? defaultQuality : (encodeQuality(options) ?? defaultQuality);
}

export type { RecodedImage };

/**
 * One compress or convert decided once, from the header, before the charge: the target, the
 * quality it is written at and the route (null: the general decode and encode). The memory gate
 * prices this plan (`price`) and runRecode runs it, so what was paid for is what runs.
 */
export interface RecodePlan {
  header: ImageHeader;
  target: ImageFormat;
  quality: number;
  options: EncodeOptions;
  route: NativeRoute | null;
  /** What the route costs at this size (the general path's when `route` is null); a resize is priced by resize-cost.ts instead. */
  price: Price;
  /** A resize (`width`, `height`, `fit`) that changes the picture: it takes the call instead of `route` (resize-cost.ts prices it). */
  resize: ResizePlan | null;
}

/** `resize`: the sides and fit asked for; a request that leaves the picture as it is plans as none. */
export function planRecode(bytes: Uint8Array, header: ImageHeader, target: ImageFormat, options: EncodeOptions = {}, resize: ResizeRequest = {}): RecodePlan {
  const quality = recodeQuality(target, options);
  const resized = planResize(bytes, header, resize);
  if (resized) return { header, target, quality, options, route: null, price: generalPrice(header.format, target, bytes.length, header.width * header.height), resize: resized };
  const facts = NATIVE_TARGETS[target] === undefined ? null : readRouteFacts(bytes, header.format);
  const { route, price } = planPrice(facts, header.format, target, header.width * header.height, bytes.length, quality);
  return { header, target, quality, options, route, price, resize: null };
}

/**
 * `bytes` (whose header was read with readHeader) re-encoded as `format`, with the EXIF
 * orientation applied and no metadata carried over: the same result contract as
 * encodeImage(await decodeImage(bytes, header), format, options), and the same errors.
 */
export async function recodeImage(bytes: Uint8Array, header: ImageHeader, format: ImageFormat, options: EncodeOptions = {}, resize: ResizeRequest = {}): Promise<RecodedImage> {
  return runRecode(bytes, planRecode(bytes, header, format, options, resize));
}

/** Runs a plan made by planRecode for these bytes: its route, or the general path when it has none. */
export async function runRecode(bytes: Uint8Array, plan: RecodePlan): Promise<RecodedImage> {
  const { header, target: format, quality, route } = plan;
  if (plan.resize) {
    const answer = await runResize(bytes, header, plan.resize);
    // A WebP answer is coded as it goes, within the file it was priced for (resize-cost.ts).
    const file = format === "webp" ? encodeRaster(answer, "webp", quality, resizedWebpSettings(quality, answer.width * answer.height)) : await encodeImage(answer, format, plan.options);
    return recodedImage(file, answer.width, answer.height);
  }
  if (route) {
    const native = await runNative(route, bytes, header, format, quality);
    const wrapped = native && format === "tiff" ? asTiff(native) : native;
    // The route was chosen from the header and priced so: the other path is not taken instead.
    if (!wrapped) throw new PixelgateError("internal_error", `The ${header.format} reader chosen for this file from its header refused it.`);
    return wrapped;
  }
  const raster = await decodeImage(bytes, header);
  return recodedImage(await encodeImage(raster, format, plan.options), raster.width, raster.height);
}

/** The native baseline JPEG as a TIFF; null for a one-component (grey) JPEG, which the strip's tags do not describe. */
function asTiff(jpeg: RecodedImage): RecodedImage | null {
  const tiff = tiffAroundJpeg(jpeg.bytes, jpeg.width, jpeg.height);
  return tiff && recodedImage(tiff, jpeg.width, jpeg.height);
}

/**
 * Runs the route's row, after the checks decodeImage and encodeImage make, in the same order,
 * before any pixel is decoded. Null only if the module turns down a file the row was chosen for
 * (the table reads what it cannot take from the header: CMYK, interlaced, animated).
 */
async function runNative(route: NativeRoute, bytes: Uint8Array, header: ImageHeader, format: ImageFormat, quality: number): Promise<RecodedImage | null> {
  assertDecodable(header);
  assertSafeToDecode(bytes, header);
  const turned = route.input !== "heic" && route.orientation >= 5;
  const shown = turned ? { width: header.height, height: header.width } : { width: header.width, height: header.height };
  assertFormatHolds(shown.width, shown.height, format);
  return route.row.run({ bytes, header, facts: route.facts, target: format, quality, shown, ...(route.webp ? { webp: route.webp } : {}) });
}
