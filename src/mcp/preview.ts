import { decodeImage, encodeImage, readHeader, sniffFormat, type RasterImage } from "../codecs";
import { MODEL_INPUT_MAX_PIXELS } from "../codecs/limits";
import { rasterizeSvg } from "../svg/raster/rasterize";
import { base64Of } from "../http/base64-bytes";

// The inline picture an MCP result carries so an agent (and its user) can see what was made
// without fetching anything (SVG included, drawn by a small rasteriser of our own): at most 512 px on the long side, WebP, tens of KB of base64 -
// well under what common clients accept. The full result stays one link away.

export const PREVIEW_MAX_SIDE = 512;
/** SVG is drawn by our own small rasteriser (svg/raster); markup beyond this gets no preview. */
const MAX_SVG_PREVIEW_BYTES = 1024 * 1024;
const PREVIEW_QUALITY = 75;

export interface Preview {
  data: string;
  mimeType: "image/webp";
  width: number;
  height: number;
}

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

/** A small WebP of an encoded image, or null when it cannot be read (no preview then). */
export async function previewOf(bytes: Uint8Array, maxSide = PREVIEW_MAX_SIDE): Promise<Preview | null> {
  const format = sniffFormat(bytes);
  if (format === null) return null;
  try {
    if (format === "svg") return bytes.length <= MAX_SVG_PREVIEW_BYTES ? await webpPreview(rasterizeSvg(new TextDecoder().decode(bytes), maxSide)) : null;
    const header = readHeader(bytes, format);
    if (header.width * header.height > MODEL_INPUT_MAX_PIXELS) return null;
    return await webpPreview(shrinkToFit(await decodeImage(bytes, header), maxSide));
  } catch {
    return null; // a preview is a courtesy; the result itself is intact
  }
}

async function webpPreview(small: RasterImage | null): Promise<Preview | null> {
  if (!small) return null;
  const webp = await encodeImage(small, "webp", { quality: PREVIEW_QUALITY });
  return { data: base64Of(webp), mimeType: "image/webp", width: small.width, height: small.height };
}
