// Resizing in compress and convert (`width`, `height`, `fit`): the answer's size from the
// upright picture and the box asked for, and how the pixels get there, decided from the header
// before the charge like any route (recode.ts plans it, limits.ts prices it):
// - a JPEG, non-interlaced PNG or still WebP is read a row at a time by our own WASM build and
//   filtered (Lanczos-3, native/resize.c) as the rows come; a JPEG is first decoded at 1/2, 1/4
//   or 1/8 of its size by libjpeg's DCT scaling, as small as still covers the answer, so a
//   24 MP photo made a thumbnail never has its full-size samples made;
// - a HEIC is decoded into its YCbCr planes (our HEVC decoder or libheif, as its routes do),
//   whose rows go through the same filter;
// - any other file is decoded as the general path decodes it, then its rows go through the same filter.
// The filter works in the file's own orientation; the EXIF orientation is applied to the
// answer, which is small. Either way the answer's raster is then encoded as the target.

import { PixelgateError } from "../errors.ts";
import type { ImageHeader, RasterImage } from "./formats.ts";
import { decodeImage } from "./decode.ts";
import { assertDecodable, assertSafeToDecode } from "./header.ts";
import { resizeFile, resizePlanes, resizeRaster, type ResizeSpan } from "./native.ts";
import { applyOrientation, type Orientation } from "./orientation.ts";
import { heicPlanesOf, readRouteFacts, type RouteFacts } from "./route-table.ts";

export const RESIZE_FITS = ["inside", "cover"] as const;
export type ResizeFit = (typeof RESIZE_FITS)[number];

/** What a call asks for: either side or both, in pixels; `fit` inside when absent. */
export interface ResizeRequest {
  width?: number;
  height?: number;
  fit?: ResizeFit;
}

interface Size {
  width: number;
  height: number;
}

/** The answer's size and the part of the upright picture it shows (the whole, or a centred crop). */
export interface ResizeGeometry extends Size {
  span: ResizeSpan;
}

/**
 * The answer's size for a `shown` (upright) picture, or null when the request leaves the picture
 * as it is (no side given, or a box it already fits in).
 * - inside: the picture scaled to fit the box (one side given: to that side), aspect ratio kept;
 * - cover, both sides given: the box filled, the picture scaled to cover it and cropped at the
 *   centre; one side given, as inside.
 * Never enlarged: a picture smaller than the box stays at its size (cover: the largest centred
 * crop of the box's shape, unscaled).
 */
export function resizeGeometry(shown: Size, request: ResizeRequest): ResizeGeometry | null {
  const { width: W, height: H } = shown;
  const { width: w, height: h } = request;
  if (w === undefined && h === undefined) return null;
  const whole = { x: 0, y: 0, width: W, height: H };
  let out: Size;
  let span: ResizeSpan = whole;
  if (request.fit === "cover" && w !== undefined && h !== undefined) {
    const scale = Math.max(w / W, h / H);
    // Past 1 the box is shrunk by as much as the picture falls short of it.
    const shrink = Math.max(1, scale);
    out = { width: Math.max(1, Math.min(W, Math.round(w / shrink))), height: Math.max(1, Math.min(H, Math.round(h / shrink))) };
    const shownScale = Math.min(1, scale);
    const cw = Math.min(W, out.width / shownScale);
    const ch = Math.min(H, out.height / shownScale);
    span = { x: (W - cw) / 2, y: (H - ch) / 2, width: cw, height: ch };
  } else {
    const scale = Math.min(1, w === undefined ? Infinity : w / W, h === undefined ? Infinity : h / H);
    out = { width: Math.max(1, Math.round(W * scale)), height: Math.max(1, Math.round(H * scale)) };
  }
  if (out.width === W && out.height === H && span.width === W && span.height === H) return null;
  return { ...out, span };
}

/** The ways a resize reads its pixels: our own build's rows of a JPEG (scaled by its DCT), a PNG or a still WebP, or the general decode. */
export const RESIZE_ROUTE_NAMES = ["jpeg rows, dct-scaled", "png rows", "still webp rows", "heic planes", "decoded"] as const;

/** How a resize reads its pixels: our own build's rows (a JPEG scaled by 1/`denom` while it decodes), or the general decode. */
export interface ResizeRoute {
  name: (typeof RESIZE_ROUTE_NAMES)[number];
  input: "jpeg" | "png" | "webp" | "heic" | null;
  /** What the header said (the HEIC's layout and encoding); null for the general decode. */
  facts: RouteFacts | null;
  /** libjpeg's DCT scaling: 1, 2, 4 or 8. */
  denom: number;
  orientation: Orientation;
}

