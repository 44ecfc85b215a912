import type { ImageFormat, InputFormat } from "./formats.ts";
import { heicEncoding } from "./heic.ts";
import { readHeicLayout, type HeicLayout } from "./heic-layout.ts";
import { planesFromTiles } from "./heic-tiles.ts";
import { readJpegFrame } from "./jpeg.ts";
import { readOrientation, type Orientation } from "./orientation.ts";
import { maxRecodePixels } from "./limits.ts";
import type { PlanesEncoding, WebpSettings } from "./native.ts";
import { heicBytesPerPixel, heicToPngBytesPerPixel, heicToRowWriterBytesPerPixel, jpegBytesPerPixel, pngBytesPerPixel, pngLayout, pngToEncoderBytesPerPixel, rowWriterBytesPerPixel, webpBytesPerPixel, webpToPngBytesPerPixel, WEBP_DENSEST, WEBP_LOW_MEMORY, WEBP_TOKENS, webpDensestPerPixel, webpOutputPerInputByte, type NativeEncoderTarget } from "./recode-cost.ts";
import { readWebpLayout } from "./webp.ts";

// Which way one compress or convert runs, decided once from the file's first bytes: our own
// WASM build (native.ts) without an RGBA raster, or the general decode and encode. recode.ts
// runs what this says, and the pixel limits and the memory gate price what this says
// (recode-cost.ts), so the path that runs and the path that was paid for cannot differ.

/**
 * A native path: the file's reader, what it costs, and what the reader needs to know; `webp`:
 * how the WebP encoder is to spend memory (webpSettings below).
 */
export type NativeRoute = (
  | { input: "jpeg"; bytesPerPixel: number; orientation: Orientation }
  | { input: "png" | "webp"; bytesPerPixel: number; orientation: Orientation }
  | { input: "heic"; bytesPerPixel: number; encoding: PlanesEncoding; tiles: HeicLayout | null }
) & { webp?: WebpSettings };

/** Targets the native encoders write: WebP, JPEG, a TIFF around a baseline JPEG (PNG, GIF and BMP: the row writers). */
const ENCODER_TARGET: Partial<Record<ImageFormat, NativeEncoderTarget>> = { webp: "webp", jpeg: "jpeg", tiff: "jpeg" };

/** Targets written a row at a time from the row sources of native/png_sink.h, which apply any EXIF orientation. */
const ROW_WRITER_TARGETS: ReadonlySet<ImageFormat> = new Set(["png", "gif", "bmp"]);

/**
 * The native path for this file and target, or null when the general path takes it.
 * `pixels`: the header's (a PNG target's cost follows the upload's density); `quality`: the
 * compress quality, 100 when there is none (convert writes lossless PNG).
 */
export function nativeRoute(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels: number, quality: number): NativeRoute | null {
  const route = readerRoute(bytes, input, target, pixels, quality);
  return route && target === "webp" ? withWebpSettings(route, bytes, input, pixels, quality) : route;
}

/**
 * libwebp keeps every token of the picture for its final pass, and how many there are follows
 * the file it writes (recode-cost.ts WEBP_TOKENS): a lossy upload's size bounds it, a PNG's or
 * a lossless WebP's cannot, so theirs is the densest picture's at that quality (WEBP_DENSEST).
 * When that fits the isolate's budget the route pays for it; else the encoder codes as it goes
 * (slower; the file is then all that grows: WEBP_LOW_MEMORY).
 */
function withWebpSettings(route: NativeRoute, bytes: Uint8Array, input: InputFormat, pixels: number, quality: number): NativeRoute {
  // Without a size (pixels 0: comparing paths) there is no density to read: the figures alone.
  if (pixels <= 0) return route;
  const output = webpOutputPerPixel(bytes, input, pixels, quality);
  const withTokens = route.bytesPerPixel + output.perToken * output.tokens + output.perAlphaByte * output.alpha;
  if (maxRecodePixels(input, "webp", withTokens, bytes.length) >= pixels) return { ...route, bytesPerPixel: withTokens };
  const lowMemory = route.bytesPerPixel + WEBP_LOW_MEMORY.perOutputByte * output.tokens + output.perAlphaByte * output.alpha;
  return { ...route, bytesPerPixel: lowMemory, webp: { lowMemory: true } };
}

/**
 * Bytes of WebP a pixel at most, `tokens` (the VP8 data, kept as tokens) and `alpha` (a chunk our
 * alpha coder writes apart), and what each byte costs in the token buffer and in the alpha chunk.
 */
