import { PixelgateError } from "../errors.ts";
import type { ImageFormat, InputFormat } from "./formats.ts";
import type { HeicLayout } from "./heic-layout.ts";
import type { Orientation } from "./orientation.ts";
import { bytesLeftBeside, generalPrice, maxRecodePixels } from "./limits.ts";
import type { PlanesEncoding, WebpSettings } from "./native.ts";
import {
  GENERAL_ROW_NAME,
  priceStages,
  UNKNOWN_SOURCE_QUALITY,
  WEBP_DENSEST,
  WEBP_HEADER_BYTES,
  WEBP_LOW_MEMORY,
  WEBP_ROOM_USED,
  WEBP_TOKENS,
  webpDensestPerPixel,
  webpFilePerInputByte,
  webpOutputPerInputByte,
  webpPhotoPerPixel,
  type Price,
} from "./recode-cost.ts";
import { readRouteFacts, rowsFor, type RouteFacts, type RouteRow } from "./route-table.ts";

// Which way one compress or convert runs, decided once from the file's header: a row of the
// route table (route-table.ts: our own WASM build, without an RGBA raster), or the general
// decode and encode when no row applies, and what it is priced at (its terms in
// route-costs.json, at this size). recode.ts runs what this says, and the pixel limits and the
// memory gate price what this says, so the path that runs and the path that was paid for
// cannot differ.

/**
 * A native path: its row, the facts it was chosen on, its price; `webp`: how the WebP encoder
 * is to spend memory (withWebpSettings below); `lowMemory`: the reader's price beside a WebP
 * encoder that codes as it goes, where it was measured apart. `orientation`: the EXIF one a
 * JPEG, PNG or WebP reader applies; a HEIC's `encoding` and `tiles` (null: libheif).
 */
export interface NativeRoute {
  row: RouteRow;
  facts: RouteFacts;
  input: "jpeg" | "png" | "webp" | "heic";
  price: Price;
  orientation: Orientation;
  encoding?: PlanesEncoding & { alpha: boolean };
  tiles?: HeicLayout | null;
  webp?: WebpSettings;
  lowMemory?: Price;
}

/**
 * The native path for this file and target, or null when the general path takes it.
 * `pixels`: the header's (a PNG target's cost follows the upload's density); `quality`: the
 * compress quality, 100 when there is none (convert writes lossless PNG).
 */
export function nativeRoute(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels: number, quality: number): NativeRoute | null {
  if (input !== "jpeg" && input !== "png" && input !== "webp" && input !== "heic") return null;
  return routeFor(readRouteFacts(bytes, input), target, pixels, bytes.length, quality);
}

/** The native path for these facts (read from an upload of `inputBytes`), or null when the general path takes it. */
export function routeFor(facts: RouteFacts, target: ImageFormat, pixels: number, inputBytes: number, quality: number): NativeRoute | null {
  const { input } = facts;
  if (input !== "jpeg" && input !== "png" && input !== "webp" && input !== "heic") return null;
  const rows = rowsFor(facts, target);
  if (rows.length > 1) throw new PixelgateError("internal_error", `Two codec routes claim ${input} to ${target}: ${rows.map((row) => row.name).join(", ")}.`);
  const row = rows[0];
  if (!row) return null;
  const cost = row.cost(facts, { target, quality, inputBytes, pixels });
  const price = priceStages(cost.stages, inputBytes, pixels);
  const heic = facts.heic ? { encoding: facts.heic.encoding!, tiles: facts.heic.tiles && (target === "png" && !facts.heic.wholePlanes ? null : facts.heic.tiles) } : {};
  const route: NativeRoute = {
    row,
    facts,
    input,
    orientation: facts.orientation,
    ...heic,
    price: cost.perPixel === undefined ? price : { ...price, perPixel: price.perPixel + cost.perPixel },
    ...(cost.lowMemory ? { lowMemory: priceStages(cost.lowMemory, inputBytes, pixels) } : {}),
  };
  return target === "webp" ? withWebpSettings(route, inputBytes, input, pixels, quality) : route;
}

/** What one call is priced at: its native route's price, or the general path's; `row` names which. */
export interface PlannedPrice {
  row: string;
  route: NativeRoute | null;
  price: Price;
}

/**
 * The price of `input` (its header's `facts`, an upload of `inputBytes`) written as `target`
 * at `quality`, or only decoded (target null): what the pixel limit and the memory gate hold
 * the call to, and what test/codecs/measured-peaks.test.ts computes again for every recorded peak.
 */
