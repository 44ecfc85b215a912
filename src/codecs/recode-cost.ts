import COST_TABLE from "./route-costs.json" with { type: "json" };

// What a compress or convert costs: the terms of every route (route-table.ts names the terms
// each row is priced with; the general decode and encode are rows too), read from one data
// file, route-costs.json. `npm run bench:codecs -- --write` records each measured peak there and
// raises a row's fixed term wherever a peak, with the table's safety margin, passes its
// estimate; test/codecs/measured-peaks.test.ts recomputes every recorded peak's estimate from
// the table. docs/codecs.md's cost tables are generated from it (scripts/bench/codecs-peaks-doc.ts),
// and says where each figure was measured.

const MiB = 1024 * 1024;

/**
 * One named set of terms. A stage of a route sums the sets it names (the row's own, a turned
 * file's bands, the upload): its bytes are `fixed` + `perPixel` x pixels + `perInputByte` x the
 * upload's bytes + `perOutputByte` x the file `output` predicts, and never less than `floor`.
 */
export interface CostTerms {
  /** What a call on this path costs however small its picture (the instance, its first buffers). */
  floorMiB?: number;
  /** The fixed part of a large call (instances, tables, memory grown in steps). */
  fixedMiB?: number;
  perPixel?: number;
  perInputByte?: number;
  perOutputByte?: number;
  /** The output model (RouteCostTable.outputs) whose predicted file `perOutputByte` multiplies. */
  output?: string;
  /** A cap on the pixels this path takes, measured where its figure alone would allow more. */
  maxPixels?: number;
  /** Why these terms stand without a recorded peak behind them (a new row's first estimate). */
  provisional?: string;
}

/**
 * The file a route writes, predicted from the upload's size (`perInputByte` bytes of file for
 * each byte of it), within `least` and `most` bytes a pixel and `mostMiB` in all; without
 * `perInputByte`, `most` a pixel.
 */
export interface OutputModel {
  perInputByte?: number;
  least?: number;
  most: number;
  mostMiB?: number;
}

type QualityFigures = readonly (readonly [quality: number, figure: number])[];

/** The WebP encoder's own terms: its token buffer and the file it writes (recode-route.ts). */
export interface WebpFigures {
  /** Bytes held per byte of WebP written, with the token buffer and coded as it goes. */
  tokensPerOutputByte: number;
  lowMemoryPerOutputByte: number;
  /** Most bytes of WebP per byte of a lossy upload, by the WebP's quality: at 70, and a step above it. */
  outputPerInputByteAt70: number;
  outputPerInputBytePerQualityStep: number;
  /** Most bytes of WebP per byte of a JPEG upload, by the JPEG's own quality (rows from `fromQuality` up). */
  fileByUploadQuality: readonly { fromQuality: number; perInputByte: QualityFigures }[];
  /** The row of `fileByUploadQuality` a lossy upload whose quality the header does not say takes. */
  unknownSourceQuality: number;
  /** The densest picture's VP8 data a pixel (at 70, and a step above it), its alpha chunk, and what each byte of them costs. */
  densest: { vp8PerPixelAt70: number; vp8PerQualityStep: number; alphaPerPixel: number; tokensPerByte: number; alphaPerByte: number };
  /** The least file a pixel a WebP coded as it goes is let try with: a photo's, by quality. */
  photoPerPixel: QualityFigures;
  /** The share of what the budget leaves that a file may take. */
  roomUsed: number;
  /** Chunk headers and room to spare, allowed beside a file's bytes a pixel. */
  headerBytes: number;
}

/**
 * What writing a grid AVIF's cells costs (avif-cells-cost.ts), by the cells' chroma sampling:
 * libavif's instance for one cell (`encoderMiB`), the most AV1 data a pixel makes at a quality
 * (`densest`, binary noise's) and the least a pixel is let try with when that would not fit (`photo`).
 */
export interface AvifCellsFigures {
  chroma: Record<"4:2:0" | "4:4:4", { encoderMiB: number; densest: QualityFigures; photo: QualityFigures }>;
  /** Copies of the AV1 data held at once (the cells as written, the answer's writing). */
  fileCopies: number;
  /** The share of what the budget leaves that the file may take. */
  roomUsed: number;
  /** Our HEVC decoder's instance for one tile, beside a HEIC grid's strips. */
  hevcTileDecoderMiB: number;
}

/** A resized call's own figures (resize-cost.ts, which says what each holds). */
export interface ResizeFigures {
  answerReadPerPixel: number;
  turnCopyPerPixel: number;
  jpegCoefficientsPerPixel: number;
  rowReaders: Record<"jpeg" | "jpegProgressive" | "png" | "webp", { perReadPixel: number; perInputByte: number }>;
}

