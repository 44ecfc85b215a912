import type { ImageFormat, ImageHeader, InputFormat } from "./formats.ts";
import { recodedImage, type RecodedImage } from "./file-pieces.ts";
import { decodeHeicPlanes, heicEncoding } from "./heic.ts";
import { readHeicLayout, type HeicLayout } from "./heic-layout.ts";
import { encodeHeicTiles, heicPlanesFromTiles, planesFromTiles, uprightStrips } from "./heic-tiles.ts";
import { readJpegFrame, type JpegFrame } from "./jpeg.ts";
import { maxPixelsFor, SINGLE_AVIF_MAX_PIXELS } from "./limits.ts";
import { encodePlanes, inPieces, planesToBmp, rgbaRows, type RgbaRows, planesToGif, planesToPng, streamBmp, transcodeJpeg, transcodePng, transcodeToPalette, transcodeToPng, transcodeWebp, type NativeTarget, type PlanesEncoding, type WebpSettings, type YCbCrImage } from "./native.ts";
import { readOrientation, type Orientation } from "./orientation.ts";
import { heicBytesPerPixel, heicToPngBytesPerPixel, heicToRowWriterBytesPerPixel, jpegBytesPerPixel, jpegToLowMemoryWebpBytesPerPixel, pngBytesPerPixel, pngLayout, pngToEncoderBytesPerPixel, rowSourceWasmBytesPerPixel, rowWriterBytesPerPixel, webpBytesPerPixel, webpToPngBytesPerPixel, type NativeEncoderTarget } from "./recode-cost.ts";
import { readWebpLayout, type WebpLayout } from "./webp.ts";
import { encodeAvifCells } from "./avif-cells.ts";
import { avifCellsCost, type AvifCellsCost } from "./avif-cells-cost.ts";
import { readHeader } from "./header.ts";
import { planeStripRows } from "./plane-rows.ts";

// The native routes of compress and convert, one row each: when it applies (facts read once
// from the header), the targets it writes, what it costs (recode-cost.ts) and what runs it.
// At most one row applies to a file and a target (test/codecs/route-table.test.ts walks every
// pair); where none does, the general decode and encode takes the call, decided up front like
// any row. recode-route.ts picks the row and prices WebP's encoder; recode.ts runs the row.

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

/** What a row's cost is computed from besides the facts. */
export interface CostInput {
  bytes: Uint8Array;
  target: ImageFormat;
  /** The header's (a PNG target's cost follows the upload's density); 0 when comparing paths. */
  pixels: number;
  quality: number;
}

/** Bytes per pixel, and beside a WebP encoder that codes as it goes where that was measured apart. */
export interface RowCost {
  bytesPerPixel: number;
  lowMemoryBytesPerPixel?: number;
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

/** What the encoders' cost tables call a target (a TIFF's strip is a baseline JPEG). */
const encoderCost = (target: ImageFormat): NativeEncoderTarget => (target === "webp" ? "webp" : "jpeg");

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
    cost: (f, { bytes, quality }) => ({ bytesPerPixel: fileRowsAvifCost(f, bytes, quality).bytesPerPixel }),
    run: async ({ bytes, header, facts, quality, shown }) => {
      const rows = rgbaRows(bytes, header, facts.input as "jpeg" | "png" | "webp", facts.orientation);
      return rows && recodedImage(await encodeAvifCells(rows, quality, fileRowsAvifCost(facts, bytes, quality).fileBytes), shown.width, shown.height);
    },
  },
  {
    name: "opaque heic planes into avif cells",
    when: (f) => gridAvif(f) && f.heic?.encoding != null && !f.heic.encoding.alpha,
    targets: ["avif"],
    cost: (f, { bytes, quality }) => ({ bytesPerPixel: heicAvifCost(f, bytes, quality).bytesPerPixel }),
    run: async ({ bytes, facts, quality }) => {
      const rows = await heicRows(bytes, facts);
      return recodedImage(await encodeAvifCells(rows, quality, heicAvifCost(facts, bytes, quality).fileBytes), rows.width, rows.height);
    },
  },
];

