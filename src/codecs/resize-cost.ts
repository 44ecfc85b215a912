// What a resized compress or convert costs (resize.ts), and the checks made before the charge.
// Two stages, the larger of which is the call's estimate, as for any call (limits.ts): reading
// the file into the answer's raster (our own build's rows, or the general decode, then the
// resizer), and encoding the answer. Figures: the memory child of `npm run bench:codecs` (its
// resize cases), docs/codecs.md "Resize".

import { PixelgateError } from "../errors.ts";
import { FORMAT_INFO, type ImageFormat, type InputFormat } from "./formats.ts";
import { assertDecodable, assertFormatHolds, assertJpegColourReadable, assertWithinPixelLimit } from "./header.ts";
import { estimateCodecBytes, generalPrice, ISOLATE_CODEC_BUDGET, maxTargetPixelsFor } from "./limits.ts";
import { priceStages, ROUTE_COSTS, termsOf, WEBP_LOW_MEMORY, webpDensestPerPixel, type Price } from "./recode-cost.ts";
import type { ResizePlan } from "./resize.ts";

/**
 * The resize's own figures, from the cost table (route-costs.json `resize`; docs/codecs.md
 * "Resize" says where each was measured): `answerReadPerPixel`, what a pixel of the answer takes
 * while it is read (the resizer's output in WASM memory and its copy in JavaScript, both alive
 * while it is copied out); `turnCopyPerPixel`, the copy an EXIF turn makes of the answer's
 * raster (the stored one may not be collected yet); `jpegCoefficientsPerPixel`, the JPEG
 * encoder's whole coefficient array at its largest (the packed store, coef_store.c, never holds
 * more); `rowReaders`, our own build's row readers in file order (png_rows.c), by a pixel they
 * read (libjpeg's row buffers at its scaled size, libspng's and zlib's state, libwebp's
 * macroblock rows) and a byte of the upload (the file copied into WASM memory; a progressive
 * JPEG's coefficients for the whole image, packed).
 */
const RESIZE = ROUTE_COSTS.resize;

type Source = { width: number; height: number; format: InputFormat; bytes: Uint8Array };

/** The resize's stages' own terms in the cost table (their floor, fixed part and upload). */
const READING = "resize: reading";
const ENCODING = "resize: the answer encoded";

/** What a resized call's estimate is computed from: all of it recorded with a measured peak, so the estimate can be computed again. */
export interface ResizedCall {
  /** The upload's format, its header's pixels and its bytes. */
  format: InputFormat;
  pixels: number;
  inputBytes: number;
  target: ImageFormat;
  quality: number;
  /** The plan's answer size, the size its filter reads, and how it reads (resize.ts ResizePlan). */
  plan: Pick<ResizePlan, "width" | "height" | "read"> & { route: Pick<ResizePlan["route"], "name" | "input" | "facts" | "orientation"> };
}

/** Bytes a pixel of the file the reading stage costs on the plan's route, or null for the general decode. */
function readBytesPerPixel({ pixels, inputBytes, plan }: ResizedCall): number | null {
  const { input, facts } = plan.route;
  if (!input) return null;
  if (input === "heic") {
    const { encoding, tiles, kind, wholePlanes } = facts!.heic!;
    // Our decoder's planes where it makes them whole, else libheif's (as the route table's rows).
    const ours = tiles !== null && wholePlanes;
    return heicPlanesReadBytesPerPixel(encoding!.alpha, ours ? kind : null, ours && tiles.turns !== 0);
  }
  const reader = RESIZE.rowReaders[input === "jpeg" && facts!.jpeg!.progressive ? "jpegProgressive" : input];
  return (reader.perReadPixel * plan.read.width * plan.read.height + reader.perInputByte * inputBytes) / pixels;
}

/**
 * A HEIC's whole planes made (the route table's decode terms: a grid's planes are its own peak,
 * a single image holds libde265's picture, turned a second copy, libheif its instance), then read
 * a row at a time beside them (png_planes_rows.c, the planes and the row reader's WASM: the GIF
 * writer's terms without its file).
 */
function heicPlanesReadBytesPerPixel(alpha: boolean, tiles: "grid" | "single" | null, turned: boolean): number {
  const a = alpha ? " with alpha" : "";
  const decode =
    tiles === "grid"
      ? 0
      : tiles === "single"
        ? termsOf(`heic planes (ours) to png, gif, bmp: decode, single${a}`).perPixel! + (turned ? termsOf("heic planes (ours) to png, gif, bmp: a turned single image's second copy").perPixel! : 0)
        : termsOf(`libheif planes to png: decode${alpha ? ", alpha" : ""}`).perPixel!;
  return Math.max(decode, termsOf(`heic planes (ours) to png, gif, bmp: gif${alpha ? ", alpha" : ""}`).perPixel!);
}

