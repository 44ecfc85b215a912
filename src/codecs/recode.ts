// Decode and re-encode in one step, for compress and convert: the paths our own WASM build
// handles (native.ts; which applies is recode-route.ts's decision) skip the RGBA raster;
// everything else decodes and encodes as before. TIFF is a baseline JPEG from the same
// encoder, wrapped in a TIFF container (tiff.ts).

import { PixelgateError } from "../errors.ts";
import type { ImageHeader, ImageFormat } from "./formats.ts";
import { assertDecodable, assertSafeToDecode } from "./header.ts";
import { decodeImage } from "./decode.ts";
import { assertFormatHolds, encodeImage, encodeQuality, type EncodeOptions } from "./encode.ts";
import { JPEG_DEFAULT_QUALITY } from "./jpeg.ts";
import { encodeHeicTiles, heicPlanesFromTiles } from "./heic-tiles.ts";
import { decodeHeicPlanes } from "./heic.ts";
import { maxPixelsFor } from "./limits.ts";
import { recodedImage, type RecodedImage } from "./file-pieces.ts";
import { encodePlanes, inPieces, planesToBmp, planesToGif, planesToPng, streamBmp, transcodeJpeg, transcodePng, transcodeToPalette, transcodeToPng, transcodeWebp, type NativeTarget } from "./native.ts";
import { nativeRoute, type NativeRoute } from "./recode-route.ts";
import { PNG_DEFAULT_QUALITY } from "./png.ts";
import { TIFF_JPEG_QUALITY, tiffAroundJpeg } from "./tiff.ts";
import { WEBP_DEFAULT_QUALITY } from "./webp.ts";

/** Targets of the native paths, with the quality convert uses when compress gives none. */
const NATIVE_TARGETS: Partial<Record<ImageFormat, number>> = {
  webp: WEBP_DEFAULT_QUALITY,
  jpeg: JPEG_DEFAULT_QUALITY,
  png: PNG_DEFAULT_QUALITY,
  tiff: TIFF_JPEG_QUALITY,
  // GIF and BMP take no quality; their writers follow the TypeScript encoders' fixed rules.
  gif: 100,
  bmp: 100,
};

/** What the native encoder writes for `format` (a TIFF's strip is a baseline JPEG). */
function encoderFor(format: ImageFormat): NativeTarget {
  return format === "tiff" ? "baseline-jpeg" : (format as NativeTarget);
}

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
 * prices this plan (`bytesPerPixel`) and runRecode runs it, so what was paid for is what runs.
 */
export interface RecodePlan {
  header: ImageHeader;
  target: ImageFormat;
  quality: number;
  options: EncodeOptions;
  route: NativeRoute | null;
  /** The route's bytes per pixel, or null for the general path (limits.ts prices that one). */
  bytesPerPixel: number | null;
}

export function planRecode(bytes: Uint8Array, header: ImageHeader, target: ImageFormat, options: EncodeOptions = {}): RecodePlan {
  const quality = recodeQuality(target, options);
  const route = NATIVE_TARGETS[target] === undefined ? null : nativeRoute(bytes, header.format, target, header.width * header.height, quality);
  return { header, target, quality, options, route, bytesPerPixel: route?.bytesPerPixel ?? null };
}

/**
 * `bytes` (whose header was read with readHeader) re-encoded as `format`, with the EXIF
 * orientation applied and no metadata carried over: the same result contract as
 * encodeImage(await decodeImage(bytes, header), format, options), and the same errors.
 */
export async function recodeImage(bytes: Uint8Array, header: ImageHeader, format: ImageFormat, options: EncodeOptions = {}): Promise<RecodedImage> {
  return runRecode(bytes, planRecode(bytes, header, format, options));
}

/** Runs a plan made by planRecode for these bytes: its route, or the general path when it has none. */
export async function runRecode(bytes: Uint8Array, plan: RecodePlan): Promise<RecodedImage> {
  const { header, target: format, quality, route } = plan;
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
 * Runs the route's reader and encoder, after the checks decodeImage and encodeImage make, in the
 * same order, before any pixel is decoded. Null only if the module turns down a file the route
 * chose it for (recode-route.ts reads what it cannot take from the header: CMYK, interlaced,
 * animated).
 */
async function runNative(route: NativeRoute, bytes: Uint8Array, header: ImageHeader, format: ImageFormat, quality: number): Promise<RecodedImage | null> {
  assertDecodable(header);
  assertSafeToDecode(bytes, header);
  const turned = route.input !== "heic" && route.orientation >= 5;
  const width = turned ? header.height : header.width;
  const height = turned ? header.width : header.height;
  assertFormatHolds(width, height, format);
  const encoder = encoderFor(format);
  const done = (out: Uint8Array | Uint8Array[] | null) => out && recodedImage(out, width, height);
  switch (route.input) {
    case "jpeg":
    case "png":
    case "webp": {
      const { input, orientation } = route;
      // A BMP is made as it is read (never whole); each reading decodes the file again.
      if (format === "bmp") return streamBmp(bytes, header, input, orientation);
      if (format === "gif") return done(inPieces(() => transcodeToPalette(bytes, header, input, format, orientation)));
      if (format === "png") return done(inPieces(() => transcodeToPng(bytes, header, input, quality, orientation)));
      if (input === "jpeg") return done(inPieces(() => transcodeJpeg(bytes, header, encoder, quality, orientation, route.webp)));
      return done(inPieces(() => (input === "png" ? transcodePng : transcodeWebp)(bytes, header, encoder, quality, route.webp)));
    }
    case "heic": {
      // Our HEVC decoder's tiles: a row of them at a time into the encoder, or whole planes for
      // the row writers (PNG, GIF, BMP: they read the picture once per pass).
      const rowWriter = format === "png" || format === "gif" || format === "bmp";
      if (route.tiles && !rowWriter) return encodeHeicTiles(route.tiles, route.encoding, encoder, quality, route.webp);
      const tiled = route.tiles && (await heicPlanesFromTiles(route.tiles, route.encoding));
      // Else libheif's YCbCr planes, a band at a time (no RGBA image).
      const planes = tiled ?? (await decodeHeicPlanes(bytes, maxPixelsFor("heic"), route.encoding));
      // A turn of the event loop between the halves: the decoder's instance (libheif's memory
      // peaks at about 4.7 bytes a pixel) is unreachable from here and can be collected before
      // the encoder grows, and other requests in the isolate get to run between two seconds-long steps.
      await new Promise((resolve) => setTimeout(resolve, 0));
      // A BMP is made from the planes as it is read: they stay, the file is never whole.
      if (format === "bmp") return planesToBmp(planes);
      const out = inPieces(() =>
        format === "png" ? planesToPng(planes, quality) : format === "gif" ? planesToGif(planes) : encodePlanes(planes, encoder, quality, route.webp),
      );
      return recodedImage(out ?? [], planes.width, planes.height);
    }
  }
}