export function planPrice(facts: RouteFacts | null, input: InputFormat, target: ImageFormat | null, pixels: number, inputBytes: number, quality: number): PlannedPrice {
  const route = facts && target !== null ? routeFor(facts, target, pixels, inputBytes, quality) : null;
  if (route) return { row: route.row.name, route, price: route.price };
  return { row: GENERAL_ROW_NAME, route: null, price: generalPrice(input, target, inputBytes, pixels) };
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
function withWebpSettings(route: NativeRoute, inputBytes: number, input: InputFormat, pixels: number, quality: number): NativeRoute {
  // Without a size (pixels 0: comparing paths) there is no density to read: the figures alone.
  if (pixels <= 0) return route;
  const output = webpOutputPerPixel(inputBytes, route.facts, pixels, quality);
  const plus = (price: Price, perPixel: number): Price => ({ ...price, perPixel: price.perPixel + perPixel });
  const fits = (price: Price) => maxRecodePixels(input, price, inputBytes) >= pixels;
  const fileOf = (vp8: number) => WEBP_LOW_MEMORY.perOutputByte * vp8 + output.perAlphaByte * output.alpha;
  const fileBytes = (vp8: number) => (vp8 + output.alpha) * pixels + WEBP_HEADER_BYTES;
  const tokens = output.perToken * output.tokens + output.perAlphaByte * output.alpha;
  // Half the tokens' price, and beside it the densest file, coded again as it goes.
  const withTokens = plus(route.price, Math.max(tokens, tokens / 2 + fileOf(output.densest)));
  if (fits(withTokens)) return { ...route, price: withTokens, webp: { tokenBytes: (tokens / 2) * pixels, fileBytes: fileBytes(output.densest) } };
  const base = route.lowMemory ?? route.price;
  /** Coded as it goes, the file priced at `filePerPixel` and allowed `allowed` bytes. */
  const asItGoes = (filePerPixel: number, allowed: number): NativeRoute => ({ ...route, price: plus(base, filePerPixel), webp: { lowMemory: true, fileBytes: allowed } });
  const asItGoesUpTo = (vp8: number) => asItGoes(fileOf(vp8), fileBytes(vp8));
  if (fits(plus(base, fileOf(output.densest)))) return asItGoesUpTo(output.densest);
  if (output.uploadBound !== null && fits(plus(base, fileOf(output.uploadBound)))) return asItGoesUpTo(output.uploadBound);
  // Neither fits (a large upload: its own cost leaves less room). The file may take what the
  // isolate's budget leaves beside the rest of the call, each byte at the VP8 data's price,
  // alpha chunk included; the call then has the isolate to itself. Most pictures write far less
  // than the densest (a 12 MP phone photo 0.05 bytes a pixel at quality 80, noise 0.98); one
  // that writes more fails with image_too_large, refunded. Too little room for a photo's file:
  // the densest price stands, and the limit refuses the call before the charge.
  const room = (bytesLeftBeside(base, inputBytes, pixels) * WEBP_ROOM_USED) / WEBP_LOW_MEMORY.perOutputByte;
  if (room < webpPhotoPerPixel(quality) * pixels) return asItGoesUpTo(output.densest);
  return asItGoes((WEBP_LOW_MEMORY.perOutputByte * room) / pixels, Math.floor(room));
}

/**
 * Bytes of WebP a pixel: `tokens`, what the token buffer is priced for (the VP8 data); `densest`,
 * the most VP8 data any picture makes at that quality; `uploadBound`, for a lossy upload, the
 * most its size lets one expect (null for a PNG or lossless WebP, bound by `densest` alone);
 * `alpha`, the chunk our alpha coder writes apart. With what each byte costs in the token buffer
 * and in the alpha chunk.
 */
function webpOutputPerPixel(inputBytes: number, facts: RouteFacts, pixels: number, quality: number) {
  const { input, webp } = facts;
  const densest = webpDensestPerPixel(quality, facts.png?.alpha ?? webp?.alpha ?? facts.heic?.encoding?.alpha ?? false);
  const alpha = { alpha: densest.alpha, perAlphaByte: WEBP_DENSEST.alphaPerByte };
  if (input === "png" || webp?.lossless) return { tokens: densest.vp8, densest: densest.vp8, uploadBound: null, perToken: WEBP_DENSEST.tokensPerByte, ...alpha };
  // A lossy upload's size suggests its WebP, given how coarsely it was written (the ratios were
  // measured on JPEGs, without alpha).
  const perUploadByte = (ratio: number) => (ratio * inputBytes) / Math.max(1, pixels);
  const sourceQuality = facts.jpeg?.quality ?? UNKNOWN_SOURCE_QUALITY;
  const ratio = webpFilePerInputByte(quality, sourceQuality);
  const uploadBound = ratio === null ? densest.vp8 : Math.min(densest.vp8, perUploadByte(ratio));
  return { tokens: perUploadByte(webpOutputPerInputByte(quality)), densest: densest.vp8, uploadBound, perToken: WEBP_TOKENS.perOutputByte, ...alpha };
}

/** The per-pixel terms of the native path for this file and target at `pixels`, or null for the general path. */
export function nativeBytesPerPixel(bytes: Uint8Array, input: InputFormat, target: ImageFormat, pixels = 0, quality = 100): number | null {
  return nativeRoute(bytes, input, target, pixels, quality)?.price.perPixel ?? null;
}
