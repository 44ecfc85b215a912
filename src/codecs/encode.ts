// Encoding RGBA to any output format, with the spec's settings (4.13 compress, 4.14 convert).
//
// | format | defaults (convert)        | alpha                       | quality option (compress)               |
// |--------|---------------------------|-----------------------------|-----------------------------------------|
// | png    | lossless, smallest layout | kept                        | 100 lossless; 1-99 palette quantization |
// | jpeg   | quality 80, progressive   | composited onto black       | JPEG quality                            |
// | webp   | lossy, quality 80         | kept                        | WebP quality                            |
// | avif   | quality 50, speed 8       | kept                        | AVIF quality                            |
// | gif    | <= 256 colours, 1 frame   | 1-bit (alpha < 128 = clear) | ignored                                 |
// | bmp    | 24-bit                    | composited onto black       | ignored                                 |
// | tiff   | JPEG-compressed, q 80     | composited onto black       | ignored                                 |
//
// Every encoder builds the file from pixels alone, so no EXIF, ICC profile or orientation tag
// of the input can reach the output, and only one frame is ever written.

import { PixelgateError } from "../errors.ts";
import { encodeAvif } from "./avif.ts";
import { FORMAT_INFO, type ImageFormat, type RasterImage } from "./formats.ts";
import { JPEG_DEFAULT_QUALITY } from "./jpeg.ts";
import { assertFormatHolds } from "./header.ts";
import { encodeRaster, encodeRgba } from "./native.ts";
import { PNG_DEFAULT_QUALITY } from "./png.ts";
import { assertRaster } from "./raster.ts";
import { encodeTiff } from "./tiff.ts";
import { WEBP_DEFAULT_QUALITY } from "./webp.ts";

export interface EncodeOptions {
  /**
   * 1-100, for compress. Absent: the fixed convert settings. Used by jpeg, webp, avif and png
   * (100 = lossless, lower = fewer palette colours); ignored by gif, bmp and tiff.
   */
  quality?: number;
}

const ENCODERS: Record<ImageFormat, (image: RasterImage, quality: number | undefined) => Promise<Uint8Array>> = {
  // Our own WASM build (native.ts) takes the raster a few rows at a time; jsquash's encoders
  // (encodeJpeg, encodeWebp) took it whole, plus two copies. PNG, GIF and BMP are the same C
  // writers that write them from an upload's rows (native/png_sink.c, gif_sink.c, bmp_sink.c).
  png: async (image, quality) => encodeRgba(image, "png", quality ?? PNG_DEFAULT_QUALITY),
  jpeg: async (image, quality) => encodeRaster(image, "jpeg", quality ?? JPEG_DEFAULT_QUALITY),
  webp: async (image, quality) => encodeRaster(image, "webp", quality ?? WEBP_DEFAULT_QUALITY),
  avif: (image, quality) => encodeAvif(image, { quality }),
  gif: async (image) => encodeRgba(image, "gif"),
  bmp: async (image) => encodeRgba(image, "bmp"),
  tiff: (image) => encodeTiff(image),
};

/**
 * Encodes `image` as `format`. Does not modify `image`. Throws PixelgateError
 * image_too_large when the format cannot hold the image's size, internal_error when an
 * encoder fails on a valid image.
 */
export async function encodeImage(image: RasterImage, format: ImageFormat, options: EncodeOptions = {}): Promise<Uint8Array> {
  assertRaster(image);
  assertFormatHolds(image.width, image.height, format);
  const quality = encodeQuality(options);
  try {
    return await ENCODERS[format](image, quality);
  } catch (error) {
    if (error instanceof PixelgateError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new PixelgateError("internal_error", `Encoding ${FORMAT_INFO[format].label} failed: ${message}`);
  }
}

/** The compress quality as an integer 1-100; undefined for convert's fixed settings. */
export function encodeQuality(options: EncodeOptions): number | undefined {
  return options.quality === undefined ? undefined : Math.min(100, Math.max(1, Math.round(options.quality)));
}
