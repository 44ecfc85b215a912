import { decodeImage, encodeImage, estimateCodecBytes, generalPrice, nativeRoute, readHeader, sniffFormat, type ImageFormat, type ImageHeader, type InputFormat, type RasterImage } from "../codecs";
import { WorkBudget } from "../codecs/fuel";
import { MODEL_INPUT_MAX_PIXELS } from "../codecs/limits";
import { rgbaRows } from "../codecs/native";
import { readPngRows } from "../codecs/png-rows";
import { shrinkToFit } from "../raster/shrink";
import { ShrinkRows } from "../raster/shrink-rows";
import { rasterizeSvg } from "../svg/raster/rasterize";
import { base64Of } from "../http/base64-bytes";

// The inline picture an MCP result carries so an agent (and its user) can see what was made
// without fetching anything (SVG included, drawn by a small rasteriser of our own): at most 512 px on the long side, WebP, tens of KB of base64 -
// well under what common clients accept. The full result stays one link away.
//
// Every image result gets one, whatever its size. A picture up to MODEL_INPUT_MAX_PIXELS is
// decoded whole and shrunk; a larger one (an 8192 x 8192 upscale) is shrunk from its rows as a
// reader hands them out, never decoded whole: a PNG read from R2 as it arrives (png-rows.ts), a
// JPEG or WebP through our build's row reader (native.ts rgbaRows, which composites alpha onto
// black: such a preview of a translucent WebP shows black behind it).
//
// A preview is made after its call was paid, so it has a work budget of its own (codecs/fuel.ts):
// the pixels its codecs read and the preview they write, at the route's rate. A preview that
// spends it is left out, like any preview that fails; the result stays intact.

export const PREVIEW_MAX_SIDE = 512;
/** SVG is drawn by our own small rasteriser (svg/raster); markup beyond this gets no preview. */
const MAX_SVG_PREVIEW_BYTES = 1024 * 1024;
const PREVIEW_QUALITY = 75;
/**
 * A stored result up to this size is read whole for its preview; a larger PNG is read as a
 * stream, a larger JPEG or WebP whole up to MAX_WHOLE_READ_BYTES (what an upstream may send:
 * providers/upstream-http.ts), beyond which it has no preview.
 */
const WHOLE_READ_BYTES = 16 * 1024 * 1024;
const MAX_WHOLE_READ_BYTES = 40 * 1024 * 1024;

/**
 * Bytes a preview made from a PNG stream holds besides its sums and rows: the preview's WebP
 * encode, zlib's inflater and its output pieces (new arrays, until collected), the stream's
 * pieces in flight. Set from the memory child's measurement (preview-upscale-*: the stored
 * 8192 x 8192 upscale's preview peaks at 37.4 MB; docs/codecs.md).
 */
const STREAMED_PREVIEW_BYTES = 36 * 1024 * 1024;
/** Per source column: the two rows a PNG reader unfilters (at most 8 B/px each for 16-bit RGBA), the RGBA row, the column table. */
const STREAMED_BYTES_PER_COLUMN = 2 * 8 + 4 + 4;

/**
 * What making the preview of a result holds at its peak (npm run bench:codecs checks it against
 * what was measured): a picture decoded whole is a codec call decoding it; one shrunk from its
 * rows holds the output's sums and a few rows (plus the file, when it was read whole); a JPEG or
 * WebP read through our build's rows costs what that route costs.
 */
export function previewBytes(file: { format: ImageFormat; width: number; height: number; bytes: Uint8Array; stored: boolean }, maxSide = PREVIEW_MAX_SIDE): number {
  const { format, width, height, bytes } = file;
  const pixels = width * height;
  const streamed = STREAMED_PREVIEW_BYTES + STREAMED_BYTES_PER_COLUMN * width + 16 * maxSide * maxSide + 8 * height;
  if (format === "png" && file.stored && bytes.length > WHOLE_READ_BYTES) return streamed;
  if (pixels <= MODEL_INPUT_MAX_PIXELS) return estimateCodecBytes(pixels, generalPrice(format, "webp", bytes.length, pixels), bytes.length);
  if (format === "png") return bytes.length + streamed;
  const rows = nativeRoute(bytes, format, "bmp", pixels, 100)?.price ?? generalPrice(format, "bmp", bytes.length, pixels);
  return estimateCodecBytes(pixels, rows, bytes.length) + 16 * maxSide * maxSide;
}

