import type { ImageFormat, ImageHeader, InputFormat } from "./formats.ts";
import { recodedImage, type RecodedImage } from "./file-pieces.ts";
import { decodeHeicPlanes, heicEncoding } from "./heic.ts";
import { readHeicLayout, type HeicLayout } from "./heic-layout.ts";
import { encodeHeicTiles, heicPlanesFromTiles, planesFromTiles, uprightStrips } from "./heic-tiles.ts";
import { readJpegFrame, type JpegFrame } from "./jpeg.ts";
import { maxPixelsFor, SINGLE_AVIF_MAX_PIXELS } from "./limits.ts";
import { encodePlanes, inPieces, planesToBmp, rgbaRows, type RgbaRows, planesToGif, planesToPng, streamBmp, transcodeJpeg, transcodePng, transcodeToPalette, transcodeToPng, transcodeWebp, type NativeTarget, type PlanesEncoding, type WebpSettings, type YCbCrImage } from "./native.ts";
import { readOrientation, type Orientation } from "./orientation.ts";
import { pngLayout, priceStages, ROUTE_COSTS, termsOf, termsPerPixel, type Stage } from "./recode-cost.ts";
import { readWebpLayout, type WebpLayout } from "./webp.ts";
import { encodeAvifCells } from "./avif-cells.ts";
import { avifCellsCost, type AvifCellsCost } from "./avif-cells-cost.ts";
import { readHeader } from "./header.ts";
import { planeStripRows } from "./plane-rows.ts";

// The routes of compress and convert, one row each: when it applies (facts read once from the
// header), the targets it writes, the terms it is priced with (names in route-costs.json, read
// by recode-cost.ts) and what runs it. At most one native row applies to a file and a target
// (test/codecs/route-table.test.ts walks every pair); where none does, the general decode and
// encode (recode-cost.ts generalStages) takes the call, decided up front like any row. recode-route.ts picks the
// row and prices WebP's encoder; recode.ts runs the row.

/** What the header says about a file, read once for every target. */
export interface RouteFacts {
  input: InputFormat;
  /** The header's size, as readHeader gives it: a JPEG's, PNG's or WebP's before its EXIF turn, a HEIC's turned by its irot. */
  size: { width: number; height: number };
  /** EXIF orientation (JPEG, PNG, WebP); a HEIC's irot is in its layout. */
  orientation: Orientation;
  jpeg?: JpegFrame;
  png?: { alpha: boolean; interlaced: boolean };
  webp?: WebpLayout;
  heic?: {
    /** The planes' matrix and range, and whether an alpha plane is declared; null: libheif's verdict stands (the general path). */
    encoding: (PlanesEncoding & { alpha: boolean }) | null;
    /** The layout our HEVC decoder streams, or null: libheif reads it. */
    tiles: HeicLayout | null;
    kind: "grid" | "single" | null;
    /** Whether our decoder makes the whole planes (an odd-sided grid turned by irot: no). */
    wholePlanes: boolean;
  };
}

export function readRouteFacts(bytes: Uint8Array, input: InputFormat): RouteFacts {
  const { width, height } = readHeader(bytes, input);
  return { size: { width, height }, ...formatFacts(bytes, input) };
}

