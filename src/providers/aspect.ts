import { PixelgateError } from "../errors";
import type { AspectRatio } from "./types";

// Aspect ratios as requests write them ("16:9") and the pixel sizes they become. The
// default is 1:1; anything between 1:4 and 4:1 with whole-number terms is accepted.

export const DEFAULT_ASPECT_RATIO = "1:1";
const MAX_TERM = 64;
const MAX_ELONGATION = 4;
const MEGAPIXEL = 1024 * 1024;

export function parseAspectRatio(label: string, param = "aspectRatio"): AspectRatio {
  const match = /^\s*(\d{1,3})\s*[:x/]\s*(\d{1,3})\s*$/i.exec(label);
  const width = match ? Number(match[1]) : 0;
  const height = match ? Number(match[2]) : 0;
  const valid =
    width >= 1 && height >= 1 && width <= MAX_TERM && height <= MAX_TERM &&
    Math.max(width, height) / Math.min(width, height) <= MAX_ELONGATION;
  if (!valid) {
    throw new PixelgateError(
      "invalid_parameter",
      `aspectRatio must look like "16:9": two whole numbers up to ${MAX_TERM}, at most ${MAX_ELONGATION}:1 either way (common: 1:1, 16:9, 9:16, 4:3, 3:4, 21:9).`,
      { param },
    );
  }
  return { label: `${width}:${height}`, width, height };
}

/**
 * The largest size with exactly this ratio whose long side is at most `longSide`, in steps of
 * `multiple` pixels per ratio unit when the upstream needs sizes divisible by something.
 */
export function dimensionsFor(ratio: AspectRatio, longSide: number, multiple = 1): { width: number; height: number } {
  const unit = Math.max(1, Math.floor(longSide / Math.max(ratio.width, ratio.height) / multiple)) * multiple;
  return { width: ratio.width * unit, height: ratio.height * unit };
}

/**
 * About a megapixel at the ratio, for upstreams that take any size in a range: each side rounded
 * to a multiple of `multiple` and kept within `min`..`max`. Where the cap cuts in (4:1 under a
 * 1920 cap), both sides shrink together: the long side follows the short one's step, so the
 * ratio holds as well as the multiple allows (1792x448, not 1920x512).
 */
export function megapixelSize(ratio: AspectRatio, bounds: { multiple: number; min: number; max: number }): { width: number; height: number } {
  const r = ratio.width / ratio.height;
  const step = bounds.multiple;
  const within = (length: number) => Math.min(bounds.max, Math.max(bounds.min, length));
  const ideal = { width: Math.sqrt(MEGAPIXEL * r), height: Math.sqrt(MEGAPIXEL / r) };
  const longIdeal = Math.max(ideal.width, ideal.height);
  if (longIdeal <= bounds.max) {
    const side = (length: number) => within(Math.round(length / step) * step);
    return { width: side(ideal.width), height: side(ideal.height) };
  }
  const elongation = Math.max(r, 1 / r);
  const shortIdeal = bounds.max / elongation;
  let best = { short: 0, long: 0, error: Infinity };
  for (const short of [Math.floor(shortIdeal / step) * step, Math.ceil(shortIdeal / step) * step].map(within)) {
    const long = Math.min(Math.floor(bounds.max / step) * step, Math.round((short * elongation) / step) * step);
    const error = Math.abs(long / short / elongation - 1);
    if (error < best.error) best = { short, long, error };
  }
  return r >= 1 ? { width: best.long, height: best.short } : { width: best.short, height: best.long };
}

/** Results within this much of the requested ratio are said to have it (upstreams round sizes to their multiples). */
const SAME_RATIO_TOLERANCE = 0.01;

/**
 * The aspect ratio an image of `width` x `height` has, as a label: the requested one when the
 * image keeps it (to rounding), else the size's own ratio in lowest terms (1024x576 is "16:9").
 */
export function aspectLabelOf(width: number, height: number, requested?: AspectRatio): string {
  if (requested && Math.abs((width / height) * (requested.height / requested.width) - 1) <= SAME_RATIO_TOLERANCE) return requested.label;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const divisor = gcd(width, height);
  return `${width / divisor}:${height / divisor}`;
}
