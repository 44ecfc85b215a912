// Decode and re-encode in one step, for compress and convert: the paths our own WASM build
// handles (native.ts: JPEG, PNG, WebP or HEIC in, WebP, JPEG or TIFF out; JPEG or PNG in, PNG
// out) skip the RGBA raster; everything else decodes and encodes as before. TIFF is a baseline
// JPEG from the same encoder, wrapped in a TIFF container (tiff.ts).

import type { ImageHeader, ImageFormat } from "./formats.ts";
import { assertDecodable, assertSafeToDecode } from "./header.ts";
import { decodeImage } from "./decode.ts";
import { assertFormatHolds, encodeImage, encodeQuality, type EncodeOptions } from "./encode.ts";
import { JPEG_DEFAULT_QUALITY } from "./jpeg.ts";
import { decodeHeicPlanes, heicEncoding } from "./heic.ts";
import { maxPixelsFor } from "./limits.ts";
import { encodePlanes, transcodeJpeg, transcodePng, transcodeToPng, transcodeWebp, type NativeTarget } from "./native.ts";
import { readOrientation } from "./orientation.ts";
import { PNG_DEFAULT_QUALITY } from "./png.ts";
import { TIFF_JPEG_QUALITY, tiffAroundJpeg } from "./tiff.ts";
import { WEBP_DEFAULT_QUALITY } from "./webp.ts";

/** Targets of the native paths, with the quality convert uses when compress gives none (PNG: from JPEG and PNG only). */
const NATIVE_TARGETS: Partial<Record<ImageFormat, number>> = {
  webp: WEBP_DEFAULT_QUALITY,
  jpeg: JPEG_DEFAULT_QUALITY,
  png: PNG_DEFAULT_QUALITY,
  tiff: TIFF_JPEG_QUALITY,
};

/** What the native encoder writes for `format` (a TIFF's strip is a baseline JPEG). */
function encoderFor(format: ImageFormat): NativeTarget {
  return format === "tiff" ? "baseline-jpeg" : (format as NativeTarget);
}

/** The quality of a native encode: the compress quality, except for TIFF, which ignores it. */
function qualityFor(format: ImageFormat, options: EncodeOptions, defaultQuality: number): number {
  return format === "tiff" ? defaultQuality : (encodeQuality(options) ?? defaultQuality);
}

/** An encoded image and its size (the header's, turned by the EXIF orientation). */
export interface RecodedImage {
  bytes: Uint8Array;
  width: number;
  height: number;
}

/**
 * `bytes` (whose header was read with readHeader) re-encoded as `format`, with the EXIF
 * orientation applied and no metadata carried over: the same result contract as
 * encodeImage(await decodeImage(bytes, header), format, options), and the same errors.
 */
export async function recodeImage(bytes: Uint8Array, header: ImageHeader, format: ImageFormat, options: EncodeOptions = {}): Promise<RecodedImage> {
  const native = header.format === "heic" ? await heicRecode(bytes, header, format, options) : nativeRecode(bytes, header, format, options);
  const wrapped = native && format === "tiff" ? asTiff(native) : native;
  if (wrapped) return wrapped;
  const raster = await decodeImage(bytes, header);
  return { bytes: await encodeImage(raster, format, options), width: raster.width, height: raster.height };
}

/** The native baseline JPEG as a TIFF; null for a one-component (grey) JPEG, which the strip's tags do not describe. */
function asTiff(jpeg: RecodedImage): RecodedImage | null {
  const tiff = tiffAroundJpeg(jpeg.bytes, jpeg.width, jpeg.height);
  return tiff && { ...jpeg, bytes: tiff };
}

/**
 * HEIC to WebP, JPEG or TIFF: libheif's YCbCr planes go to our encoders a band at a time (no RGBA
 * image). Null for other targets and for the rare matrices the planes path does not convert.
 */
async function heicRecode(bytes: Uint8Array, header: ImageHeader, format: ImageFormat, options: EncodeOptions): Promise<RecodedImage | null> {
  const defaultQuality = format !== "png" ? NATIVE_TARGETS[format] : undefined;
  const encoding = defaultQuality === undefined ? null : heicEncoding(bytes);
  if (!encoding) return null;
  assertDecodable(header);
  assertSafeToDecode(bytes, header);
  assertFormatHolds(header.width, header.height, format);
  const quality = qualityFor(format, options, defaultQuality!);
  const planes = await decodeHeicPlanes(bytes, maxPixelsFor("heic"), encoding);
  // A turn of the event loop between the halves: libheif's instance (its memory peaks at about
  // 4.7 bytes a pixel) is unreachable from here and can be collected before the encoder grows,
  // and other requests in the isolate get to run between two seconds-long steps.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { bytes: encodePlanes(planes, encoderFor(format), quality), width: planes.width, height: planes.height };
}

/** The native path's result, or null when it does not apply to this input and target. */
function nativeRecode(bytes: Uint8Array, header: ImageHeader, format: ImageFormat, options: EncodeOptions): RecodedImage | null {
  const defaultQuality = NATIVE_TARGETS[format];
  const input = header.format;
  if ((input !== "jpeg" && input !== "png" && input !== "webp") || defaultQuality === undefined) return null;
  if (input === "webp" && format === "png") return null; // the PNG writer reads JPEG and PNG files only
  // The checks decodeImage and encodeImage make, in the same order, before any pixel is decoded.
  assertDecodable(header);
  assertSafeToDecode(bytes, header);
  const orientation = readOrientation(bytes, input);
  if (input !== "jpeg") {
    // An EXIF-oriented PNG or WebP is rare: the general path turns it.
    if (orientation !== 1) return null;
    assertFormatHolds(header.width, header.height, format);
    const quality = qualityFor(format, options, defaultQuality);
    const out =
      format === "png" ? transcodeToPng(bytes, header, "png", quality) : (input === "png" ? transcodePng : transcodeWebp)(bytes, header, encoderFor(format), quality);
    return out && { bytes: out, width: header.width, height: header.height };
  }
  const turned = orientation >= 5;
  const width = turned ? header.height : header.width;
  const height = turned ? header.width : header.height;
  assertFormatHolds(width, height, format);
  const quality = qualityFor(format, options, defaultQuality);
  const out = format === "png" ? transcodeToPng(bytes, header, "jpeg", quality, orientation) : transcodeJpeg(bytes, header, encoderFor(format), quality, orientation);
  return out && { bytes: out, width, height };
}
