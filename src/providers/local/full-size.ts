// The local models on real photos (a 12 MP phone photo, a 24 MP camera one). A photo up to
// LOCAL_WHOLE_PIXELS is worked on whole, as one RGBA raster, as it always was. A larger one is
// never whole in memory: its rows come from the file a band at a time (codecs/picture-rows.ts),
// turned upright, and the answer is encoded as they go (native.ts encodeRasterBands), at the
// photo's upright size:
// - remove-background: the cut-out is found on a working copy of at most LOCAL_WORKING_PIXELS
//   (box-filtered from the rows), and its mask is scaled up to the photo's size by joint
//   bilateral upsampling (Kopf et al., 2007): each full-size pixel takes the mask of the four
//   working pixels around it, weighted by distance and by how close their brightness is to its
//   own, so the edge follows the full-size picture rather than the working copy's blur. The
//   answer is a WebP with alpha (a 12 MP PNG with alpha is 30 to 50 MB).
// - edit: quarter turns, flips and crops are one orientation and one rectangle, so the rows are
//   read already turned (the row source takes any of the eight orientations), cut to the
//   rectangle, and the colour edits (each maps a pixel on its own) applied to each band. The
//   answer is a JPEG (the row source composites any alpha onto black). Other edits (blur,
//   sharpen, upscale) work on the working copy and answer at its size.
// Each path's peak is priced before the charge (memoryFor in index.ts) with the figures below,
// which `npm run bench:codecs` measures (memory cases model-*).

import { decodeImage, estimateCodecBytes, generalPrice, planRecode, type RasterImage } from "../../codecs";
import { ISOLATE_CODEC_BUDGET } from "../../codecs/limits";
import { encodeRasterBands } from "../../codecs/native";
import { composeOrientations, orientedPoint, readOrientation, type Orientation } from "../../codecs/orientation";
import { pictureRows, pictureRowsBytes, type PictureRows } from "../../codecs/picture-rows";
import { PixelgateError } from "../../errors";
import { fitPixels, shrinkBands, shrunkRows } from "../../raster/shrink";
import type { ProviderOutput, TaskImage } from "../types";
import { cutOutBackground } from "./cutout";
import { applyEdit, type EditOperation, type EditPlan } from "./edit";
import { cropSize } from "./edit/geometry";
import { adjustBrightness, adjustContrast, grayscale, invert, sepia } from "./edit/tone";

/** Photos up to this many pixels are worked on whole: the size the local models were measured at. */
export const LOCAL_WHOLE_PIXELS = 4_000_000;
/** A larger photo's working copy has at most this many pixels. */
export const LOCAL_WORKING_PIXELS = 2_000_000;

/** Quality of the full-size answers: the WebP cut-out's colour (its alpha is lossless) and the edited JPEG. */
const ANSWER_QUALITY = 90;

/**
 * Bytes a pixel of the cut-out's writer, besides the rows it reads: the WebP encoder's picture
 * with its alpha plane (YUV 4:2:0 and 1 B/px of alpha) coded as it goes, and its file twice (in
 * WASM memory and in pieces in JavaScript). The edit's JPEG writer is priced as compress prices
 * the same file to JPEG (its coefficients kept packed, their size following the upload's
 * density: recode-cost.ts), a HEIC's from its bridge JPEG (at most a byte a pixel: 3.5 B/px,
 * picture-rows.ts). Checked by the memory cases model-* of `npm run bench:codecs`.
 */
const CUTOUT_WRITER_BYTES_PER_PIXEL = 4.5;
/**
 * Held besides when the cut-out is smaller than the photo (the full-size rows shrunk as they
 * are read): a 24 MP photo's cut-out peaked 0.7 MB over an estimate without it (docs/codecs.md).
 */
const CUTOUT_SHRINK_BYTES = 8 * 1024 * 1024;
const HEIC_EDIT_WRITER_BYTES_PER_PIXEL = 3.5;
/** Bytes a working pixel: the copy itself (RGBA); the cut-out's work on it (the copy, its cut-out, the flood's queue and masks); the mask and the guide kept while the full-size rows are read. */
const WORKING_COPY_BYTES_PER_PIXEL = 4;
const CUTOUT_WORK_BYTES_PER_PIXEL = 24;
const MASK_BYTES_PER_PIXEL = 2;

