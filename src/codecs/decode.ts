// Decoding any accepted format to RGBA, with EXIF orientation applied.

import { PixelgateError } from "../errors.ts";
import { decodeAvif } from "./avif.ts";
import { decodeBmp } from "./bmp.ts";
import { invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type ImageHeader, type InputFormat, type RasterImage } from "./formats.ts";
import { decodeGif } from "./gif.ts";
import { decodeHeic } from "./heic.ts";
import { assertDecodable, assertSafeToDecode } from "./header.ts";
import { decodeJpeg } from "./jpeg.ts";
import { maxPixelsFor } from "./limits.ts";
import { applyOrientation, readOrientation } from "./orientation.ts";
import { decodePng } from "./png.ts";
import { decodeTiff } from "./tiff.ts";
import { decodeWebp } from "./webp.ts";

const DECODERS: Record<InputFormat, (bytes: Uint8Array) => Promise<RasterImage>> = {
  png: decodePng,
  jpeg: decodeJpeg,
  webp: decodeWebp,
  avif: decodeAvif,
  gif: decodeGif,
  bmp: decodeBmp,
  tiff: decodeTiff,
  heic: (bytes) => decodeHeic(bytes, maxPixelsFor("heic")),
};

/**
 * Decodes `bytes` (whose header was read with readHeader) to 8-bit RGBA.
 * - Checks the header against the pixel limit and the file's structure first (assertDecodable,
 *   assertSafeToDecode), so nothing big or hostile is decoded by accident.
 * - GIF and animated WebP: the first frame, composited onto a transparent canvas.
 * - EXIF orientation (JPEG, TIFF, and WebP/PNG EXIF) is applied to the pixels, so the result
 *   looks the way a viewer shows the original; for orientations 5-8 the result's width and
 *   height are the header's swapped. Use the result's size, not the header's, for output.
 * - Every failure is a PixelgateError: invalid_image for anything wrong with the bytes,
 *   image_too_large when the codec runs out of memory.
 */
export async function decodeImage(bytes: Uint8Array, header: ImageHeader): Promise<RasterImage> {
  assertDecodable(header);
  assertSafeToDecode(bytes, header);
  let image: RasterImage;
  try {
    image = await DECODERS[header.format](bytes);
  } catch (error) {
    throw asDecodeError(error, header.format);
  }
  const { width, height, data } = image;
  // HEIC alone may come out smaller than its header: libheif applies a clean-aperture crop.
  const sized = header.format === "heic" ? width <= header.width && height <= header.height : width === header.width && height === header.height;
  if (!sized || data.length !== width * height * 4) {
    throw invalidImage(`The ${FORMAT_INFO[header.format].label} decodes to ${width}x${height}, not the ${header.width}x${header.height} its header states.`);
  }
  return applyOrientation(image, readOrientation(bytes, header.format));
}

function asDecodeError(error: unknown, format: InputFormat): PixelgateError {
  if (error instanceof PixelgateError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // Emscripten aborts with "Cannot enlarge memory" / "OOM" when linear memory cannot grow.
  if (/cannot enlarge memory|out of memory|\bOOM\b|Array buffer allocation failed/i.test(message)) {
    return new PixelgateError("image_too_large", "The image needs more memory to decode than the worker has.", { param: "image" });
  }
  return invalidImage(`The ${FORMAT_INFO[format].label} image could not be decoded.`);
}
