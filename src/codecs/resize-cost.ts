// What a resized compress or convert costs (resize.ts), and the checks made before the charge.
// The reading stage and the answer's encode are priced apart and summed: the reader's memory
// may still be held when the encoder grows. Figures: the memory child of `npm run bench:codecs`
// (its resize cases), docs/codecs.md "Resize".

import { PixelgateError } from "../errors.ts";
import { FORMAT_INFO, type ImageFormat, type InputFormat } from "./formats.ts";
import { assertDecodable, assertFormatHolds, assertJpegColourReadable, assertWithinPixelLimit } from "./header.ts";
import { estimateCodecBytes, estimateEncodeBytes, ISOLATE_CODEC_BUDGET, maxTargetPixelsFor } from "./limits.ts";
import type { ResizePlan } from "./resize.ts";

/**
 * Bytes a pixel of the answer holds on its way to the encoder: the resizer's output in WASM
 * memory, its copy in JavaScript, and the copy an EXIF turn makes.
 */
const ANSWER_RASTER_BYTES_PER_PIXEL = 12;

/**
 * Our own build's row readers in file order (png_rows.c), by a pixel they read and a byte of the
 * upload: libjpeg's row buffers at its scaled size, the file copied into WASM memory (a JPEG, a
 * lossy WebP), a progressive JPEG's coefficients for the whole image (packed: coef_store.c),
 * libspng's and zlib's state, libwebp's macroblock rows.
 */
const ROW_READER = {
  jpeg: { perReadPixel: 0.5, perInputByte: 1.2 },
  jpegProgressive: { perReadPixel: 0.5, perInputByte: 3.8 },
  png: { perReadPixel: 0.3, perInputByte: 0 },
  webp: { perReadPixel: 1, perInputByte: 1.2 },
} as const;

type Source = { width: number; height: number; format: InputFormat; bytes: Uint8Array };

/** Bytes a pixel of the file the reading stage costs on the plan's route, or null for the general decode. */
function readBytesPerPixel(source: Source, plan: ResizePlan, progressive: boolean): number | null {
  const { input } = plan.route;
  if (!input) return null;
  const reader = ROW_READER[input === "jpeg" && progressive ? "jpegProgressive" : input];
  const pixels = source.width * source.height;
  return (reader.perReadPixel * plan.read.width * plan.read.height + reader.perInputByte * source.bytes.length) / pixels;
}

/**
 * What the memory gate admits a resized call with: the reading stage (limits.ts's estimate of
 * reading the file on its route) plus the answer's raster and its encode at the answer's size.
 */
export function estimateResizedBytes(source: Source, target: ImageFormat, plan: ResizePlan, progressive: boolean): number {
  const read = estimateCodecBytes(source.width * source.height, source.format, null, source.bytes.length, readBytesPerPixel(source, plan, progressive));
  const answer = plan.width * plan.height;
  return Math.ceil(read + answer * ANSWER_RASTER_BYTES_PER_PIXEL + estimateEncodeBytes(target, answer));
}

/**
 * Throws unless this upload can be resized into `target`, before the charge: the file readable
 * at all (its format's pixel limit, a CMYK JPEG refused), the answer's size within what the
 * target stores and its encoder's pixel limit, and the whole call within the isolate's budget.
 * The answer's size is what an encoder must hold: a picture too large for WebP fits once resized.
 */
export function assertResizable(source: Source, target: ImageFormat, plan: ResizePlan, estimate: number): void {
  assertDecodable(source);
  if (source.format === "jpeg") assertJpegColourReadable(source.bytes);
  assertFormatHolds(plan.width, plan.height, target);
  assertWithinPixelLimit(plan.width, plan.height, maxTargetPixelsFor(target), `written as ${FORMAT_INFO[target].label}`, "width");
  if (estimate > ISOLATE_CODEC_BUDGET) {
    throw new PixelgateError(
      "image_too_large",
      `Resizing this ${source.width}x${source.height} ${FORMAT_INFO[source.format].label} to ${plan.width}x${plan.height} ${FORMAT_INFO[target].label} needs more memory than the worker has; a smaller image fits.`,
      { param: "image" },
    );
  }
}