/** One measured peak, with what the planner prices it from, so its estimate can be computed again. */
export interface RecordedPeak {
  case: string;
  megapixels: number;
  /** When it was measured. */
  measured: string;
  input: string;
  target: string | null;
  quality: number;
  pixels: number;
  inputBytes: number;
  outputBytes: number;
  /** The route's row ("general": the decode and encode), and the terms of the stage that priced it. */
  row: string;
  keys: string[];
  /** The header's facts the row was chosen on (route-table.ts RouteFacts; a HEIC's layout kept to its turns); null on the general path. */
  facts: unknown;
  peak: number;
  /** The estimate when it was measured (the test computes it again from the table as it is). */
  estimate: number;
  /** A resized call's plan (resize-cost.ts ResizedCall["plan"]: the answer's size, the size read, the route), its facts without a HEIC's list of tiles. */
  resize?: unknown;
}

export interface RouteCostTable {
  about: string;
  /** The room the bench's fit leaves above every peak (0.05: 5%). */
  margin: number;
  /** How fast the fixed part grows from a call's floor to a large call's `fixed`, bytes a pixel. */
  rampPerPixel: number;
  avifCells: AvifCellsFigures;
  resize: ResizeFigures;
  terms: Record<string, CostTerms>;
  outputs: Record<string, OutputModel>;
  webp: WebpFigures;
  /** Per input format, the terms whose route is its cheapest read: the limit for reading it at all. */
  readLimit: Record<string, string[]>;
  peaks: RecordedPeak[];
}

export const ROUTE_COSTS = COST_TABLE as unknown as RouteCostTable;

/** A route's stage: the names of the term sets it sums. A route costs its dearest stage. */
export type Stage = readonly string[];

/** The terms named `key`; a row priced with a name the table lacks is a bug in the table. */
export function termsOf(key: string): CostTerms {
  const terms = ROUTE_COSTS.terms[key];
  if (!terms) throw new Error(`route-costs.json has no terms named "${key}"`);
  return terms;
}

/**
 * What one call on a route is priced at, for its size: `perPixel` holds the pixels' terms and
 * the predicted file's, at this size; `perInputByte` the upload's; the call takes at least
 * `floor` and, large, `fixed` besides; `maxPixels` caps the path whatever the figures allow.
 * `keys`: the terms of the stage that sets the price.
 */
export interface Price {
  floor: number;
  fixed: number;
  perPixel: number;
  perInputByte: number;
  maxPixels: number;
  keys: readonly string[];
}

/** The per-pixel and per-input-byte terms of `keys` summed, as bytes a pixel at this size (their files left out). */
export function termsPerPixel(keys: readonly string[], inputBytes: number, pixels: number): number {
  return keys.reduce((sum, key) => sum + (termsOf(key).perPixel ?? 0) + ((termsOf(key).perInputByte ?? 0) * inputBytes) / Math.max(1, pixels), 0);
}

/** The file `model` predicts a pixel, for an upload of `inputBytes` and `pixels`. */
function outputPerPixel(model: OutputModel, inputBytes: number, pixels: number): number {
  const perPixel = Math.max(1, pixels);
  const most = Math.min(model.most, model.mostMiB === undefined ? Infinity : (model.mostMiB * MiB) / perPixel);
  if (model.perInputByte === undefined) return most;
  return Math.min(most, Math.max(model.least ?? 0, (model.perInputByte * inputBytes) / perPixel));
}

/** A stage's terms summed, its predicted file folded into bytes a pixel at this size. */
function stagePrice(stage: Stage, inputBytes: number, pixels: number): Price {
  const price: Price = { floor: 0, fixed: 0, perPixel: 0, perInputByte: 0, maxPixels: Infinity, keys: stage };
  for (const key of stage) {
    const t = termsOf(key);
    const output = t.output === undefined ? 0 : outputPerPixel(outputModel(t.output), inputBytes, pixels);
    price.floor = Math.max(price.floor, (t.floorMiB ?? 0) * MiB);
    price.fixed = Math.max(price.fixed, (t.fixedMiB ?? 0) * MiB);
    price.perPixel += (t.perPixel ?? 0) + (t.perOutputByte ?? 0) * output;
    price.perInputByte += t.perInputByte ?? 0;
    price.maxPixels = Math.min(price.maxPixels, t.maxPixels ?? Infinity);
  }
  return price;
}

function outputModel(name: string): OutputModel {
  const model = ROUTE_COSTS.outputs[name];
  if (!model) throw new Error(`route-costs.json has no output model named "${name}"`);
  return model;
}

