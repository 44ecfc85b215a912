// What writing a grid AVIF (avif-cells.ts) costs a call, as bytes per pixel of its picture, for
// the route table's AVIF rows (route-table.ts): the row source's own memory (`source`, from
// recode-cost.ts), and beside it what the cells need, which follows the cells' size more than
// the picture's: libavif's instance for one cell, the band of RGBA rows and the cell in
// JavaScript, and the AV1 data written so far. Measured with the memory child of
// `npm run bench:codecs` (docs/codecs.md, "AVIF as a grid of cells").

import { cellGrid } from "./avif-cells.ts";
import type { InputFormat } from "./formats.ts";
import { bytesLeftBeside, maxRecodePixels } from "./limits.ts";
import { atQuality } from "./recode-cost.ts";

const MiB = 1024 * 1024;

/**
 * libavif's WASM memory for one cell of at most 1024x512 (speed 8, 4:2:0): 16 MiB for a
 * 512x512 cell, 23 MiB for 1024x512 (a photo), with room for a dense cell's larger buffers.
 */
const ENCODER_BYTES = 26 * MiB;

/**
 * The most AV1 data a pixel can make at a quality: binary noise (every sample 0 or 255) in
 * 1024x512 cells wrote 0.10 bytes a pixel at quality 1, 0.49 at 30, 0.72 at 50, 0.93 at 70,
 * 1.30 at 90 and 2.06 at 100 (a 12 MP photo: 0.015 at 50); these with 5% to spare, linear
 * between. The cells are held as they were written, then sent as those pieces; the answer's
 * writing holds about as much again (`FILE_COPIES`).
 */
const DENSEST: readonly (readonly [quality: number, bytesPerPixel: number])[] = [
  [1, 0.11],
  [30, 0.52],
  [50, 0.76],
  [70, 0.98],
  [90, 1.37],
  [100, 2.17],
];
const FILE_COPIES = 2;

/**
 * The least AV1 data a pixel is let try with when the densest picture's would not fit beside the
 * rest of the call: a photo's, three times over (a 1024x512 cut of the bench's 12 MP photo wrote
 * 0.0045 bytes a pixel at quality 30, 0.019 at 50, 0.061 at 70, 0.27 at 90, 0.63 at 100; the
 * 12 MP and 24 MP photos 0.015 and 0.014 at 50 whole). Below it the call is refused before the
 * charge.
 */
const PHOTO: readonly (readonly [quality: number, bytesPerPixel: number])[] = [
  [30, 0.015],
  [50, 0.06],
  [70, 0.19],
  [90, 0.8],
  [100, 1.9],
];

/** The share of what the budget leaves that the file may take: the rest keeps rounding from tipping the limit. */
const ROOM_USED = 0.99;

/** What a grid AVIF call is priced at, and the most AV1 data it may then write (avif-cells.ts enforces it). */
export interface AvifCellsCost {
  bytesPerPixel: number;
  fileBytes: number;
}

/**
 * A width x height picture (`input`, an upload of `inputBytes`) written as a grid AVIF at
 * `quality`, its rows from a source that holds `source` bytes a pixel while the cells are
 * encoded; `decode`: what making those rows cost before the first cell (a whole HEIC decoded
 * first), when that is more. Priced for the densest picture's AV1 data when that fits the
 * isolate's budget; else for what the budget leaves beside the rest of the call, when that holds
 * a photo's, and the file is held to it (a denser picture fails with image_too_large, refunded);
 * else the densest price stands and the limit refuses the call before the charge.
 */
export function avifCellsCost(input: InputFormat, inputBytes: number, source: number, width: number, height: number, quality: number, decode = 0): AvifCellsCost {
  const { columns, cellWidth, cellHeight } = cellGrid(width, height);
  const pixels = Math.max(1, width * height);
  const band = width * cellHeight * 4;
  const cell = columns === 1 && cellWidth === width ? 0 : cellWidth * cellHeight * 4;
  const base = source + (ENCODER_BYTES + band + cell) / pixels;
  const priced = (filePerPixel: number): AvifCellsCost => ({ bytesPerPixel: Math.max(decode, base + FILE_COPIES * filePerPixel), fileBytes: Math.floor(filePerPixel * pixels) });
  const densest = priced(atQuality(DENSEST, quality));
  if (maxRecodePixels(input, "avif", densest.bytesPerPixel, inputBytes) >= pixels) return densest;
  const room = (bytesLeftBeside(input, base, inputBytes, pixels) * ROOM_USED) / FILE_COPIES / pixels;
  return room >= atQuality(PHOTO, quality) ? priced(room) : densest;
}
