// Reading an image's size from its header, and deciding from the file's structure alone whether
// the worker may decode it. Nothing here decodes pixel data, so an oversized or hostile image is
// refused before it can cost memory or CPU, and before the caller is charged.

import { PixelgateError } from "../errors.ts";
import { readAvifHeader } from "./avif.ts";
import { assertBmpPixelsPresent, readBmpHeader } from "./bmp.ts";
import { invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type ImageFormat, type ImageHeader, type InputFormat } from "./formats.ts";
import { readHeicHeader } from "./heic.ts";
import { assertHeicDecodable } from "./heic-structure.ts";
import { assertGifFrameDecodable, readGifHeader } from "./gif.ts";
import { readJpegFrame, readJpegHeader, readJpegScans } from "./jpeg.ts";
import { MAX_HEADER_SIDE, maxPixelsFor, maxRecodePixels, TARGET_MAX_SIDE } from "./limits.ts";
import type { Price } from "./recode-cost.ts";
import { assertPngChunksPresent, readPngHeader } from "./png.ts";
import { assertTiffDecodable, readTiffHeader } from "./tiff.ts";
import { assertWebpFrameDecodable, readWebpHeader } from "./webp.ts";

const HEADER_READERS: Record<InputFormat, (bytes: Uint8Array) => { width: number; height: number }> = {
  png: readPngHeader,
  jpeg: readJpegHeader,
  webp: readWebpHeader,
  avif: readAvifHeader,
  gif: readGifHeader,
  bmp: readBmpHeader,
  tiff: readTiffHeader,
  heic: readHeicHeader,
};

/**
 * Width and height as the header states them (before any EXIF orientation is applied), read
 * as `format` without decoding pixels. Throws PixelgateError invalid_image when the header is
 * missing, truncated or malformed for that format.
 */
export function readHeader(bytes: Uint8Array, format: InputFormat): ImageHeader {
  const read = HEADER_READERS[format];
  if (!read) throw new PixelgateError("unsupported_image_format", `Unknown image format "${String(format)}".`, { param: "image" });
  const { width, height } = read(bytes);
  return { format, width, height };
}

/**
 * Throws unless an image of this header may be decoded here:
 * - invalid_image when a side is zero, not an integer or beyond what any format can store
 *   (a corrupt header, not a large image);
 * - image_too_large when width x height exceeds the format's pixel limit (limits.ts).
 */
export function assertDecodable(header: ImageHeader): void {
  const { width, height } = header;
  const label = FORMAT_INFO[header.format]?.label ?? "image";
  for (const side of [width, height]) {
    if (!Number.isInteger(side) || side < 1) throw invalidImage(`The ${label} header gives the image no size (${width}x${height}).`);
    if (side > MAX_HEADER_SIDE) throw invalidImage(`The ${label} header gives an impossible size (${width}x${height}).`);
  }
  assertWithinPixelLimit(width, height, maxPixelsFor(header.format), `read as ${label}`, "image");
}

/**
 * Throws unless this upload can be turned into `target`, run in prepare, before the charge:
 * unsupported_image_format for a CMYK JPEG; image_too_large for a side the target cannot store
 * (assertFormatHolds), or more pixels than the isolate's memory allows on the path it takes
 * (maxRecodePixels), its upload counted.
 */
export function assertRecodable(source: { width: number; height: number; format: InputFormat; bytes: Uint8Array }, target: ImageFormat, price: Price): void {
  if (source.format === "jpeg") assertJpegColourReadable(source.bytes);
  assertFormatHolds(source.width, source.height, target);
  const limit = maxRecodePixels(source.format, price, source.bytes.length);
  assertWithinPixelLimit(source.width, source.height, limit, `turned into ${FORMAT_INFO[target].label} from this ${FORMAT_INFO[source.format].label}`, "targetFormat");
}

/**
 * unsupported_image_format for a CMYK or YCCK JPEG (a print file): no reader here turns its inks
 * into RGB (ours take YCbCr, grey and RGB; jsquash's decoder refuses it too), so it is refused
 * from its header, before the charge, rather than failing after it.
 */
export function assertJpegColourReadable(bytes: Uint8Array): void {
  const { colorSpace } = readJpegFrame(bytes);
  if (colorSpace === "cmyk" || colorSpace === "ycck") {
    throw new PixelgateError("unsupported_image_format", `This JPEG is coded in ${colorSpace.toUpperCase()} (a print file); save it as an RGB JPEG, or as PNG, and send that.`, { param: "image" });
  }
}

/**
 * image_too_large when `format` cannot store a width x height image (limits.ts TARGET_MAX_SIDE).
 * Either order of the sides is refused alike, so an EXIF turn applied later cannot change it.
 */
export function assertFormatHolds(width: number, height: number, format: ImageFormat): void {
  const maxSide = TARGET_MAX_SIDE[format];
  if (width > maxSide || height > maxSide) {
    throw new PixelgateError(
      "image_too_large",
      `${FORMAT_INFO[format].label} cannot hold a ${width}x${height} image (at most ${maxSide} pixels per side).`,
      { param: "targetFormat" },
    );
  }
}

/** image_too_large when a width x height image has more than `limit` pixels. */
export function assertWithinPixelLimit(width: number, height: number, limit: number, what: string, param: string): void {
  if (width * height > limit) {
    throw new PixelgateError("image_too_large", `The image is ${width}x${height} (${width * height} pixels); at most ${limit} pixels can be ${what}.`, { param });
  }
}

/**
 * What the header size does not cover but the file alone decides, for the formats where it
 * matters (each module documents its own checks). Linear in the file (TIFF strips that share
 * bytes: at most MAX_TIFF_CHUNK_BYTES); run before the charge, after assertDecodable, and again
 * by decodeImage. Throws invalid_image or image_too_large.
 * - JPEG: at most maxJpegScans(pixels) scans, and an end-of-image marker (a cut-off file).
 * - GIF: the first frame within the pixel limit (the header gives the screen), its data complete.
 * - TIFF: the directory graph (no loops, no shared or countless directories), tag values and
 *   strips or tiles inside the file, a sane strip count, each JPEG strip's size and scans.
 * - WebP: an animation's first frame on its canvas.
 * - BMP: an uncompressed file holds every row its header promises.
 * - PNG: every chunk inside the file, and image data.
 * - HEIC: item extents inside the file, at most MAX_HEIC_GRID_TILES tiles a grid, every HEVC
 *   parameter set (hvcC and in band) within its item's declared size (heic-structure.ts).
 */
const STRUCTURE_CHECKS: Partial<Record<InputFormat, (bytes: Uint8Array) => void>> = {
  jpeg: readJpegScans,
  gif: assertGifFrameDecodable,
  tiff: assertTiffDecodable,
  webp: assertWebpFrameDecodable,
  heic: assertHeicDecodable,
  bmp: assertBmpPixelsPresent,
  png: assertPngChunksPresent,
};

export function assertSafeToDecode(bytes: Uint8Array, header: ImageHeader): void {
  STRUCTURE_CHECKS[header.format]?.(bytes);
}