/** The two sizes above, as the work takes them (tests set smaller ones to follow the full-size paths on small pictures). */
export interface WorkingSizes {
  wholeUpTo: number;
  working: number;
}

const SIZES: WorkingSizes = { wholeUpTo: LOCAL_WHOLE_PIXELS, working: LOCAL_WORKING_PIXELS };

function isWhole(image: TaskImage, sizes: WorkingSizes): boolean {
  return image.width * image.height <= sizes.wholeUpTo;
}

/** The photo upright, whole when it is small, else its working copy. */
export async function workingRaster(image: TaskImage, sizes = SIZES): Promise<RasterImage> {
  if (isWhole(image, sizes)) return decodeImage(image.bytes, image);
  return workingCopyOf(await pictureRows(image.bytes, image), sizes);
}

function workingCopyOf(rows: PictureRows, sizes: WorkingSizes): RasterImage {
  const size = fitPixels(rows.width, rows.height, sizes.working);
  return shrinkBands(rows.bands(), rows.width, rows.height, size.width, size.height);
}

/** What workingRaster costs at its peak. */
export function workingRasterBytes(image: TaskImage): number {
  const pixels = image.width * image.height;
  if (isWhole(image, SIZES)) return estimateCodecBytes(pixels, generalPrice(image.format, "png", image.bytes.length, pixels), image.bytes.length);
  return pictureRowsBytes(image.bytes, image) + WORKING_COPY_BYTES_PER_PIXEL * LOCAL_WORKING_PIXELS;
}

/**
 * A cut-out that found no background to remove failed: answering the unchanged picture as a
 * "transparent PNG" would be a lie. generate-transparent turns this failure into
 * `isTransparent: false`; on remove-background it is refunded like any provider failure.
 */
export function cutOutOrFail(image: RasterImage): RasterImage {
  const cut = cutOutBackground(image);
  if (!cut.backgroundFound) {
    throw new PixelgateError(
      "upstream_error",
      "The local cut-out found no uniform or smoothly varying background to remove; try a subject on a plain background, or a neural cut-out model.",
    );
  }
  return cut.image;
}

// ---- remove-background at full size

/** The cut-out of `image` at its upright size (smaller only when that would not fit the isolate: cutOutSize). */
export async function cutOutPhoto(image: TaskImage, sizes = SIZES): Promise<ProviderOutput> {
  if (isWhole(image, sizes)) return { kind: "raster", image: cutOutOrFail(await decodeImage(image.bytes, image)), costUsd: 0 };
  const rows = await pictureRows(image.bytes, image);
  const working = workingCopyOf(rows, sizes);
  const mask = alphaOf(cutOutOrFail(working));
  const guide = lumaOf(working);
  const out = cutOutSize(image, rows.width, rows.height);
  const full = out.width === rows.width && out.height === rows.height ? rows.bands() : shrunkRows(rows.bands(), rows.width, rows.height, out.width, out.height);
  const bands = maskedBands(full, out.width, out.height, { mask, guide, width: working.width, height: working.height });
  const bytes = encodeRasterBands({ ...out, alpha: true }, bands, "webp", ANSWER_QUALITY, { lowMemory: true });
  return { kind: "encoded", bytes, costUsd: 0 };
}

/**
 * The cut-out's size: the photo's upright size, or, when its writer would not fit the isolate's
 * budget beside reading the rows (a 24 MP photo), the largest size of the same shape that does.
 */
function cutOutSize(image: TaskImage, width: number, height: number): { width: number; height: number } {
  const left = ISOLATE_CODEC_BUDGET - pictureRowsBytes(image.bytes, image) - MASK_BYTES_PER_PIXEL * LOCAL_WORKING_PIXELS;
  if (CUTOUT_WRITER_BYTES_PER_PIXEL * width * height <= left) return { width, height };
  return fitPixels(width, height, Math.max(LOCAL_WORKING_PIXELS, Math.floor((left - CUTOUT_SHRINK_BYTES) / CUTOUT_WRITER_BYTES_PER_PIXEL)));
}

