// What the local renderer takes from reference images: their dominant colours, nothing else.
// It cannot copy a subject or a style the way an image model would; using the references'
// palette is the honest, simple use of them (documented in the model description).

import type { RasterImage } from "../../../codecs/formats.ts";
import { distance, type Rgb } from "./color.ts";

const MAX_SAMPLES = 65_536; // per reference: enough for a stable histogram, cheap on 4 MP images
const MIN_SEPARATION = 60; // picked colours must differ this much (RGB distance) to count as distinct

/**
 * The most common colours across the references, most common first, at most `limit`. Pixels
 * are binned at 4 bits per channel and each bin reports its mean colour; transparent pixels
 * are ignored.
 */
export function dominantColors(references: readonly RasterImage[], limit = 4): Rgb[] {
  const counts = new Uint32Array(4096);
  const sums = new Float64Array(4096 * 3);
  for (const ref of references) {
    const pixels = ref.width * ref.height;
    const stride = Math.max(1, Math.floor(pixels / MAX_SAMPLES));
    const data = ref.data;
    for (let p = 0; p < pixels; p += stride) {
      const o = p * 4;
      if (data[o + 3]! < 128) continue;
      const r = data[o]!;
      const g = data[o + 1]!;
      const b = data[o + 2]!;
      const bin = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
      counts[bin]!++;
      sums[bin * 3] = sums[bin * 3]! + r;
      sums[bin * 3 + 1] = sums[bin * 3 + 1]! + g;
      sums[bin * 3 + 2] = sums[bin * 3 + 2]! + b;
    }
  }
  const bins = Array.from(counts.keys()).filter((bin) => counts[bin]! > 0);
  bins.sort((a, b) => counts[b]! - counts[a]! || a - b);
  const picked: Rgb[] = [];
  for (const bin of bins) {
    const n = counts[bin]!;
    const color: Rgb = [Math.round(sums[bin * 3]! / n), Math.round(sums[bin * 3 + 1]! / n), Math.round(sums[bin * 3 + 2]! / n)];
    if (picked.every((c) => distance(c, color) >= MIN_SEPARATION)) picked.push(color);
    if (picked.length === limit) break;
  }
  return picked;
}
