// A picture's rows, top to bottom, a band at a time, turned by any of the eight EXIF
// orientations: how the model tools read a photo too large to hold as one RGBA raster (a 24 MP
// raster is 96 MB, the isolate's whole codec budget). JPEG, PNG and still WebP come from our own
// WASM build's row source (native/png_rows.c, through the streamed BMP writer: native.ts
// rgbaRows), so neither the picture nor a raster of it is ever whole; a HEIC is first written
// as a JPEG by its own native route, then read the same way. Any other file (GIF, BMP, TIFF,
// AVIF, and what the row source leaves to the general path: CMYK JPEG, interlaced PNG, animated
// WebP) is decoded whole by decodeImage, within its own smaller pixel limit.
//
// The row source composites alpha onto black (the BMP writer's rule): a file with alpha is
// decoded whole while its raster fits the isolate's budget, so its transparency is kept.

import { PixelgateError } from "../errors.ts";
import type { ImageHeader, RasterImage } from "./formats.ts";
import { decodeImage } from "./decode.ts";
import { rgbaRows, type RgbaRows } from "./native.ts";
import { applyOrientation, readOrientation, type Orientation } from "./orientation.ts";
import { imageHasAlpha } from "./raster.ts";
import { planRecode, runRecode } from "./recode.ts";
import { estimateCodecBytes, generalPrice, ISOLATE_CODEC_BUDGET } from "./limits.ts";
import { termsOf } from "./recode-cost.ts";
import { readRouteFacts } from "./route-table.ts";

/** A picture read again from its file each time its bands are asked for. */
export interface PictureRows {
  width: number;
  height: number;
  /**
   * Whether any pixel may be translucent: only where the picture was decoded whole (the row
   * source composites alpha onto black), and then only if its raster has a pixel under 255.
   */
  alpha: boolean;
  /** RGBA bands, top to bottom; each band's buffer is the caller's until it asks for the next. */
  bands(): Iterable<RasterImage>;
}

/** JPEG quality a HEIC is written at before its rows are read (its own route: native HEVC or libheif). */
const HEIC_BRIDGE_QUALITY = 95;

/**
 * The rows of `bytes` (whose header was read and checked before the charge), turned by
 * `orientation` from the file's stored pixels (default: its own EXIF orientation, so the rows
 * are upright). A HEIC's stored pixels are its upright picture (irot and imir applied).
 */
export async function pictureRows(bytes: Uint8Array, header: ImageHeader, orientation?: Orientation): Promise<PictureRows> {
  const turn = orientation ?? readOrientation(bytes, header.format);
  const source = rowSourceOf(bytes, header);
  if (source === "whole") return wholeRows(await decodeImage(bytes, header), turn, readOrientation(bytes, header.format));
  if (source === "heic") {
    const jpeg = await runRecode(bytes, planRecode(bytes, header, "jpeg", { quality: HEIC_BRIDGE_QUALITY }));
    return pictureRows(jpeg.bytes, { format: "jpeg", width: jpeg.width, height: jpeg.height }, turn);
  }
  const read = () => {
    const rows = rgbaRows(bytes, header, source, turn);
    if (!rows) throw new PixelgateError("internal_error", `The ${header.format} row source chosen for this file from its header refused it.`);
    return rows;
  };
  // The first reading checks the whole file (the row source reads it through before its first
  // row), so damage is answered before any work is done.
  let first: RgbaRows | null = read();
  const { width, height } = first;
  return {
    width,
    height,
    alpha: false,
    bands: () => {
      const rows = first ?? read();
      first = null;
      return rowBands(rows);
    },
  };
}

/**
 * What reading the rows costs at its peak, as the memory gate prices it: the streamed BMP
 * route's (its row source in bands, always priced banded), or the general decode's; a HEIC's own
 * route to JPEG and then, in the same call, the JPEG's rows.
 */