export interface Preview {
  data: string;
  mimeType: "image/webp";
  width: number;
  height: number;
}

/** A stored result as R2 hands it out: its size, its type, and a body read once. */
export interface StoredFile {
  size: number;
  contentType: string | undefined;
  body: ReadableStream<Uint8Array>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** A small WebP of a stored result, read whole or as a stream by its size (see the top). */
export async function previewOfStored(file: StoredFile, maxSide = PREVIEW_MAX_SIDE): Promise<Preview | null> {
  if (file.size <= WHOLE_READ_BYTES) return previewOf(new Uint8Array(await file.arrayBuffer()), maxSide);
  if (file.contentType === "image/png") return previewOrNull("png", 0, maxSide, () => pngRowsPreview(file.body, maxSide));
  if (file.size <= MAX_WHOLE_READ_BYTES) return previewOf(new Uint8Array(await file.arrayBuffer()), maxSide);
  await file.body.cancel();
  return null;
}

/** A small WebP of an encoded image, or null when it cannot be read (no preview then). */
export async function previewOf(bytes: Uint8Array, maxSide = PREVIEW_MAX_SIDE): Promise<Preview | null> {
  const format = sniffFormat(bytes);
  if (format === "svg") return bytes.length <= MAX_SVG_PREVIEW_BYTES ? previewOrNull(format, 0, maxSide, async () => rasterizeSvg(new TextDecoder().decode(bytes), maxSide)) : null;
  const header = format === null ? null : headerOrNull(bytes, format);
  if (format === null || header === null) return null;
  const pixels = header.width * header.height;
  if (pixels <= MODEL_INPUT_MAX_PIXELS) return previewOrNull(format, pixels, maxSide, async () => shrinkToFit(await decodeImage(bytes, header), maxSide));
  if (format === "png") return previewOrNull(format, 0, maxSide, () => pngRowsPreview(streamOf(bytes), maxSide));
  if (format === "jpeg" || format === "webp") return previewOrNull(format, pixels, maxSide, async () => nativeRowsPreview(bytes, header, format, maxSide));
  return null;
}

function headerOrNull(bytes: Uint8Array, format: InputFormat): ImageHeader | null {
  try {
    return readHeader(bytes, format);
  } catch {
    return null;
  }
}

/** The bytes as a stream of themselves (no copy, unlike a Blob's). */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * The preview of what `shrink` makes, on a work budget for the `read` pixels its codecs read of
 * a `format` file (0 for a PNG read as a stream: zlib and TypeScript, not metered) and the
 * preview they write; null when it makes nothing, fails or spends its budget.
 */
async function previewOrNull(format: InputFormat | "svg", read: number, maxSide: number, shrink: () => Promise<RasterImage | null>): Promise<Preview | null> {
  const budget = WorkBudget.forWork("codec", read + maxSide * maxSide, `${format}>webp`);
  try {
    return await budget.run(async () => {
      const small = await shrink();
      if (!small) return null;
      const webp = await encodeImage(small, "webp", { quality: PREVIEW_QUALITY });
      return { data: base64Of(webp), mimeType: "image/webp" as const, width: small.width, height: small.height };
    });
  } catch {
    return null; // a preview is a courtesy; the result itself is intact
  }
}

/** A PNG shrunk from its rows as the stream hands them out. */
async function pngRowsPreview(stream: ReadableStream<Uint8Array>, maxSide: number): Promise<RasterImage | null> {
  let shrink: ShrinkRows | null = null;
  const read = await readPngRows(
    stream,
    ({ width, height }) => void (shrink = new ShrinkRows(width, height, maxSide)),
    (y, rgba) => shrink!.addRow(y, rgba),
  );
  return read && shrink ? (shrink as ShrinkRows).result() : null;
}

/** A JPEG or WebP shrunk from the rows our build reads of it (native.ts rgbaRows), one at a time, never decoded whole. */
function nativeRowsPreview(bytes: Uint8Array, header: { width: number; height: number }, format: "jpeg" | "webp", maxSide: number): RasterImage | null {
  const rows = rgbaRows(bytes, header, format);
  if (!rows) return null;
  const shrink = new ShrinkRows(rows.width, rows.height, maxSide);
  const row = new Uint8ClampedArray(rows.width * 4);
  for (let y = 0; y < rows.height; y++) {
    rows.read(row, 1);
    shrink.addRow(y, row);
  }
  return shrink.result();
}
