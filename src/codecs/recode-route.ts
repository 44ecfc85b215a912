import { PixelgateError } from "../errors.ts";
import type { ImageFormat, InputFormat } from "./formats.ts";
import type { HeicLayout } from "./heic-layout.ts";
import type { Orientation } from "./orientation.ts";
import { bytesLeftBeside, maxRecodePixels } from "./limits.ts";
import type { PlanesEncoding, WebpSettings } from "./native.ts";
import { WEBP_DENSEST, WEBP_LOW_MEMORY, WEBP_TOKENS, UNKNOWN_SOURCE_QUALITY, webpDensestPerPixel, webpFilePerInputByte, webpOutputPerInputByte, webpPhotoPerPixel } from "./recode-cost.ts";
import { readRouteFacts, rowsFor, type RouteFacts, type RouteRow } from "./route-table.ts";

// Which way one compress or convert runs, decided once from the file's header: a row of the
// route table (route-table.ts: our own WASM build, without an RGBA raster), or the general
// decode and encode when no row applies. recode.ts runs what this says, and the pixel limits and
// the memory gate price what this says, so the path that runs and the path that was paid for
// cannot differ.

/**
 * A native path: its row, the facts it was chosen on, what it costs; `webp`: how the WebP
 * encoder is to spend memory (withWebpSettings below); `lowMemoryBytesPerPixel`: the reader's
 * cost beside a WebP encoder that codes as it goes, where it was measured apart. `orientation`:
 * the EXIF one a JPEG, PNG or WebP reader applies; a HEIC's `encoding` and `tiles` (null: libheif).
 */
export interface NativeRoute {
  row: RouteRow;
  facts: RouteFacts;
  input: "jpeg" | "png" | "webp" | "heic";
  bytesPerPixel: number;
  orientation: Orientation;
  encoding?: PlanesEncoding & { alpha: boolean };
  tiles?: HeicLayout | null;
  webp?: WebpSettings;
  lowMemoryBytesPerPixel?: number;
}

/**
 * The native path for this file and target, or null when the general path takes it.
 * `pixels`: the header's (a PNG target's cost follows the upload's density); `quality`: the
 * compress quality, 100 when there is none (convert writes lossless PNG).
 */
export function nativeRoute(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels: number, quality: number): NativeRoute | null {
  if (input !== "jpeg" && input !== "png" && input !== "webp" && input !== "heic") return null;
  const facts = readRouteFacts(bytes, input);
  const rows = rowsFor(facts, target);
  if (rows.length > 1) throw new PixelgateError("internal_error", `Two codec routes claim ${input} to ${target}: ${rows.map((row) => row.name).join(", ")}.`);
  const row = rows[0];
  if (!row) return null;
  const cost = row.cost(facts, { bytes, target, pixels, quality });
  const heic = facts.heic ? { encoding: facts.heic.encoding!, tiles: facts.heic.tiles && (target === "png" && !facts.heic.wholePlanes ? null : facts.heic.tiles) } : {};
  const route: NativeRoute = { row, facts, input, orientation: facts.orientation, ...heic, ...cost };
  return target === "webp" ? withWebpSettings(route, bytes, input, pixels, quality) : route;
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
  const output = webpOutputPerPixel(bytes, route.facts, pixels, quality);
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
function webpOutputPerPixel(bytes: Uint8Array, facts: RouteFacts, pixels: number, quality: number) {
  const { input, webp } = facts;
  const densest = webpDensestPerPixel(quality, facts.png?.alpha ?? webp?.alpha ?? facts.heic?.encoding?.alpha ?? false);
  const alpha = { alpha: densest.alpha, perAlphaByte: WEBP_DENSEST.alphaPerByte };
  if (input === "png" || webp?.lossless) return { tokens: densest.vp8, densest: densest.vp8, uploadBound: null, perToken: WEBP_DENSEST.tokensPerByte, ...alpha };
  // A lossy upload's size suggests its WebP, given how coarsely it was written (the ratios were
  // measured on JPEGs, without alpha).
  const perUploadByte = (ratio: number) => (ratio * bytes.length) / Math.max(1, pixels);
  const sourceQuality = facts.jpeg?.quality ?? UNKNOWN_SOURCE_QUALITY;
  const ratio = webpFilePerInputByte(quality, sourceQuality);
  const uploadBound = ratio === null ? densest.vp8 : Math.min(densest.vp8, perUploadByte(ratio));
  return { tokens: perUploadByte(webpOutputPerInputByte(quality)), densest: densest.vp8, uploadBound, perToken: WEBP_TOKENS.perOutputByte, ...alpha };
}

/** Bytes per pixel of the native path for this file and target, or null for the general path. */
export function nativeBytesPerPixel(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels = 0, quality = 100): number | null {
  return nativeRoute(bytes, input, target, pixels, quality)?.bytesPerPixel ?? null;
}