/** A JPEG's, PNG's or WebP's grid AVIF: its row source (a band for a turned picture) beside the cells. */
function fileRowsAvifCost(f: RouteFacts, bytes: Uint8Array, quality: number): AvifCellsCost {
  const { width, height } = f.size;
  const [shownWidth, shownHeight] = f.orientation >= 5 ? [height, width] : [width, height];
  const source = rowSourceWasmBytesPerPixel(bytes, f.webp ?? (f.input as "jpeg" | "png"), width * height, banded(f), f.jpeg?.progressive ?? false);
  return avifCellsCost(f.input, bytes.length, source, shownWidth, shownHeight, quality);
}

/**
 * A HEIC's grid AVIF. A grid's strips are a row of tiles (a column, turned) and its turned copy
 * beside our decoder's instance; anything else is decoded whole first (libde265's or libheif's
 * peak, recode-cost.ts) and its planes (1.5 bytes a pixel) stay beside the cells.
 */
function heicAvifCost(f: RouteFacts, bytes: Uint8Array, quality: number): AvifCellsCost {
  const { tiles, kind } = f.heic!;
  const { width, height } = f.size;
  const pixels = Math.max(1, width * height);
  const ours = tiles !== null && planesFromTiles(tiles);
  if (kind === "grid" && ours) {
    const strip = 2 * 1.5 * Math.max(width * tiles.image.tileHeight, height * tiles.image.tileWidth) + HEVC_DECODER_BYTES;
    return avifCellsCost("heic", bytes.length, strip / pixels, width, height, quality);
  }
  const decode = heicBytesPerPixel(false, "jpeg", ours ? "single" : null) + (ours && tiles.turns !== 0 ? 1.5 : 0);
  return avifCellsCost("heic", bytes.length, 1.5, width, height, quality, decode);
}

/** Our HEVC decoder's instance for one tile (1.4 MB measured), with room. */
const HEVC_DECODER_BYTES = 2 * 1024 * 1024;

