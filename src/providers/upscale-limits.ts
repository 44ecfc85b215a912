// How large an upscale may get, whatever the provider, and what a local one costs the isolate's
// memory: both known from the input's header before any credit is taken.

import type { ImageHeader } from "../codecs/formats.ts";
import { pictureRowsBytes } from "../codecs/picture-rows.ts";
import { PixelgateError } from "../errors.ts";
import type { ScaleFactor } from "./types.ts";

/**
 * The largest upscale results, in pixels, by how the result is made: one table, read by the
 * pre-charge checks, the tests and docs/api.md.
 * - `streamed`: the upscale tool, whatever the provider: 8192 x 8192, so 4x of 2048 x 2048, 8x
 *   of 1024 x 1024 and 2x of a 12 MP photo (4032 x 3024 -> 8064 x 6048) fit. The local
 *   upscaler writes such a result as rows straight into the hosted file (upscaleRows, then
 *   codecs/native.ts pngPieces), holding a band of the source and a few widened rows, never the output.
 * - `raster`: an upscale step of the local editor (edit's `action: upscale`, "upscale 4x" in a
 *   prompt), whose result is a whole raster the next step reads and the PNG encoder takes:
 *   2048 x 2048, as measured for the model tools' encode (npm run bench:codecs).
 * - `inline`: the largest upscale answered with `responseFormat: b64_json` besides its link (the
 *   hosted file is read back whole for its base64): as `raster`.
 */
export const UPSCALE_OUTPUT_LIMITS = {
  streamed: 8192 * 8192,
  raster: 2048 * 2048,
  inline: 2048 * 2048,
} as const;

/**
 * Refuses, before any credit is taken, an upscale whose output would pass `limit` (an entry of
 * UPSCALE_OUTPUT_LIMITS). The message names the largest input that fits at this factor, so the
 * caller can resize and retry.
 */
export function assertUpscaleFits(width: number, height: number, factor: ScaleFactor, param: string, limit: number): void {
  if (factor !== 2 && factor !== 4 && factor !== 8) {
    throw new PixelgateError("invalid_parameter", `The scale factor must be 2x, 4x or 8x, not ${String(factor)}x.`, { param });
  }
  const outputPixels = width * factor * height * factor;
  if (outputPixels <= limit) return;
  const maxInput = Math.floor(limit / (factor * factor));
  const [fitWidth, fitHeight] = largestFit(width, height, maxInput);
  const side = Math.sqrt(limit);
  throw new PixelgateError(
    "image_too_large",
    `Upscaling ${width}x${height} by ${factor}x would give ${width * factor}x${height * factor} ` +
      `(${count(outputPixels)} pixels); the upscale output limit is ${count(limit)} pixels (${side} x ${side}). ` +
      `At ${factor}x the input may have at most ${count(maxInput)} pixels, ` +
      `e.g. ${fitWidth}x${fitHeight} at this aspect ratio.`,
    { param },
  );
}

/** The largest width x height with the same aspect ratio and at most `maxPixels` pixels. */
function largestFit(width: number, height: number, maxPixels: number): [number, number] {
  const scale = Math.sqrt(maxPixels / (width * height));
  let w = Math.max(1, Math.floor(width * scale));
  let h = Math.max(1, Math.floor(height * scale));
  while (w * h > maxPixels) {
    if (w >= h && w > 1) w--;
    else h--;
  }
  return [w, h];
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * What the local upscaler holds beside the source's reading (its bands, or its whole decode),
 * whatever the size: one upload part (8 MiB, storage/results.ts), a band of output rows and its
 * filtered copy (1 MB each at most), an IDAT chunk, zlib's state and its output in flight, and
 * what a collection has not yet taken back of it. Set from the memory child's measurements
 * (npm run bench:codecs, cases upscale-*; docs/codecs.md): every measured peak lies under the
 * estimate below.
 */
const UPSCALE_WORKING_BYTES = 24 * 1024 * 1024;
/**
 * Per output column: the widened source rows it keeps (at most 7, four float channels: 112 B)
 * and the float row of a translucent image (16 B).
 */
const WIDENED_BYTES_PER_OUTPUT_COLUMN = 7 * 16 + 16;

/**
 * The memory a local upscale needs at its peak, for the memory gate: reading the source's rows
 * (codecs/picture-rows.ts pictureRowsBytes: a JPEG, PNG or WebP's row source in bands, else its
 * whole decode, and the upload), all of which is held while the rows are written, plus the
 * upscaler's working set. Beside the source's reading it grows with the output's width, not its
 * area: the output is never whole.
 */
export function estimateUpscaleBytes(source: ImageHeader & { bytes: Uint8Array }, factor: ScaleFactor): number {
  return pictureRowsBytes(source.bytes, source) + UPSCALE_WORKING_BYTES + WIDENED_BYTES_PER_OUTPUT_COLUMN * source.width * factor;
}
