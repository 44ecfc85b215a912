import type { RasterImage } from "../codecs";

// Shrinking a decoded image to fit a size: for MCP previews (mcp/preview.ts) and for model
// inputs that must stay under a provider's size (providers/workers-ai-flux2.ts).

/** Box-filter reduction: each output pixel averages the source pixels it covers. */
export function shrinkToFit(image: RasterImage, maxSide: number): RasterImage {
  const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
  if (scale === 1) return image;
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const out = new Uint8ClampedArray(width * height * 4);
  const source = image.data;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor((y * image.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * image.height) / height));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor((x * image.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * image.width) / width));
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = y0; sy < y1; sy++) {
        for (let sx = x0, i = (sy * image.width + x0) * 4; sx < x1; sx++, i += 4) {
          // Colours weighted by alpha, so transparent pixels lend no colour to the edge.
          const alpha = source[i + 3]!;
          r += source[i]! * alpha;
          g += source[i + 1]! * alpha;
          b += source[i + 2]! * alpha;
          a += alpha;
        }
      }
      const o = (y * width + x) * 4;
      const count = (y1 - y0) * (x1 - x0);
      if (a > 0) {
        out[o] = r / a;
        out[o + 1] = g / a;
        out[o + 2] = b / a;
      }
      out[o + 3] = a / count;
    }
  }
  return { width, height, data: out };
}
