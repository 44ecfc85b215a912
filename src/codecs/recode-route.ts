import type { ImageFormat, InputFormat } from "./formats.ts";
import { heicEncoding } from "./heic.ts";
import { readHeicLayout, type HeicLayout } from "./heic-layout.ts";
import { planesFromTiles } from "./heic-tiles.ts";
import { readJpegFrame } from "./jpeg.ts";
import { readOrientation, type Orientation } from "./orientation.ts";
import { bytesLeftBeside, maxRecodePixels } from "./limits.ts";
import type { PlanesEncoding, WebpSettings } from "./native.ts";
import { heicBytesPerPixel, heicToPngBytesPerPixel, heicToRowWriterBytesPerPixel, jpegBytesPerPixel, jpegToLowMemoryWebpBytesPerPixel, pngBytesPerPixel, pngLayout, pngToEncoderBytesPerPixel, rowWriterBytesPerPixel, webpBytesPerPixel, webpToPngBytesPerPixel, WEBP_DENSEST, WEBP_LOW_MEMORY, WEBP_TOKENS, UNKNOWN_SOURCE_QUALITY, webpDensestPerPixel, webpFilePerInputByte, webpOutputPerInputByte, webpPhotoPerPixel, type NativeEncoderTarget } from "./recode-cost.ts";
import { readWebpLayout } from "./webp.ts";

// Which way one compress or convert runs, decided once from the file's first bytes: our own
// WASM build (native.ts) without an RGBA raster, or the general decode and encode. recode.ts
// runs what this says, and the pixel limits and the memory gate price what this says
// (recode-cost.ts), so the path that runs and the path that was paid for cannot differ.

/**
 * A native path: the file's reader, what it costs, and what the reader needs to know; `webp`:
 * how the WebP encoder is to spend memory (withWebpSettings below); `lowMemoryBytesPerPixel`:
 * the reader's cost beside a WebP encoder that codes as it goes, where it was measured apart.
 */