function formatFacts(bytes: Uint8Array, input: InputFormat): Omit<RouteFacts, "size"> {
  switch (input) {
    case "jpeg":
      return { input, orientation: readOrientation(bytes, "jpeg"), jpeg: readJpegFrame(bytes) };
    case "png":
      return { input, orientation: readOrientation(bytes, "png"), png: pngLayout(bytes) };
    case "webp":
      return { input, orientation: readOrientation(bytes, "webp"), webp: readWebpLayout(bytes) };
    case "heic": {
      const tiles = heicTiles(bytes);
      const kind = tiles && (tiles.image.tiles.length > 1 ? "grid" : "single");
      return { input, orientation: 1, heic: { encoding: heicEncoding(bytes), tiles, kind, wholePlanes: tiles !== null && planesFromTiles(tiles) } };
    }
    default:
      return { input, orientation: 1 };
  }
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

/** What a row's terms depend on besides the facts. */
export interface CostInput {
  target: ImageFormat;
  /** 100: lossless (a PNG target: the palette writer below it). */
  quality: number;
  /** The upload's size, and the header's pixels (0: comparing paths). */
  inputBytes: number;
  pixels: number;
}

/**
 * The terms a call on this row is priced with: its stages (each the names of the term sets it
 * sums; the dearest stage is the price), and for a WebP target the reader's stages beside an
 * encoder that codes as it goes, where that was measured apart.
 */
export interface RowCost {
  stages: readonly Stage[];
  lowMemory?: readonly Stage[];
  /** Bytes a pixel a row prices beside its terms by a model of its own (the grid AVIF's cells: avif-cells-cost.ts). */
  perPixel?: number;
}

/** What a row runs on: the file, its header, the target, quality and WebP settings decided for it. */
export interface RunInput {
  bytes: Uint8Array;
  header: ImageHeader;
  facts: RouteFacts;
  target: ImageFormat;
  quality: number;
  webp?: WebpSettings;
  /** The picture's size as shown (after an EXIF turn). */
  shown: { width: number; height: number };
}

export interface RouteRow {
  name: string;
  /** When the row applies, from the facts alone. */
  when(facts: RouteFacts): boolean;
  targets: readonly ImageFormat[];
  cost(facts: RouteFacts, input: CostInput): RowCost;
  /** The file written (a TIFF target: the baseline JPEG its strip holds); null if the module turned the file down. */
  run(input: RunInput): Promise<RecodedImage | null>;
}

const ROW_WRITERS = ["png", "gif", "bmp"] as const;
const ENCODERS = ["webp", "jpeg", "tiff"] as const;

/** What the encoders' terms call a target (a TIFF's strip is a baseline JPEG). */
const encoderCost = (target: ImageFormat): "webp" | "jpeg" => (target === "webp" ? "webp" : "jpeg");

/** Every stage holds the upload (its own terms: what the body's bytes cost while the work runs). */
const UPLOAD = "upload";
/** A file turned or flipped by its EXIF orientation, decoded in bands of rows. */
const BANDS = "turned: bands of rows";
/** A turned JPEG into the JPEG encoder: oriented YUV 4:2:0 planes. */
const ORIENTED_PLANES = "turned: oriented yuv planes";

/** One stage: these term sets (false: not this time) and the upload. */
const stage = (...keys: (string | false)[]): Stage => [...keys.filter((k): k is string => k !== false), UPLOAD];
const oneStage = (...keys: (string | false)[]): RowCost => ({ stages: [stage(...keys)] });

/** A PNG target's writer: lossless at 100, else the palette writer (which keeps a lossless candidate). */
const pngKind = (quality: number) => (quality >= 100 ? "lossless" : "palette");
/** A progressive JPEG's terms (its decoder keeps the packed coefficients in every pass; turned, in every band). */
const progressive = (f: RouteFacts) => (f.jpeg!.progressive ? (banded(f) ? ", progressive, turned" : ", progressive") : "");
/** A baseline JPEG, PNG or WebP turned: the bands (a progressive one's terms hold them). */
const bandsIf = (f: RouteFacts, always = false) => (always || banded(f)) && !f.jpeg?.progressive && BANDS;
const webpKind = (f: RouteFacts) => (f.webp!.lossless ? "lossless webp" : f.webp!.alpha ? "lossy webp with alpha" : "lossy webp");

/** What the native encoder writes for `target` (a TIFF's strip: one sequential scan). */
const encoderFor = (target: ImageFormat): NativeTarget => (target === "tiff" ? "baseline-jpeg" : (target as NativeTarget));

/** Turned or flipped by its EXIF orientation: the row sources decode it in bands. */
const banded = (facts: RouteFacts) => facts.orientation > 2;

/** A JPEG whose samples libjpeg hands our readers: YCbCr and grey; the row writers' reader takes RGB too. */
const jpegRows = (facts: RouteFacts) => facts.jpeg !== undefined && facts.jpeg.colorSpace !== "cmyk" && facts.jpeg.colorSpace !== "ycck";
const jpegSamples = (facts: RouteFacts) => facts.jpeg?.colorSpace === "ycbcr" || facts.jpeg?.colorSpace === "grey";

/** The file's row source (native/png_sink.h) into a row writer: the target's writer, the file read again per pass or band. */
async function rowWriterRun({ bytes, header, facts, target, quality, shown }: RunInput): Promise<RecodedImage | null> {
  const input = facts.input as "jpeg" | "png" | "webp";
  const { orientation } = facts;
  // A BMP is made as it is read (never whole); each reading decodes the file again.
  if (target === "bmp") return streamBmp(bytes, header, input, orientation);
  const out = inPieces(() => (target === "gif" ? transcodeToPalette(bytes, header, input, "gif", orientation) : transcodeToPng(bytes, header, input, quality, orientation)));
  return out && recodedImage(out, shown.width, shown.height);
}

/** A file straight into the WebP or JPEG encoder (and a TIFF's baseline strip). */
function encoderRun(transcode: typeof transcodePng) {
  return async ({ bytes, header, target, quality, webp, shown }: RunInput): Promise<RecodedImage | null> => {
    const out = inPieces(() => transcode(bytes, header, encoderFor(target), quality, webp));
    return out && recodedImage(out, shown.width, shown.height);
  };
}

/** A HEIC's whole upright planes: our decoder's where it makes them whole, else libheif's (a band at a time, no RGBA image). */
export async function heicPlanesOf(bytes: Uint8Array, facts: RouteFacts): Promise<YCbCrImage> {
  const heic = facts.heic!;
  const encoding = heic.encoding!;
  const ours = heic.tiles && heic.wholePlanes ? await heicPlanesFromTiles(heic.tiles, encoding) : null;
  return ours ?? (await decodeHeicPlanes(bytes, maxPixelsFor("heic"), encoding));
}

/** A HEIC's whole planes (heicPlanesOf) written by a row writer or an encoder. */
async function heicPlanesRun({ bytes, facts, target, quality, webp }: RunInput): Promise<RecodedImage> {
  const planes = await heicPlanesOf(bytes, facts);
  // A turn of the event loop between the halves: the decoder's instance (libheif's memory
  // peaks at about 4.7 bytes a pixel) is unreachable from here and can be collected before
  // the encoder grows, and other requests in the isolate get to run between two seconds-long steps.
  await new Promise((resolve) => setTimeout(resolve, 0));
  // A BMP is made from the planes as it is read: they stay, the file is never whole.
  if (target === "bmp") return planesToBmp(planes);
  const out = inPieces(() =>
    target === "png" ? planesToPng(planes, quality) : target === "gif" ? planesToGif(planes) : encodePlanes(planes, encoderFor(target), quality, webp),
  );
  return recodedImage(out ?? [], planes.width, planes.height);
}

/** AVIF up to the single-image limit stays libavif's one image (the general path); above it, a grid. */
const gridAvif = (f: RouteFacts) => f.size.width * f.size.height > SINGLE_AVIF_MAX_PIXELS;

/**
 * A file whose rows our own build reads with any alpha composited onto black, for pictures
 * without one: an RGB, YCbCr or grey JPEG, an opaque non-interlaced PNG, an opaque still WebP.
 */
const opaqueRows = (f: RouteFacts) =>
  jpegRows(f) || (f.png !== undefined && !f.png.interlaced && !f.png.alpha) || (f.webp !== undefined && !f.webp.animated && !f.webp.alpha);

/** An opaque HEIC's upright rows: our decoder's strips, or libheif's whole planes (the layouts ours does not turn, or read). */
async function heicRows(bytes: Uint8Array, facts: RouteFacts): Promise<RgbaRows> {
  const { tiles, encoding } = facts.heic!;
  const ours = tiles && uprightStrips(tiles);
  if (ours && tiles.image.tiles.length > 1) return planeStripRows(ours.width, ours.height, encoding!, ours.strips);
  // A single picture is copied out whole and its decoder dropped (a turn of the event loop)
  // before libavif grows: libde265 holds about 2.4 bytes a pixel for it, libheif 4.7.
  const whole = ours ? { ...ours, strips: [...ours.strips] } : await decodeHeicPlanes(bytes, maxPixelsFor("heic"), encoding!);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return planeStripRows(whole.width, whole.height, encoding!, "strips" in whole ? whole.strips : [whole]);
}

/**
 * AVIF above the single-image limit (recode.ts), as a grid of cells (avif-cells.ts). Pictures
 * with alpha are not written this way: their AVIF is libavif's single image, within its limit.
 */
const AVIF_ROWS: readonly RouteRow[] = [
  {
    name: "jpeg, png, still webp rows into avif cells",
    when: (f) => gridAvif(f) && opaqueRows(f),
    targets: ["avif"],
    cost: (f, { inputBytes, quality }) => ({ stages: [stage(AVIF_CELLS)], perPixel: fileRowsAvifCost(f, inputBytes, quality).bytesPerPixel }),
    run: async ({ bytes, header, facts, quality, shown }) => {
      const rows = rgbaRows(bytes, header, facts.input as "jpeg" | "png" | "webp", facts.orientation);
      return rows && recodedImage(await encodeAvifCells(rows, quality, fileRowsAvifCost(facts, bytes.length, quality).fileBytes), shown.width, shown.height);
    },
  },
  {
    name: "opaque heic planes into avif cells",
    when: (f) => gridAvif(f) && f.heic?.encoding != null && !f.heic.encoding.alpha,
    targets: ["avif"],
    cost: (f, { inputBytes, quality }) => ({ stages: [stage(AVIF_CELLS)], perPixel: heicAvifCost(f, inputBytes, quality).bytesPerPixel }),
    run: async ({ bytes, facts, quality }) => {
      const rows = await heicRows(bytes, facts);
      return recodedImage(await encodeAvifCells(rows, quality, heicAvifCost(facts, bytes.length, quality).fileBytes), rows.width, rows.height);
    },
  },
];

/**
 * The grid AVIF rows' own terms (the call's floor, fixed part and upload); the cells beside them
 * by avif-cells-cost.ts, from the table's `avifCells` figures.
 */
const AVIF_CELLS = "rows into avif cells";
const cellsBase = (inputBytes: number, pixels: number) => priceStages([stage(AVIF_CELLS)], inputBytes, pixels);

/** A JPEG's, PNG's or WebP's row source, as the GIF writer reads it (a band for a turned picture), without the GIF. */
function rowSourceKeys(f: RouteFacts): Stage {
  if (f.jpeg) return stage(`jpeg rows to gif, bmp: gif${progressive(f)}`, bandsIf(f));
  if (f.png) return stage("png rows to gif, bmp: gif", bandsIf(f));
  return stage(`still webp rows to gif, bmp: gif, ${webpKind(f)}`, bandsIf(f));
}

/** A JPEG's, PNG's or WebP's grid AVIF: its row source beside the cells. */
function fileRowsAvifCost(f: RouteFacts, inputBytes: number, quality: number): AvifCellsCost {
  const { width, height } = f.size;
  const [shownWidth, shownHeight] = f.orientation >= 5 ? [height, width] : [width, height];
  const pixels = width * height;
  const source = termsPerPixel(rowSourceKeys(f).filter((key) => key !== UPLOAD), inputBytes, pixels);
  return avifCellsCost(cellsBase(inputBytes, pixels), f.input, inputBytes, source, shownWidth, shownHeight, quality);
}

/**
 * A HEIC's grid AVIF. A grid's strips are a row of tiles (a column, turned) and its turned copy
 * beside our decoder's instance; anything else is decoded whole first (libde265's or libheif's
 * peak, route-costs.json) and its planes (1.5 bytes a pixel) stay beside the cells.
 */
function heicAvifCost(f: RouteFacts, inputBytes: number, quality: number): AvifCellsCost {
  const { tiles, kind } = f.heic!;
  const { width, height } = f.size;
  const pixels = Math.max(1, width * height);
  const ours = tiles !== null && planesFromTiles(tiles);
  if (kind === "grid" && ours) {
    const strip = 2 * 1.5 * Math.max(width * tiles.image.tileHeight, height * tiles.image.tileWidth) + HEVC_DECODER_BYTES;
    return avifCellsCost(cellsBase(inputBytes, pixels), "heic", inputBytes, strip / pixels, width, height, quality);
  }
  // Decoded whole first, as for the JPEG encoder: libde265's picture (turned: a second copy) or libheif's.
  const decode = ours
    ? termsOf("heic tiles into the webp, jpeg encoders: jpeg, single").perPixel! + (tiles.turns !== 0 ? termsOf("heic planes (ours) to png, gif, bmp: a turned single image's second copy").perPixel! : 0)
    : termsOf("libheif planes into the webp, jpeg encoders: jpeg").perPixel!;
  return avifCellsCost(cellsBase(inputBytes, pixels), "heic", inputBytes, 1.5, width, height, quality, decode);
}

/** Our HEVC decoder's instance for one tile, beside a grid's strips (route-costs.json `avifCells`). */
const HEVC_DECODER_BYTES = ROUTE_COSTS.avifCells.hevcTileDecoderMiB * 1024 * 1024;

export const ROUTE_ROWS: readonly RouteRow[] = [
  {
    name: "jpeg rows to png",
    when: jpegRows,
    targets: ["png"],
    cost: (f, { quality }) => oneStage(`jpeg rows to png: ${pngKind(quality)}${progressive(f)}`, bandsIf(f)),
    run: rowWriterRun,
  },
  {
    name: "jpeg rows to gif, bmp",
    when: jpegRows,
    targets: ["gif", "bmp"],
    // A BMP is always read in bands (bottom band first).
    cost: (f, { target }) =>
      target === "bmp" ? oneStage(`jpeg rows to gif, bmp: bmp${f.jpeg!.progressive ? ", progressive" : ""}`, bandsIf(f, true)) : oneStage(`jpeg rows to gif, bmp: gif${progressive(f)}`, bandsIf(f)),
    run: rowWriterRun,
  },
  {
    name: "jpeg into the webp, jpeg encoders",
    when: jpegSamples,
    targets: ["webp", "jpeg"],
    cost: (f, { target }) => {
      const p = f.jpeg!.progressive ? ", progressive" : "";
      if (target === "jpeg") return oneStage(`jpeg into the webp, jpeg encoders: jpeg${p}`, f.orientation !== 1 && ORIENTED_PLANES);
      // Coded as it goes, a baseline file's decoder is gone before libwebp's peak; a progressive one's coefficients are not.
      return { stages: [stage(`jpeg into the webp, jpeg encoders: webp${p}`)], lowMemory: [stage(p ? `jpeg into the webp, jpeg encoders: webp${p}` : "jpeg into the webp, jpeg encoders: webp, coded as it goes")] };
    },
    run: async ({ bytes, header, facts, target, quality, webp, shown }) => {
      const out = inPieces(() => transcodeJpeg(bytes, header, encoderFor(target), quality, facts.orientation, webp));
      return out && recodedImage(out, shown.width, shown.height);
    },
  },
  {
    // A TIFF's tags describe a three-component strip: a grey JPEG takes the general path.
    name: "jpeg into a tiff's baseline strip",
    when: (f) => f.jpeg?.colorSpace === "ycbcr" && f.jpeg.components === 3,
    targets: ["tiff"],
    cost: (f) => oneStage(`jpeg into a tiff's baseline strip: tiff${f.jpeg!.progressive ? ", progressive" : ""}`, f.orientation !== 1 && ORIENTED_PLANES),
    run: async ({ bytes, header, facts, quality, shown }) => {
      const out = inPieces(() => transcodeJpeg(bytes, header, "baseline-jpeg", quality, facts.orientation));
      return out && recodedImage(out, shown.width, shown.height);
    },
  },
  // Interlaced PNGs are de-interlaced by the TypeScript decoder: the general path.
  {
    name: "png rows to png",
    when: (f) => f.png !== undefined && !f.png.interlaced,
    targets: ["png"],
    cost: (f, { quality }) => oneStage(`png rows to png: ${pngKind(quality)}`, bandsIf(f)),
    run: rowWriterRun,
  },
  {
    name: "png rows to gif, bmp",
    when: (f) => f.png !== undefined && !f.png.interlaced,
    targets: ["gif", "bmp"],
    cost: (f, { target }) => oneStage(`png rows to gif, bmp: ${target}`, bandsIf(f, target === "bmp")),
    run: rowWriterRun,
  },
  {
    // An EXIF-oriented PNG or WebP is rare: the row writers turn it; to the encoders the general path does.
    name: "png into the webp, jpeg encoders",
    when: (f) => f.png !== undefined && !f.png.interlaced && f.orientation === 1,
    targets: ENCODERS,
    cost: (f, { target }) => oneStage(`png into the webp, jpeg encoders: ${encoderCost(target)}${f.png!.alpha ? ", alpha" : ""}`),
    run: encoderRun(transcodePng),
  },
  // An animation's first frame is the general path's.
  {
    name: "still webp rows to png",
    when: (f) => f.webp !== undefined && !f.webp.animated,
    targets: ["png"],
    cost: (f, { quality }) => oneStage(`still webp rows to png: ${pngKind(quality)}, ${webpKind(f)}`, bandsIf(f)),
    run: rowWriterRun,
  },
  {
    name: "still webp rows to gif, bmp",
    when: (f) => f.webp !== undefined && !f.webp.animated,
    targets: ["gif", "bmp"],
    cost: (f, { target }) => oneStage(`still webp rows to gif, bmp: ${target}, ${webpKind(f)}`, bandsIf(f, target === "bmp")),
    run: rowWriterRun,
  },
  {
    name: "still webp into the webp, jpeg encoders",
    when: (f) => f.webp !== undefined && !f.webp.animated && f.orientation === 1,
    targets: ENCODERS,
    cost: (f, { target }) => oneStage(`still webp into the webp, jpeg encoders: ${encoderCost(target)}, ${f.webp!.lossless ? "lossless" : "lossy"}${f.webp!.alpha ? " with alpha" : ""}`),
    run: encoderRun(transcodeWebp),
  },
  // A HEIC whose colour libheif would refuse (heicEncoding null) keeps libheif's verdict: the general path.
  {
    name: "heic tiles into the webp, jpeg encoders",
    when: (f) => f.heic?.encoding != null && f.heic.tiles !== null,
    targets: ENCODERS,
    cost: (f, { target }) => oneStage(`heic tiles into the webp, jpeg encoders: ${encoderCost(target)}, ${f.heic!.kind}${f.heic!.encoding!.alpha ? " with alpha" : ""}`),
    // A row of tiles at a time into the encoder.
    run: async ({ facts, target, quality, webp }) => encodeHeicTiles(facts.heic!.tiles!, facts.heic!.encoding!, encoderFor(target), quality, webp),
  },
  {
    name: "libheif planes into the webp, jpeg encoders",
    when: (f) => f.heic?.encoding != null && f.heic.tiles === null,
    targets: ENCODERS,
    cost: (f, { target }) => oneStage(`libheif planes into the webp, jpeg encoders: ${encoderCost(target)}${f.heic!.encoding!.alpha ? ", alpha" : ""}`),
    run: heicPlanesRun,
  },
  {
    name: "heic planes (ours) to png, gif, bmp",
    when: (f) => f.heic?.encoding != null && f.heic.wholePlanes,
    targets: ROW_WRITERS,
    // The planes are made first (a grid a row of tiles at a time: the planes are its peak; a
    // single image holds libde265's picture while they are copied out, and turned by irot, a
    // second copy: the header does not say whether its samples are 8-bit, turned as they leave),
    // then written beside them.
    cost: (f, { target, quality }) => {
      const { encoding, kind, tiles } = f.heic!;
      const alpha = encoding!.alpha;
      const decode = kind === "single" ? [stage(`heic planes (ours) to png, gif, bmp: decode, single${alpha ? " with alpha" : ""}`, tiles!.turns !== 0 && "heic planes (ours) to png, gif, bmp: a turned single image's second copy")] : [];
      const write =
        target === "png"
          ? stage(`heic planes written as png: ${pngKind(quality)}${alpha ? ", alpha" : ""}`)
          : stage(`heic planes (ours) to png, gif, bmp: ${target}${alpha ? ", alpha" : ""}`, target === "bmp" && BANDS);
      return { stages: [...decode, write] };
    },
    run: heicPlanesRun,
  },
  {
    // GIF and BMP only from our decoder's planes; libheif's RGBA is the general path's.
    name: "libheif planes to png",
    when: (f) => f.heic?.encoding != null && !f.heic.wholePlanes,
    targets: ["png"],
    cost: (f, { quality }) => {
      const alpha = f.heic!.encoding!.alpha ? ", alpha" : "";
      return { stages: [stage(`libheif planes to png: decode${alpha}`), stage(`heic planes written as png: ${pngKind(quality)}${alpha}`)] };
    },
    run: heicPlanesRun,
  },
  ...AVIF_ROWS,
];

/** The rows that apply to these facts and this target: at most one (the test walks every pair). */
export function rowsFor(facts: RouteFacts, target: ImageFormat): RouteRow[] {
  return ROUTE_ROWS.filter((row) => row.targets.includes(target) && row.when(facts));
}