/** One resized compress or convert, decided from the header: the answer's size and the route. */
export interface ResizePlan extends ResizeGeometry {
  route: ResizeRoute;
  /** The size the filter reads: the JPEG's after DCT scaling, the picture's otherwise. */
  read: Size;
}

const DCT_DENOMS = [8, 4, 2] as const;

/**
 * The resize for this file, or null when the request leaves it as it is. `shown`: the upright
 * size (an EXIF turn swaps the header's sides); decided from the header and the facts our
 * readers take (JPEG colour, PNG interlacing, WebP animation).
 */
export function planResize(bytes: Uint8Array, header: ImageHeader, request: ResizeRequest): ResizePlan | null {
  const facts = header.format === "jpeg" || header.format === "png" || header.format === "webp" || header.format === "heic" ? readRouteFacts(bytes, header.format) : null;
  const orientation = facts?.orientation ?? 1;
  const turned = orientation >= 5;
  const shown = turned ? { width: header.height, height: header.width } : { width: header.width, height: header.height };
  const geometry = resizeGeometry(shown, request);
  if (!geometry) return null;
  const rows =
    (facts?.jpeg && facts.jpeg.colorSpace !== "cmyk" && facts.jpeg.colorSpace !== "ycck") || (facts?.png && !facts.png.interlaced) || (facts?.webp && !facts.webp.animated);
  // A HEIC whose colour libheif would refuse keeps libheif's verdict: the general decode.
  if (facts?.heic?.encoding) return { ...geometry, route: { name: "heic planes", input: "heic", facts, denom: 1, orientation: 1 }, read: shown };
  if (!facts || !rows) {
    return { ...geometry, route: { name: "decoded", input: null, facts: null, denom: 1, orientation: 1 }, read: shown };
  }
  const input = facts.input as "jpeg" | "png" | "webp";
  // The filter reads the file's own rows: the span and the answer in its orientation. A
  // centred span is the same mirrored, so only a turn changes it.
  const span = fileSpan(geometry, turned);
  const out = turned ? { width: geometry.height, height: geometry.width } : geometry;
  const denom = input === "jpeg" ? (DCT_DENOMS.find((d) => span.width / d >= out.width && span.height / d >= out.height) ?? 1) : 1;
  const name = input === "jpeg" ? "jpeg rows, dct-scaled" : input === "png" ? "png rows" : "still webp rows";
  const read = { width: Math.ceil(header.width / denom), height: Math.ceil(header.height / denom) };
  return { ...geometry, route: { name, input, facts, denom, orientation }, read };
}

function fileSpan({ span }: ResizeGeometry, turned: boolean): ResizeSpan {
  return turned ? { x: span.y, y: span.x, width: span.height, height: span.width } : span;
}

/**
 * Runs a plan made by planResize for these bytes: the answer's upright RGBA raster, at the
 * plan's size. Throws what decodeImage throws (the same checks run first on the rows route).
 */
export async function runResize(bytes: Uint8Array, header: ImageHeader, plan: ResizePlan): Promise<RasterImage> {
  const { route } = plan;
  const answer = { width: plan.width, height: plan.height };
  if (!route.input) return resizeRaster(await decodeImage(bytes, header), plan.span, answer);
  assertDecodable(header);
  assertSafeToDecode(bytes, header);
  if (route.input === "heic") {
    // Upright planes, at most the header's size (libheif applies a clean-aperture crop): the span scaled to them.
    const planes = await heicPlanesOf(bytes, route.facts!);
    const fx = planes.width / header.width;
    const fy = planes.height / header.height;
    const { span } = plan;
    return resizePlanes(planes, { x: span.x * fx, y: span.y * fy, width: span.width * fx, height: span.height * fy }, answer);
  }
  const turned = route.orientation >= 5;
  const out = turned ? { width: answer.height, height: answer.width } : answer;
  const raster = resizeFile(bytes, header, route.input, route.denom, fileSpan(plan, turned), out);
  // The route was chosen from the header and priced so: the other path is not taken instead.
  if (!raster) throw new PixelgateError("internal_error", `The ${header.format} reader chosen for this file from its header refused it.`);
  return applyOrientation(raster, route.orientation);
}
