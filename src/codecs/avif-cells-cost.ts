// What writing a grid AVIF (avif-cells.ts) costs a call, as bytes per pixel of its picture, for
// the route table's AVIF rows (route-table.ts): the row source's own memory (`source`, from
// recode-cost.ts), and beside it what the cells need, which follows the cells' size more than
// the picture's: libavif's instance for one cell, the band of RGBA rows and the cell in
// JavaScript, and the AV1 data written so far. Measured with the memory child of
// `npm run bench:codecs` (docs/codecs.md, "AVIF as a grid of cells").

import { cellGrid, type CellGrid } from "./avif-cells.ts";
import type { InputFormat } from "./formats.ts";
import { bytesLeftBeside, maxRecodePixels } from "./limits.ts";
import { atQuality, type Price } from "./recode-cost.ts";

const MiB = 1024 * 1024;

/**
 * What the cells cost by their chroma sampling (avif-cells.ts CellGrid.chroma), measured on
 * 1024x512 cells at speed 8, a photo and binary noise (every sample 0 or 255), qualities 1 to 100:
 *
 * - `encoderBytes`: libavif's WASM memory for one cell: 23 MiB at 4:2:0 for either picture at
 *   every quality but noise at 90 and 100 (24 and 26); 31 to 35 MiB at 4:4:4 (16 MiB for a
 *   512x512 cell at 4:2:0), with a MiB to spare.
 * - `densest`: the most AV1 data a pixel makes at a quality, binary noise's: at 4:2:0 0.10 bytes
 *   at quality 1, 0.49 at 30, 0.72 at 50, 0.93 at 70, 1.29 at 90, 2.06 at 100; at 4:4:4 0.28,
 *   1.06, 1.52, 1.95, 2.72 and 3.14; these with 5% to spare, linear between.
 * - `photo`: the least a pixel is let try with when the densest picture's data would not fit
 *   beside the rest of the call: a photo's, three times over (the 1024x512 cut of the bench's
 *   photo at 4:2:0: 0.008 at 30, 0.025 at 50, 0.079 at 70, 0.29 at 90, 0.65 at 100; 4:4:4 alike
 *   but 1.62 at 100; the 12 MP and 24 MP photos whole, 0.015 and 0.014 at 50). Below it the call
 *   is refused before the charge.
 */
const CHROMA_COSTS = {
  "4:2:0": {
    encoderBytes: 27 * MiB,
    densest: [[1, 0.11], [30, 0.52], [50, 0.76], [70, 0.98], [90, 1.36], [100, 2.17]],
    photo: [[30, 0.025], [50, 0.075], [70, 0.24], [90, 0.87], [100, 1.95]],
  },
  "4:4:4": {
    encoderBytes: 36 * MiB,
    densest: [[1, 0.3], [30, 1.12], [50, 1.6], [70, 2.05], [90, 2.86], [100, 3.3]],
    photo: [[30, 0.03], [50, 0.085], [70, 0.26], [90, 0.91], [100, 3.3]],
  },
} as const satisfies Record<CellGrid["chroma"], { encoderBytes: number; densest: readonly (readonly [number, number])[]; photo: readonly (readonly [number, number])[] }>;

/**
 * The cells are held as they were written, then sent as those pieces; the answer's writing
 * holds about as much again.
 */
const FILE_COPIES = 2;

/** The share of what the budget leaves that the file may take: the rest keeps rounding from tipping the limit. */
const ROOM_USED = 0.99;

/** What a grid AVIF call is priced at, and the most AV1 data it may then write (avif-cells.ts enforces it). */
export interface AvifCellsCost {
  bytesPerPixel: number;
  fileBytes: number;
}

/**
 * A width x height picture (`input`, an upload of `inputBytes`) written as a grid AVIF at
 * `quality` on a route priced `route` besides (its floor, fixed part and upload: the table's
 * terms), its rows from a source that holds `source` bytes a pixel while the cells are
 * encoded; `decode`: what making those rows cost before the first cell (a whole HEIC decoded
 * first), when that is more. Priced for the densest picture's AV1 data when that fits the
 * isolate's budget; else for what the budget leaves beside the rest of the call, when that holds
 * a photo's, and the file is held to it (a denser picture fails with image_too_large, refunded);
 * else the densest price stands and the limit refuses the call before the charge.
 */
export function avifCellsCost(route: Price, input: InputFormat, inputBytes: number, source: number, width: number, height: number, quality: number, decode = 0): AvifCellsCost {
  const { columns, cellWidth, cellHeight, chroma } = cellGrid(width, height);
  const costs = CHROMA_COSTS[chroma];
  const pixels = Math.max(1, width * height);
  const band = width * cellHeight * 4;
  const cell = columns === 1 && cellWidth === width ? 0 : cellWidth * cellHeight * 4;
  const base = source + (costs.encoderBytes + band + cell) / pixels;
  const priced = (filePerPixel: number): AvifCellsCost => ({ bytesPerPixel: Math.max(decode, base + FILE_COPIES * filePerPixel), fileBytes: Math.floor(filePerPixel * pixels) });
  const densest = priced(atQuality(costs.densest, quality));
  const withCells = (perPixel: number): Price => ({ ...route, perPixel: route.perPixel + perPixel });
  if (maxRecodePixels(input, withCells(densest.bytesPerPixel), inputBytes) >= pixels) return densest;
  const room = (bytesLeftBeside(withCells(base), inputBytes, pixels) * ROOM_USED) / FILE_COPIES / pixels;
  return room >= atQuality(costs.photo, quality) ? priced(room) : densest;
}
