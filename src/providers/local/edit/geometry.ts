// Edits that move pixels without changing them: quarter turns, flips and centred crops. The
// turns and flips are the EXIF orientation transforms the decoder already applies, reused.

import { applyOrientation } from "../../../codecs/orientation.ts";
import type { RasterImage } from "../../../codecs/formats.ts";
import type { CropRatio } from "../edit.ts";

/** Clockwise quarter turns; 90 and 270 swap width and height. */
export function rotate(image: RasterImage, degrees: 90 | 180 | 270): RasterImage {
  // EXIF 6 is a clockwise quarter turn, 3 a half turn, 8 a counter-clockwise quarter turn.
  if (degrees === 180) return applyOrientation(copy(image), 3);
  return applyOrientation(image, degrees === 90 ? 6 : 8);
}

/** Top to bottom (EXIF 4). */
export function flipVertical(image: RasterImage): RasterImage {
  return applyOrientation(copy(image), 4);
}

/** Left to right, as in a mirror (EXIF 2). */
export function mirror(image: RasterImage): RasterImage {
  return applyOrientation(copy(image), 2);
}

/**
 * The size of the largest region of a width x height image with the given aspect ratio: one
 * side is kept, the other rounded to the nearest pixel (at least 1).
 */
export function cropSize(width: number, height: number, ratio: CropRatio): [number, number] {
  const target = ratio.width / ratio.height;
  if (width / height > target) return [Math.max(1, Math.min(width, Math.round(height * target))), height];
  return [width, Math.max(1, Math.min(height, Math.round(width / target)))];
}

/** The centred region with the given aspect ratio. */
export function crop(image: RasterImage, ratio: CropRatio): RasterImage {
  const { width: w, height: h, data } = image;
  const [cw, ch] = cropSize(w, h, ratio);
  const left = Math.floor((w - cw) / 2);
  const top = Math.floor((h - ch) / 2);
  const out = new Uint8ClampedArray(cw * ch * 4);
  for (let y = 0; y < ch; y++) {
    const start = ((top + y) * w + left) * 4;
    out.set(data.subarray(start, start + cw * 4), y * cw * 4);
  }
  return { width: cw, height: ch, data: out };
}

/** The flips work in place on the buffer they are given; callers' images stay untouched. */
function copy(image: RasterImage): RasterImage {
  return { width: image.width, height: image.height, data: image.data.slice() };
}