export const ROUTE_ROWS: readonly RouteRow[] = [
  {
    name: "jpeg rows to png",
    when: jpegRows,
    targets: ["png"],
    cost: (f, { bytes, pixels, quality }) => ({ bytesPerPixel: pngBytesPerPixel(bytes, "jpeg", pixels, quality, banded(f), f.jpeg!.progressive) }),
    run: rowWriterRun,
  },
  {
    name: "jpeg rows to gif, bmp",
    when: jpegRows,
    targets: ["gif", "bmp"],
    cost: (f, { bytes, target, pixels }) => ({ bytesPerPixel: rowWriterBytesPerPixel(bytes, "jpeg", target as "gif" | "bmp", pixels, banded(f), f.jpeg!.progressive) }),
    run: rowWriterRun,
  },
  {
    name: "jpeg into the webp, jpeg encoders",
    when: jpegSamples,
    targets: ["webp", "jpeg"],
    cost: (f, { bytes, target, pixels }) => {
      const bytesPerPixel = jpegBytesPerPixel(f.jpeg!.progressive, encoderCost(target), f.orientation !== 1, bytes.length, pixels);
      return target === "webp" ? { bytesPerPixel, lowMemoryBytesPerPixel: jpegToLowMemoryWebpBytesPerPixel(f.jpeg!.progressive) } : { bytesPerPixel };
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
    cost: (f, { bytes, pixels }) => ({ bytesPerPixel: jpegBytesPerPixel(f.jpeg!.progressive, "tiff", f.orientation !== 1, bytes.length, pixels) }),
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
    cost: (f, { bytes, pixels, quality }) => ({ bytesPerPixel: pngBytesPerPixel(bytes, "png", pixels, quality, banded(f), false) }),
    run: rowWriterRun,
  },
  {
    name: "png rows to gif, bmp",
    when: (f) => f.png !== undefined && !f.png.interlaced,
    targets: ["gif", "bmp"],
    cost: (f, { bytes, target, pixels }) => ({ bytesPerPixel: rowWriterBytesPerPixel(bytes, "png", target as "gif" | "bmp", pixels, banded(f), false) }),
    run: rowWriterRun,
  },
  {
    // An EXIF-oriented PNG or WebP is rare: the row writers turn it; to the encoders the general path does.
    name: "png into the webp, jpeg encoders",
    when: (f) => f.png !== undefined && !f.png.interlaced && f.orientation === 1,
    targets: ENCODERS,
    cost: (f, { target }) => ({ bytesPerPixel: pngToEncoderBytesPerPixel(f.png!.alpha, encoderCost(target)) }),
    run: encoderRun(transcodePng),
  },
  // An animation's first frame is the general path's.
  {
    name: "still webp rows to png",
    when: (f) => f.webp !== undefined && !f.webp.animated,
    targets: ["png"],
    cost: (f, { bytes, pixels, quality }) => ({ bytesPerPixel: webpToPngBytesPerPixel(bytes, f.webp!, pixels, quality, banded(f)) }),
    run: rowWriterRun,
  },
  {
    name: "still webp rows to gif, bmp",
    when: (f) => f.webp !== undefined && !f.webp.animated,
    targets: ["gif", "bmp"],
    cost: (f, { bytes, target, pixels }) => ({ bytesPerPixel: rowWriterBytesPerPixel(bytes, f.webp!, target as "gif" | "bmp", pixels, banded(f), false) }),
    run: rowWriterRun,
  },
  {
    name: "still webp into the webp, jpeg encoders",
    when: (f) => f.webp !== undefined && !f.webp.animated && f.orientation === 1,
    targets: ENCODERS,
    cost: (f, { target }) => ({ bytesPerPixel: webpBytesPerPixel(f.webp!, encoderCost(target)) }),
    run: encoderRun(transcodeWebp),
  },
  // A HEIC whose colour libheif would refuse (heicEncoding null) keeps libheif's verdict: the general path.
  {
    name: "heic tiles into the webp, jpeg encoders",
    when: (f) => f.heic?.encoding != null && f.heic.tiles !== null,
    targets: ENCODERS,
    cost: (f, { target }) => ({ bytesPerPixel: heicBytesPerPixel(f.heic!.encoding!.alpha, encoderCost(target), f.heic!.kind) }),
    // A row of tiles at a time into the encoder.
    run: async ({ facts, target, quality, webp }) => encodeHeicTiles(facts.heic!.tiles!, facts.heic!.encoding!, encoderFor(target), quality, webp),
  },
  {
    name: "libheif planes into the webp, jpeg encoders",
    when: (f) => f.heic?.encoding != null && f.heic.tiles === null,
    targets: ENCODERS,
    cost: (f, { target }) => ({ bytesPerPixel: heicBytesPerPixel(f.heic!.encoding!.alpha, encoderCost(target), null) }),
    run: heicPlanesRun,
  },
  {
    name: "heic planes (ours) to png, gif, bmp",
    when: (f) => f.heic?.encoding != null && f.heic.wholePlanes,
    targets: ROW_WRITERS,
    cost: (f, { bytes, target, pixels, quality }) => {
      const { encoding, kind, tiles } = f.heic!;
      const turned = tiles!.turns !== 0;
      if (target === "png") return { bytesPerPixel: heicToPngBytesPerPixel(bytes, encoding!.alpha, pixels, quality, kind, turned) };
      return { bytesPerPixel: heicToRowWriterBytesPerPixel(bytes, encoding!.alpha, target as "gif" | "bmp", pixels, kind!, turned) };
    },
    run: heicPlanesRun,
  },
  {
    // GIF and BMP only from our decoder's planes; libheif's RGBA is the general path's.
    name: "libheif planes to png",
    when: (f) => f.heic?.encoding != null && !f.heic.wholePlanes,
    targets: ["png"],
    cost: (f, { bytes, pixels, quality }) => ({ bytesPerPixel: heicToPngBytesPerPixel(bytes, f.heic!.encoding!.alpha, pixels, quality, null, true) }),
    run: heicPlanesRun,
  },
  ...AVIF_ROWS,
];

/** The rows that apply to these facts and this target: at most one (the test walks every pair). */
export function rowsFor(facts: RouteFacts, target: ImageFormat): RouteRow[] {
  return ROUTE_ROWS.filter((row) => row.targets.includes(target) && row.when(facts));
}