export type NativeRoute = (
  | { input: "jpeg"; bytesPerPixel: number; orientation: Orientation }
  | { input: "png" | "webp"; bytesPerPixel: number; orientation: Orientation }
  | { input: "heic"; bytesPerPixel: number; encoding: PlanesEncoding & { alpha: boolean }; tiles: HeicLayout | null }
) & { webp?: WebpSettings; lowMemoryBytesPerPixel?: number };

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
 * the file it writes (recode-cost.ts WEBP_TOKENS). A lossy upload's size suggests it; a PNG's or
 * a lossless WebP's cannot, so theirs is the densest picture's at that quality (WEBP_DENSEST).
 * When that fits the isolate's budget the route pays for it; else the encoder codes as it goes
 * (slower; the file is then all that grows: WEBP_LOW_MEMORY), priced for the largest file the
 * picture can make at that quality when that fits, else for the largest the upload's size lets
 * one expect (webpFilePerInputByte), else for what the isolate's budget leaves, when that holds a
 * photo's file (webpPhotoPerPixel). What was paid for is enforced (WebpSettings): the token
 * buffer may take half its price, and past that the picture is coded again as it goes, its file
 * (the densest picture's at most) priced beside that half; coded as it goes from the start, the
 * file may be as large as it was priced.
 */
function withWebpSettings(route: NativeRoute, bytes: Uint8Array, input: InputFormat, pixels: number, quality: number): NativeRoute {
  // Without a size (pixels 0: comparing paths) there is no density to read: the figures alone.
  if (pixels <= 0) return route;
  const output = webpOutputPerPixel(bytes, input, pixels, quality, route.input === "heic" && route.encoding.alpha);
  const fits = (bytesPerPixel: number) => maxRecodePixels(input, "webp", bytesPerPixel, bytes.length) >= pixels;
  const fileOf = (vp8: number) => WEBP_LOW_MEMORY.perOutputByte * vp8 + output.perAlphaByte * output.alpha;
  const fileBytes = (vp8: number) => (vp8 + output.alpha) * pixels + WEBP_HEADER_BYTES;
  const tokens = output.perToken * output.tokens + output.perAlphaByte * output.alpha;
  // Half the tokens' price, and beside it the densest file, coded again as it goes.
  const withTokens = route.bytesPerPixel + Math.max(tokens, tokens / 2 + fileOf(output.densest));
  if (fits(withTokens)) return { ...route, bytesPerPixel: withTokens, webp: { tokenBytes: (tokens / 2) * pixels, fileBytes: fileBytes(output.densest) } };
  const base = route.lowMemoryBytesPerPixel ?? route.bytesPerPixel;
  /** Coded as it goes, the file priced at `filePerPixel` and allowed `allowed` bytes. */
  const asItGoes = (filePerPixel: number, allowed: number): NativeRoute => ({ ...route, bytesPerPixel: base + filePerPixel, webp: { lowMemory: true, fileBytes: allowed } });
  const asItGoesUpTo = (vp8: number) => asItGoes(fileOf(vp8), fileBytes(vp8));
  if (fits(base + fileOf(output.densest))) return asItGoesUpTo(output.densest);
  if (output.uploadBound !== null && fits(base + fileOf(output.uploadBound))) return asItGoesUpTo(output.uploadBound);
  // Neither fits (a large upload: its own cost leaves less room). The file may take what the
  // isolate's budget leaves beside the rest of the call, each byte at the VP8 data's price,
  // alpha chunk included; the call then has the isolate to itself. Most pictures write far less
  // than the densest (a 12 MP phone photo 0.05 bytes a pixel at quality 80, noise 0.98); one
  // that writes more fails with image_too_large, refunded. Too little room for a photo's file:
  // the densest price stands, and the limit refuses the call before the charge.
  const room = (bytesLeftBeside(input, base, bytes.length, pixels) * ROOM_USED) / WEBP_LOW_MEMORY.perOutputByte;
  if (room < webpPhotoPerPixel(quality) * pixels) return asItGoesUpTo(output.densest);
  return asItGoes((WEBP_LOW_MEMORY.perOutputByte * room) / pixels, Math.floor(room));
}

/** The share of what the budget leaves that a file may take: the rest keeps rounding from tipping the limit. */
const ROOM_USED = 0.99;

/** RIFF, VP8X, ALPH and VP8 chunk headers, the alpha coder's, and room to spare: allowed beside a file's bytes per pixel. */
const WEBP_HEADER_BYTES = 4096;

/**
 * Bytes of WebP a pixel: `tokens`, what the token buffer is priced for (the VP8 data); `densest`,
 * the most VP8 data any picture makes at that quality; `uploadBound`, for a lossy upload, the
 * most its size lets one expect (null for a PNG or lossless WebP, bound by `densest` alone);
 * `alpha`, the chunk our alpha coder writes apart. With what each byte costs in the token buffer
 * and in the alpha chunk.
 */
function webpOutputPerPixel(bytes: Uint8Array, input: InputFormat, pixels: number, quality: number, heicAlpha: boolean) {
  const webp = input === "webp" ? readWebpLayout(bytes) : null;
  const densest = webpDensestPerPixel(quality, input === "png" ? pngLayout(bytes).alpha : (webp?.alpha ?? heicAlpha));
  const alpha = { alpha: densest.alpha, perAlphaByte: WEBP_DENSEST.alphaPerByte };
  if (input === "png" || webp?.lossless) return { tokens: densest.vp8, densest: densest.vp8, uploadBound: null, perToken: WEBP_DENSEST.tokensPerByte, ...alpha };
  // A lossy upload's size suggests its WebP, given how coarsely it was written (the ratios were
  // measured on JPEGs, without alpha).
  const perUploadByte = (ratio: number) => (ratio * bytes.length) / Math.max(1, pixels);
  const sourceQuality = (input === "jpeg" ? readJpegFrame(bytes).quality : null) ?? UNKNOWN_SOURCE_QUALITY;
  const ratio = webpFilePerInputByte(quality, sourceQuality);
  const uploadBound = ratio === null ? densest.vp8 : Math.min(densest.vp8, perUploadByte(ratio));
  return { tokens: perUploadByte(webpOutputPerInputByte(quality)), densest: densest.vp8, uploadBound, perToken: WEBP_TOKENS.perOutputByte, ...alpha };
}

function readerRoute(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels: number, quality: number): NativeRoute | null {
  const encoder = ENCODER_TARGET[target];
  if (input === "jpeg") {
    const frame = readJpegFrame(bytes);
    // CMYK and YCCK: no reader of ours; RGB-coded: the row writers' reader only (native/png_rows.c).
    if (frame.colorSpace === "cmyk" || frame.colorSpace === "ycck") return null;
    if (frame.colorSpace === "rgb" && !ROW_WRITER_TARGETS.has(target)) return null;
    const orientation = readOrientation(bytes, "jpeg");
    if (target === "png") return { input, orientation, bytesPerPixel: pngBytesPerPixel(bytes, "jpeg", pixels, quality, orientation > 2, frame.progressive) };
    if (target === "gif" || target === "bmp") return { input, orientation, bytesPerPixel: rowWriterBytesPerPixel(bytes, "jpeg", target, pixels, orientation > 2, frame.progressive) };
    // A TIFF's tags describe a three-component strip: a grey JPEG takes the general path.
    if (!encoder || (target === "tiff" && frame.components !== 3)) return null;
    const to = target === "tiff" ? "tiff" : encoder;
    const bytesPerPixel = jpegBytesPerPixel(frame.progressive, to, orientation !== 1, bytes.length, pixels);
    if (to !== "webp") return { input, orientation, bytesPerPixel };
    return { input, orientation, bytesPerPixel, lowMemoryBytesPerPixel: jpegToLowMemoryWebpBytesPerPixel(frame.progressive) };
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
    if (!encoder) {
      // PNG reads whole planes: our decoder's when it can make them, else libheif's (priced so).
      const planes = tiles && kind && planesFromTiles(tiles) ? tiles : null;
      const from = planes ? kind : null;
      return { input, encoding, tiles: planes, bytesPerPixel: heicToPngBytesPerPixel(bytes, encoding.alpha, pixels, quality, from, planes?.turns !== 0) };
    }
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
