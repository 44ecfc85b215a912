import { decodeImage, encodeImage, readHeader, sniffFormat, type RasterImage } from "../codecs";
import { MODEL_INPUT_MAX_PIXELS } from "../codecs/limits";
import { shrinkToFit } from "../raster/shrink";
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