/**
 * What cutOutPhoto costs at its peak, the largest of its three stages: the working copy made
 * from the rows; the cut-out found on it (the upload still held); the full-size rows read again
 * beside the mask, the guide and the writer.
 */
export function cutOutPhotoBytes(image: TaskImage): number {
  if (isWhole(image, SIZES)) return workingRasterBytes(image);
  const upright = uprightSize(image);
  const out = cutOutSize(image, upright.width, upright.height);
  const general = generalPrice(image.format, null, image.bytes.length, LOCAL_WORKING_PIXELS);
  const work = estimateCodecBytes(LOCAL_WORKING_PIXELS, { ...general, perPixel: CUTOUT_WORK_BYTES_PER_PIXEL }, image.bytes.length);
  const shrunk = out.width !== upright.width || out.height !== upright.height;
  const write = pictureRowsBytes(image.bytes, image) + MASK_BYTES_PER_PIXEL * LOCAL_WORKING_PIXELS + CUTOUT_WRITER_BYTES_PER_PIXEL * out.width * out.height + (shrunk ? CUTOUT_SHRINK_BYTES : 0);
  return Math.max(workingRasterBytes(image), work, write);
}

interface WorkingMask {
  mask: Uint8Array;
  guide: Uint8Array;
  width: number;
  height: number;
}

/**
 * Spread of the range weight, in steps of luma: a full-size pixel this much brighter or darker
 * than a working pixel counts e^-1/2 as much. About the contrast of a soft edge in a photo.
 */
const RANGE_SIGMA = 16;

/**
 * The full-size rows with their alpha from the working mask (joint bilateral upsampling). The
 * cut-out softens its edge over one or two of the working copy's pixels, several full-size ones:
 * the upsampled alpha is steepened about its middle by the scale between the two, so the
 * full-size edge is as soft, in its own pixels, as the working one.
 */
function* maskedBands(bands: Iterable<RasterImage>, width: number, height: number, working: WorkingMask): Generator<RasterImage> {
  const { mask, guide, width: ww, height: wh } = working;
  const steepen = Math.max(1, width / ww);
  const rangeWeight = new Float64Array(256);
  for (let d = 0; d < 256; d++) rangeWeight[d] = Math.exp(-(d * d) / (2 * RANGE_SIGMA * RANGE_SIGMA));
  // Each full-size column's two working columns and its weight toward the second.
  const left = new Int32Array(width);
  const toRight = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const u = Math.min(ww - 1, Math.max(0, ((x + 0.5) * ww) / width - 0.5));
    left[x] = Math.floor(u);
    toRight[x] = u - left[x]!;
  }
  let y = 0;
  for (const band of bands) {
    const { data } = band; // the band is ours until the next is asked for: its alpha is set in place
    for (let r = 0; r < band.height; r++, y++) {
      const v = Math.min(wh - 1, Math.max(0, ((y + 0.5) * wh) / height - 0.5));
      const top = Math.floor(v);
      const down = v - top;
      const bottom = Math.min(wh - 1, top + 1);
      for (let x = 0, i = r * width * 4; x < width; x++, i += 4) {
        const l = left[x]!;
        const rt = Math.min(ww - 1, l + 1);
        const across = toRight[x]!;
        const luma = (77 * data[i]! + 150 * data[i + 1]! + 29 * data[i + 2]!) >> 8;
        // The four working pixels around it, bilinear weights times the range weight.
        const q00 = top * ww + l, q01 = top * ww + rt, q10 = bottom * ww + l, q11 = bottom * ww + rt;
        const b00 = (1 - across) * (1 - down), b01 = across * (1 - down), b10 = (1 - across) * down, b11 = across * down;
        const w00 = b00 * rangeWeight[Math.abs(luma - guide[q00]!)]!;
        const w01 = b01 * rangeWeight[Math.abs(luma - guide[q01]!)]!;
        const w10 = b10 * rangeWeight[Math.abs(luma - guide[q10]!)]!;
        const w11 = b11 * rangeWeight[Math.abs(luma - guide[q11]!)]!;
        let weights = w00 + w01 + w10 + w11;
        let alpha = w00 * mask[q00]! + w01 * mask[q01]! + w10 * mask[q10]! + w11 * mask[q11]!;
        // No working pixel near its brightness (a thin detail the working copy blurred away): bilinear.
        if (weights < 1e-6) {
          weights = 1;
          alpha = b00 * mask[q00]! + b01 * mask[q01]! + b10 * mask[q10]! + b11 * mask[q11]!;
        }
        data[i + 3] = Math.min(data[i + 3]!, (alpha / weights - 127.5) * steepen + 127.5);
      }
    }
    yield { width, height: band.height, data };
  }
}

