// Pixel-buffer helpers shared by the codecs. RasterImage is always 8-bit RGBA without row
// padding; these helpers avoid copying it unless the result must differ from the input.

import { PixelgateError } from "../errors.ts";
import type { RasterImage } from "./formats.ts";

/** True when any pixel is not fully opaque. Stops at the first such pixel. */
export function imageHasAlpha(image: RasterImage): boolean {
  const data = image.data;
  const pixels = image.width * image.height;
  if (data.byteOffset % 4 === 0) {
    // One 32-bit compare per pixel: on little-endian hosts (every Workers host) alpha is the
    // most significant byte, so a pixel is opaque exactly when its word is >= 0xff000000.
    const words = new Uint32Array(data.buffer, data.byteOffset, pixels);
    for (let i = 0; i < pixels; i++) if (words[i]! < 0xff000000) return true;
    return false;
  }
  for (let i = 3; i < pixels * 4; i += 4) if (data[i] !== 255) return true;
  return false;
}

/** Throws unless `image` is a well-formed RasterImage (a caller bug, not a user error). */
export function assertRaster(image: RasterImage): void {
  const { width, height, data } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || data.length !== width * height * 4) {
    throw new PixelgateError("internal_error", `Malformed raster ${width}x${height} with ${data.length} bytes.`);
  }
}

/**
 * RGBA with alpha composited onto solid black and alpha set to 255, for the formats that cannot
 * hold alpha (JPEG, TIFF, BMP): a transparent pixel becomes black instead of showing whatever
 * colour the transparent area happened to store. An opaque image is returned as is (no copy).
 */
export function flattenOntoBlack(image: RasterImage): Uint8ClampedArray {
  if (!imageHasAlpha(image)) return image.data;
  const src = image.data;
  const out = new Uint8ClampedArray(src.length);
  for (let i = 0; i < src.length; i += 4) {
    const a = src[i + 3]!;
    // (c * a + 127) / 255 rounds to nearest, matching how browsers composite.
    out[i] = (src[i]! * a + 127) / 255;
    out[i + 1] = (src[i + 1]! * a + 127) / 255;
    out[i + 2] = (src[i + 2]! * a + 127) / 255;
    out[i + 3] = 255;
  }
  return out;
}

/** A RasterImage over freshly allocated, zeroed (transparent black) pixels. */
export function blankImage(width: number, height: number): RasterImage {
  return { width, height, data: new Uint8ClampedArray(width * height * 4) };
}

/** 32-bit words over the pixels, copying only if the buffer is not 4-byte aligned. */
export function pixelWords(data: Uint8ClampedArray): Uint32Array {
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
}
