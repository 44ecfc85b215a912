// Decode and re-encode in one step, for compress and convert: the paths our own WASM build
// handles (native.ts: JPEG or PNG in, WebP, JPEG or PNG out) skip the RGBA raster; everything
// else decodes and encodes as before.

import type { ImageHeader, ImageFormat } from "./formats.ts";
import { assertDecodable, assertSafeToDecode } from "./header.ts";
import { decodeImage } from "./decode.ts";
import { assertFormatHolds, encodeImage, encodeQuality, type EncodeOptions } from "./encode.ts";
import { JPEG_DEFAULT_QUALITY } from "./jpeg.ts";
import { transcodeJpeg, transcodePng, transcodeToPng, type NativeTarget } from "./native.ts";
import { readOrientation } from "./orientation.ts";
import { PNG_DEFAULT_QUALITY } from "./png.ts";
import { WEBP_DEFAULT_QUALITY } from "./webp.ts";

/** Targets of the native paths (JPEG or PNG in), with the quality convert uses when compress gives none. */
const NATIVE_TARGETS: Partial<Record<ImageFormat, number>> = {
  webp: WEBP_DEFAULT_QUALITY,
  jpeg: JPEG_DEFAULT_QUALITY,
  png: PNG_DEFAULT_QUALITY,
};

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
  const native = nativeRecode(bytes, header, format, options);
  if (native) return native;
  const raster = await decodeImage(bytes, header);
  return { bytes: await encodeImage(raster, format, options), width: raster.width, height: raster.height };
}

/** The native path's result, or null when it does not apply to this input and target. */
function nativeRecode(bytes: Uint8Array, header: ImageHeader, format: ImageFormat, options: EncodeOptions): RecodedImage | null {
  const defaultQuality = NATIVE_TARGETS[format];
  if ((header.format !== "jpeg" && header.format !== "png") || defaultQuality === undefined) return null;
  // The checks decodeImage and encodeImage make, in the same order, before any pixel is decoded.
  assertDecodable(header);
  assertSafeToDecode(bytes, header);
  const orientation = readOrientation(bytes, header.format);
  if (header.format === "png") {
    // An EXIF-oriented PNG is rare: the general path turns it.
    if (orientation !== 1) return null;
    assertFormatHolds(header.width, header.height, format);
    const quality = encodeQuality(options) ?? defaultQuality;
    const out = format === "png" ? transcodeToPng(bytes, header, "png", quality) : transcodePng(bytes, header, format as NativeTarget, quality);
    return out && { bytes: out, width: header.width, height: header.height };
  }
  const turned = orientation >= 5;
  const width = turned ? header.height : header.width;
  const height = turned ? header.width : header.height;
  assertFormatHolds(width, height, format);
  const quality = encodeQuality(options) ?? defaultQuality;
  const out = format === "png" ? transcodeToPng(bytes, header, "jpeg", quality, orientation) : transcodeJpeg(bytes, header, format as NativeTarget, quality, orientation);
  return out && { bytes: out, width, height };
}