function alphaOf(image: RasterImage): Uint8Array {
  const out = new Uint8Array(image.width * image.height);
  for (let p = 0, i = 3; p < out.length; p++, i += 4) out[p] = image.data[i]!;
  return out;
}

function lumaOf(image: RasterImage): Uint8Array {
  const out = new Uint8Array(image.width * image.height);
  const d = image.data;
  for (let p = 0, i = 0; p < out.length; p++, i += 4) out[p] = (77 * d[i]! + 150 * d[i + 1]! + 29 * d[i + 2]!) >> 8;
  return out;
}

// ---- edit at full size

type ToneOperation = Extract<EditOperation, { kind: "grayscale" | "sepia" | "invert" | "brightness" | "contrast" }>;

/** The edits that move pixels (turns, flips, crops) as one orientation and one rectangle, and the colour edits in order; null when the plan has any other. */
export interface PhotoEdit {
  /** From the file's stored pixels to the answer's frame: its EXIF orientation, then the plan's turns and flips. */
  orientation: Orientation;
  /** The whole picture turned so, and the answer's region of it. */
  frame: { width: number; height: number };
  crop: { x: number; y: number; width: number; height: number };
  tones: ToneOperation[];
}

const TURNS = { 90: 6, 180: 3, 270: 8 } as const satisfies Record<number, Orientation>;

/** The plan as one turn, one crop and its colour edits, for a `width` x `height` file stored with EXIF `own`; null when it has another kind of edit. */
export function photoEditOf(plan: EditPlan, width: number, height: number, own: Orientation): PhotoEdit | null {
  let orientation = own;
  let frame = own >= 5 ? { width: height, height: width } : { width, height };
  let crop = { x: 0, y: 0, ...frame };
  const tones: ToneOperation[] = [];
  const turn = (by: Orientation) => {
    const [ax, ay] = orientedPoint(crop.x, crop.y, frame.width, frame.height, by);
    const [bx, by2] = orientedPoint(crop.x + crop.width - 1, crop.y + crop.height - 1, frame.width, frame.height, by);
    crop = { x: Math.min(ax, bx), y: Math.min(ay, by2), width: Math.abs(bx - ax) + 1, height: Math.abs(by2 - ay) + 1 };
    if (by >= 5) frame = { width: frame.height, height: frame.width };
    orientation = composeOrientations(orientation, by);
  };
  for (const op of plan.operations) {
    switch (op.kind) {
      case "rotate": turn(TURNS[op.degrees]); break;
      case "flip": turn(4); break;
      case "mirror": turn(2); break;
      case "crop": {
        const [w, h] = cropSize(crop.width, crop.height, op.ratio);
        crop = { x: crop.x + Math.floor((crop.width - w) / 2), y: crop.y + Math.floor((crop.height - h) / 2), width: w, height: h };
        break;
      }
      case "grayscale":
      case "sepia":
      case "invert":
      case "brightness":
      case "contrast":
        tones.push(op);
        break;
      default:
        return null;
    }
  }
  return { orientation, frame, crop, tones };
}