function webpOutputPerPixel(bytes: Uint8Array, input: InputFormat, pixels: number, quality: number) {
  const webp = input === "webp" ? readWebpLayout(bytes) : null;
  if (input === "png" || webp?.lossless) {
    const densest = webpDensestPerPixel(quality, input === "png" ? pngLayout(bytes).alpha : webp!.alpha);
    return { tokens: densest.vp8, alpha: densest.alpha, perToken: WEBP_DENSEST.tokensPerByte, perAlphaByte: WEBP_DENSEST.alphaPerByte };
  }
  // A lossy upload's size bounds its whole WebP, alpha included.
  const tokens = (webpOutputPerInputByte(quality) * bytes.length) / Math.max(1, pixels);
  return { tokens, alpha: 0, perToken: WEBP_TOKENS.perOutputByte, perAlphaByte: 0 };
}

function readerRoute(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels: number, quality: number): NativeRoute | null {
  const encoder = ENCODER_TARGET[target];
  if (input === "jpeg") {
    const frame = readJpegFrame(bytes);
    const orientation = readOrientation(bytes, "jpeg");
    if (target === "png") return { input, orientation, bytesPerPixel: pngBytesPerPixel(bytes, "jpeg", pixels, quality, orientation > 2, frame.progressive) };
    if (target === "gif" || target === "bmp") return { input, orientation, bytesPerPixel: rowWriterBytesPerPixel(bytes, "jpeg", target, pixels, orientation > 2, frame.progressive) };
    // A TIFF's tags describe a three-component strip: a grey JPEG takes the general path.
    if (!encoder || (target === "tiff" && frame.components !== 3)) return null;
    const to = target === "tiff" ? "tiff" : encoder;
    return { input, orientation, bytesPerPixel: jpegBytesPerPixel(frame.progressive, to, orientation !== 1, bytes.length, pixels) };
  }
  // An EXIF-oriented PNG or WebP is rare: the row writers (PNG, GIF, BMP) turn it (in bands,
  // reading the file once per band); to the other targets the general path turns it.
  const orientation = input === "png" || input === "webp" ? readOrientation(bytes, input) : 1;
  if (orientation !== 1 && !ROW_WRITER_TARGETS.has(target)) return null;
  const banded = orientation > 2;
  if (input === "png") {
    const layout = pngLayout(bytes);
    if (layout.interlaced) return null; // de-interlaced by the TypeScript decoder
    if (target === "png") return { input, orientation, bytesPerPixel: pngBytesPerPixel(bytes, "png", pixels, quality, banded, false) };
    if (target === "gif" || target === "bmp") return { input, orientation, bytesPerPixel: rowWriterBytesPerPixel(bytes, "png", target, pixels, banded, false) };
    return encoder ? { input, orientation, bytesPerPixel: pngToEncoderBytesPerPixel(layout.alpha, encoder) } : null;
  }
  if (input === "webp") {
    const layout = readWebpLayout(bytes);
    // The general path takes an animation's first frame.
    if (layout.animated) return null;
    if (target === "png") return { input, orientation, bytesPerPixel: webpToPngBytesPerPixel(bytes, layout, pixels, quality, banded) };
    if (target === "gif" || target === "bmp") return { input, orientation, bytesPerPixel: rowWriterBytesPerPixel(bytes, layout, target, pixels, banded, false) };
    return encoder ? { input, orientation, bytesPerPixel: webpBytesPerPixel(layout, encoder) } : null;
  }
  if (input === "heic") {
    const encoding = encoder || ROW_WRITER_TARGETS.has(target) ? heicEncoding(bytes) : null;
    if (!encoding) return null;
    // Our HEVC decoder's tiles when it reads the file, else libheif's planes.
    const tiles = heicTiles(bytes);
    const kind = tiles && (tiles.image.tiles.length > 1 ? "grid" : "single");
    // GIF and BMP only from our decoder's whole planes; else libheif's RGBA, the general path.
    if (target === "gif" || target === "bmp") {
      if (!tiles || !kind || !planesFromTiles(tiles)) return null;
      return { input, encoding, tiles, bytesPerPixel: heicToRowWriterBytesPerPixel(bytes, encoding.alpha, target, pixels, kind, tiles.turns !== 0) };
    }
    if (!encoder) return { input, encoding, tiles, bytesPerPixel: heicToPngBytesPerPixel(bytes, encoding.alpha, pixels, quality, kind, tiles?.turns !== 0) };
    return { input, encoding, tiles, bytesPerPixel: heicBytesPerPixel(encoding.alpha, encoder, kind) };
  }
  return null;
}

/**
 * The layout our HEVC decoder streams a row of tiles at a time (heic-tiles.ts), or null for
 * libheif: a file this reader does not follow, or finds broken, is left to libheif, which
 * answered for every HEIC before and keeps its own verdicts.
 */
function heicTiles(bytes: Uint8Array): HeicLayout | null {
  try {
    return readHeicLayout(bytes);
  } catch {
    return null;
  }
}

/** Bytes per pixel of the native path for this file and target, or null for the general path. */
export function nativeBytesPerPixel(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels = 0, quality = 100): number | null {
  return nativeRoute(bytes, input, target, pixels, quality)?.bytesPerPixel ?? null;
}