/** A stage's own terms (its floor, fixed part and upload), its bytes a pixel from this file's figures beside them. */
function resizeStage(key: string, perPixel: number, inputBytes: number, pixels: number): Price {
  const price = priceStages([[key, "upload"]], inputBytes, pixels);
  return { ...price, perPixel: price.perPixel + perPixel };
}

/**
 * Bytes a pixel of the answer its encode stage costs, its raster in JavaScript (4) included, when
 * our own build's raster sink writes it (native/raster_sink.c: rows copied in, as from a PNG with
 * alpha into the encoders, recode-cost.ts): JPEG with its coefficients at their largest; WebP
 * coded as it goes (resizedWebpSettings) with the densest picture's file. Null: the general
 * encoders' figures (limits.ts).
 */
function answerEncodeBytesPerPixel(target: ImageFormat, quality: number): number | null {
  if (target === "jpeg") return 4 + termsOf("png into the webp, jpeg encoders: jpeg, alpha").perPixel! + RESIZE.jpegCoefficientsPerPixel;
  if (target !== "webp") return null;
  const densest = webpDensestPerPixel(quality, true);
  return 4 + termsOf("png into the webp, jpeg encoders: webp, alpha").perPixel! + WEBP_LOW_MEMORY.perOutputByte * (densest.vp8 + densest.alpha);
}

/** The WebP answer's encoder settings: coded as it goes, the file no larger than the densest picture's (what it was priced for). */
export function resizedWebpSettings(quality: number, pixels: number): { lowMemory: true; fileBytes: number } {
  const densest = webpDensestPerPixel(quality, true);
  return { lowMemory: true, fileBytes: Math.ceil((densest.vp8 + densest.alpha) * pixels) + 4096 };
}

/** A resized call's estimate, and the stage that sets it: its price (at its own size: the upload's pixels, or the answer's) and the row that names the plan's route. */
export interface ResizedPrice {
  estimate: number;
  row: string;
  price: Price;
  /** The pixels the stage that sets the estimate is priced at. */
  pixels: number;
}

/**
 * What the memory gate admits a resized call with: the larger of its two stages, each with the
 * fixed costs and the upload (limits.ts estimateCodecBytes). Reading: the reader on its route (or
 * the general decode) and the answer's raster as it comes out; encoding: the answer's encode at
 * the answer's size, and a turned answer's copy.
 */
export function resizedPrice(call: ResizedCall): ResizedPrice {
  const { format, pixels, inputBytes, target, quality, plan } = call;
  const answer = plan.width * plan.height;
  const perPixel = readBytesPerPixel(call);
  const answerRead = answer * RESIZE.answerReadPerPixel;
  const readPrice = perPixel === null ? generalPrice(format, null, inputBytes, pixels) : resizeStage(READING, perPixel + answerRead / pixels, inputBytes, pixels);
  const read = estimateCodecBytes(pixels, readPrice, inputBytes) + (perPixel === null ? answerRead : 0);
  const turned = plan.route.orientation >= 5 ? answer * RESIZE.turnCopyPerPixel : 0;
  const encodePerPixel = answerEncodeBytesPerPixel(target, quality);
  const encodePrice = encodePerPixel === null ? generalPrice(format, target, inputBytes, answer) : resizeStage(ENCODING, encodePerPixel, inputBytes, answer);
  const encode = estimateCodecBytes(answer, encodePrice, inputBytes) + turned;
  const row = `resize: ${plan.route.name}`;
  return read >= encode ? { estimate: read, row, price: readPrice, pixels } : { estimate: encode, row, price: encodePrice, pixels: answer };
}

/** resizedPrice's estimate for an upload in hand. */
export function estimateResizedBytes(source: Source, target: ImageFormat, plan: ResizePlan, quality: number): number {
  return resizedPrice({ format: source.format, pixels: source.width * source.height, inputBytes: source.bytes.length, target, quality, plan }).estimate;
}

/**
 * Throws unless this upload can be resized into `target`, before the charge: the file readable
 * at all (its format's pixel limit, a CMYK JPEG refused), the answer's size within what the
 * target stores and its encoder's pixel limit, and the whole call within the isolate's budget.
 * The answer's size is what an encoder must hold: a picture too large for WebP fits once resized.
 */
export function assertResizable(source: Source, target: ImageFormat, plan: ResizePlan, estimate: number): void {
  assertDecodable(source);
  if (source.format === "jpeg") assertJpegColourReadable(source.bytes);
  assertFormatHolds(plan.width, plan.height, target);
  assertWithinPixelLimit(plan.width, plan.height, maxTargetPixelsFor(target), `written as ${FORMAT_INFO[target].label}`, "width");
  if (estimate > ISOLATE_CODEC_BUDGET) {
    throw new PixelgateError(
      "image_too_large",
      `Resizing this ${source.width}x${source.height} ${FORMAT_INFO[source.format].label} to ${plan.width}x${plan.height} ${FORMAT_INFO[target].label} needs more memory than the worker has; a smaller answer fits.`,
      { param: "image" },
    );
  }
}