/** The edit of `image` by `plan`: whole when small; else at full size when the plan allows (photoEditOf), else on the working copy. */
export async function editPhoto(image: TaskImage, plan: EditPlan, sizes = SIZES): Promise<ProviderOutput> {
  if (plan.operations.length === 1 && plan.operations[0]!.kind === "remove_background") return cutOutPhoto(image, sizes);
  const edit = isWhole(image, sizes) ? null : photoEditOf(plan, image.width, image.height, readOrientation(image.bytes, image.format));
  if (!edit) return { kind: "raster", image: applyEdit(await workingRaster(image, sizes), plan), costUsd: 0 };
  const rows = await pictureRows(image.bytes, image, edit.orientation);
  // A HEIC's clean aperture may make its picture a little smaller than its header: the crop is
  // then worked out again on the picture's own size.
  const own = readOrientation(image.bytes, image.format);
  const stored = edit.orientation >= 5 ? { width: rows.height, height: rows.width } : { width: rows.width, height: rows.height };
  const fitted = rows.width === edit.frame.width && rows.height === edit.frame.height ? edit : photoEditOf(plan, stored.width, stored.height, own)!;
  const bands = editedBands(rows.bands(), rows.width, fitted);
  const bytes = encodeRasterBands({ width: fitted.crop.width, height: fitted.crop.height, alpha: false }, bands, "jpeg", ANSWER_QUALITY);
  return { kind: "encoded", bytes, costUsd: 0 };
}

/** What editPhoto costs at its peak. */
export function editPhotoBytes(image: TaskImage, plan: EditPlan): number {
  if (plan.operations.length === 1 && plan.operations[0]!.kind === "remove_background") return cutOutPhotoBytes(image);
  const edit = isWhole(image, SIZES) ? null : photoEditOf(plan, image.width, image.height, readOrientation(image.bytes, image.format));
  if (!edit) return workingRasterBytes(image);
  const toJpeg = image.format === "heic" ? null : planRecode(image.bytes, image, "jpeg", { quality: ANSWER_QUALITY });
  const writer = toJpeg?.route ? toJpeg.price.perPixel : HEIC_EDIT_WRITER_BYTES_PER_PIXEL;
  return pictureRowsBytes(image.bytes, image) + writer * edit.crop.width * edit.crop.height;
}

/** The rows inside the crop, with the colour edits applied. */
function* editedBands(bands: Iterable<RasterImage>, width: number, edit: PhotoEdit): Generator<RasterImage> {
  const { x, y: top, width: w, height: h } = edit.crop;
  let y = 0;
  let cut = new Uint8ClampedArray(0); // reused: a band is the encoder's only until the next
  for (const band of bands) {
    const first = Math.max(y, top);
    const last = Math.min(y + band.height, top + h);
    if (first < last) {
      const rows = last - first;
      if (cut.length < rows * w * 4) cut = new Uint8ClampedArray(rows * w * 4);
      const data = cut.subarray(0, rows * w * 4);
      for (let r = 0; r < rows; r++) {
        const start = ((first - y + r) * width + x) * 4;
        data.set(band.data.subarray(start, start + w * 4), r * w * 4);
      }
      let out: RasterImage = { width: w, height: rows, data };
      for (const tone of edit.tones) out = applyTone(out, tone);
      yield out;
    }
    y += band.height;
  }
}

/** A colour edit applied to a band in place (the band is a reused buffer: no copy per band). */
function applyTone(image: RasterImage, op: ToneOperation): RasterImage {
  switch (op.kind) {
    case "grayscale": return grayscale(image, true);
    case "sepia": return sepia(image, true);
    case "invert": return invert(image, true);
    case "brightness": return adjustBrightness(image, op.percent, true);
    case "contrast": return adjustContrast(image, op.percent, true);
  }
}

/** The photo's size once its EXIF orientation is applied. */
function uprightSize(image: TaskImage): { width: number; height: number } {
  return readOrientation(image.bytes, image.format) >= 5 ? { width: image.height, height: image.width } : { width: image.width, height: image.height };
}