/**
 * A route's price: its dearest stage at this size (stages run one after the other: a decoder's
 * memory is gone before the encoder's grows), with the largest floor and fixed part of any stage
 * and the tightest cap.
 */
export function priceStages(stages: readonly Stage[], inputBytes: number, pixels: number): Price {
  const priced = stages.map((stage) => stagePrice(stage, inputBytes, pixels));
  const bytes = (p: Price) => p.perPixel * Math.max(1, pixels) + p.perInputByte * inputBytes;
  const dearest = priced.reduce((a, b) => (bytes(b) > bytes(a) ? b : a));
  return {
    ...dearest,
    floor: Math.max(...priced.map((p) => p.floor)),
    fixed: Math.max(...priced.map((p) => p.fixed)),
    maxPixels: Math.min(...priced.map((p) => p.maxPixels)),
  };
}

/**
 * The general path's stages: an RGBA raster decoded (jsquash, libheif, our TypeScript
 * decoders), then encoded unless `target` is null; the decoder's memory is gone before the
 * encoder's grows. Its terms are named by the format read and the format written; PNG's upload
 * costs more here (its inflate buffer).
 */
export function generalStages(input: string, target: string | null): Stage[] {
  const upload = input === "png" ? "upload, png on the general path" : "upload";
  const decode = [`general: decode ${input}`, upload];
  return target === null ? [decode] : [decode, [`general: encode ${target}`, upload]];
}

/** What the route's row is called when no native row applies. */
export const GENERAL_ROW_NAME = "general";

const WEBP = ROUTE_COSTS.webp;

/** The WebP encoder's token buffer and coding as it goes: bytes held per byte of WebP written. */
export const WEBP_TOKENS = { perOutputByte: WEBP.tokensPerOutputByte };
export const WEBP_LOW_MEMORY = { perOutputByte: WEBP.lowMemoryPerOutputByte };
export const WEBP_DENSEST = WEBP.densest;
export const UNKNOWN_SOURCE_QUALITY = WEBP.unknownSourceQuality;

/** Most bytes of WebP at `quality` per byte of a lossy upload, whatever quality it was written at. */
export function webpOutputPerInputByte(quality: number): number {
  return WEBP.outputPerInputByteAt70 + Math.max(0, quality - 70) * WEBP.outputPerInputBytePerQualityStep;
}

/** Most bytes of WebP at `quality` per byte of an upload written at `sourceQuality`, or null: no bound from its size. */
export function webpFilePerInputByte(quality: number, sourceQuality: number): number | null {
  const row = WEBP.fileByUploadQuality.find(({ fromQuality }) => sourceQuality >= fromQuality)?.perInputByte;
  return row ? atQuality(row, quality) : null;
}

/** A figure measured at a few WebP qualities, read at `quality` (linear between them, the nearest outside). */
export function atQuality(row: QualityFigures, quality: number): number {
  const at = row.findIndex(([q]) => q >= quality);
  if (at === -1) return row[row.length - 1]![1];
  if (at === 0) return row[0]![1];
  const [[q0, f0], [q1, f1]] = [row[at - 1]!, row[at]!];
  return f0 + ((quality - q0) * (f1 - f0)) / (q1 - q0);
}

/** The densest picture's WebP at `quality`, a pixel: its VP8 data, and its alpha chunk when it has alpha. */
export function webpDensestPerPixel(quality: number, alpha: boolean): { vp8: number; alpha: number } {
  const vp8 = WEBP_DENSEST.vp8PerPixelAt70 + Math.max(0, quality - 70) * WEBP_DENSEST.vp8PerQualityStep;
  return { vp8, alpha: alpha ? WEBP_DENSEST.alphaPerPixel : 0 };
}

/** The least file a pixel a WebP coded as it goes is let try with: a photo's at that quality. */
export function webpPhotoPerPixel(quality: number): number {
  return atQuality(WEBP.photoPerPixel, quality);
}

export const WEBP_ROOM_USED = WEBP.roomUsed;
export const WEBP_HEADER_BYTES = WEBP.headerBytes;

/** Whether a PNG carries alpha (a colour type with alpha, or a tRNS chunk) or is interlaced. */
export function pngLayout(bytes: Uint8Array): { alpha: boolean; interlaced: boolean } {
  const colorType = bytes[25];
  let alpha = colorType === 4 || colorType === 6;
  for (let at = 8; at + 8 <= bytes.length && !alpha; ) {
    const length = ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    if (type === "IDAT") break;
    if (type === "tRNS") alpha = true;
    at += 12 + length;
  }
  return { alpha, interlaced: bytes[28] === 1 };
}