export function pictureRowsBytes(bytes: Uint8Array, header: ImageHeader): number {
  const pixels = header.width * header.height;
  const source = rowSourceOf(bytes, header);
  if (source === "whole") return estimateCodecBytes(pixels, generalPrice(header.format, null, bytes.length, pixels), bytes.length);
  if (source === "heic") {
    const bridge = planRecode(bytes, header, "jpeg", { quality: HEIC_BRIDGE_QUALITY });
    const toJpeg = estimateCodecBytes(pixels, bridge.price, bytes.length);
    // The bridge JPEG is at most a byte a pixel at HEIC_BRIDGE_QUALITY (a phone photo's: 0.4),
    // read beside the HEIC upload the request still holds.
    const rows = estimateCodecBytes(pixels, { ...bridge.price, perPixel: JPEG_ROWS_BYTES_PER_PIXEL + 1 }, bytes.length);
    return Math.max(toJpeg, rows);
  }
  // The BMP route's row source, without the answer it prices (these rows are read here, not
  // sent), with room for its band where that is larger than the route's figure for it.
  const { price } = planRecode(bytes, header, "bmp");
  const rows = price.keys.reduce((sum, key) => sum + (termsOf(key).perPixel ?? 0), 0);
  return BAND_ALLOWANCE + estimateCodecBytes(pixels, { ...price, perPixel: rows }, bytes.length);
}

/**
 * A turned or flipped picture's row source holds a band of output rows of up to 8 MB
 * (native/png_rows.c), in as few passes as that allows: at a few megapixels the band is larger
 * than the route's bytes a pixel for it make (measured: a 5 MP turned JPEG's edit 0.4 MB over).
 */
const BAND_ALLOWANCE = 4 * 1024 * 1024;

/**
 * The bridge JPEG's rows: it is progressive, so its row source keeps its packed coefficients
 * (recode-cost.ts: 0.8 B/px banded and 2.6 per byte of the file, at most 1 byte a pixel here).
 */
const JPEG_ROWS_BYTES_PER_PIXEL = 3.5;

/**
 * Where the rows come from: our own row source for a JPEG, PNG or still WebP it reads (one with
 * alpha only when its whole raster would not fit the isolate's budget: the row source composites
 * alpha onto black), a HEIC through its bridge JPEG (the same rule for alpha), else the whole
 * raster decodeImage makes.
 */
function rowSourceOf(bytes: Uint8Array, header: ImageHeader): "jpeg" | "png" | "webp" | "heic" | "whole" {
  const { format } = header;
  if (format !== "jpeg" && format !== "png" && format !== "webp" && format !== "heic") return "whole";
  const facts = readRouteFacts(bytes, format);
  const alpha = facts.png?.alpha ?? facts.webp?.alpha ?? facts.heic?.encoding?.alpha ?? false;
  const pixels = header.width * header.height;
  if (alpha && estimateCodecBytes(pixels, generalPrice(format, null, bytes.length, pixels), bytes.length) <= ISOLATE_CODEC_BUDGET) return "whole";
  if (format === "heic") return facts.heic?.encoding ? "heic" : "whole";
  return planRecode(bytes, header, "bmp").route ? format : "whole";
}


/** Rows handed out in bands of up to BAND_ROWS, one band buffer reused: a band is the caller's until it asks for the next. */
function* rowBands(rows: RgbaRows): Generator<RasterImage> {
  const { width, height } = rows;
  const band = new Uint8ClampedArray(BAND_ROWS * width * 4);
  for (let y = 0; y < height; y += BAND_ROWS) {
    const n = Math.min(BAND_ROWS, height - y);
    const data = band.subarray(0, n * width * 4);
    rows.read(data, n);
    yield { width, height: n, data };
  }
}

/** Rows a band holds: small beside any photo, and few calls per picture. */
const BAND_ROWS = 16;

/**
 * A raster decodeImage made (turned by the file's own orientation, `own`) as one band, turned
 * by `turn` from the stored pixels instead.
 */
function wholeRows(upright: RasterImage, turn: Orientation, own: Orientation): PictureRows {
  return rasterPicture(turn === own ? upright : applyOrientation(applyOrientation(upright, INVERSE[own]), turn));
}

/** A raster already whole, as one band (read as often as asked); its alpha is looked at only if asked. */
export function rasterPicture(image: RasterImage): PictureRows {
  let alpha: boolean | undefined;
  return {
    width: image.width,
    height: image.height,
    get alpha() {
      return (alpha ??= imageHasAlpha(image));
    },
    bands: () => [image],
  };
}

/** The orientation that undoes each one (the quarter turns 6 and 8 undo each other). */
const INVERSE: Record<Orientation, Orientation> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6 };
