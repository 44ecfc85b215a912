// What writing a grid AVIF (avif-cells.ts) costs a call, as bytes per pixel of its picture, for
// the route table's AVIF rows (route-table.ts): the row source's own memory (`source`, from
// recode-cost.ts), and beside it what the cells need, which follows the cells' size more than
// the picture's: libavif's instance for one cell, the band of RGBA rows and the cell in
// JavaScript, and the AV1 data written so far. Its figures are the cost table's
// (route-costs.json `avifCells`), measured with the memory child of `npm run bench:codecs`
// (docs/codecs.md, "AVIF as a grid of cells").

import { cellGrid } from "./avif-cells.ts";
import type { InputFormat } from "./formats.ts";
import { bytesLeftBeside, maxRecodePixels } from "./limits.ts";
import { atQuality, ROUTE_COSTS, type Price } from "./recode-cost.ts";

const MiB = 1024 * 1024;

/**
 * What the cells cost by their chroma sampling (avif-cells.ts CellGrid.chroma), from the cost
 * table (route-costs.json `avifCells`; docs/codecs.md says where each figure was measured):
 * libavif's instance for one cell, the densest picture's AV1 data a pixel by quality, and a
 * photo's (the least a pixel is let try with). `fileCopies`: the cells are held as they were
 * written, then sent as those pieces, and the answer's writing holds about as much again;
 * `roomUsed`: the share of what the budget leaves that the file may take (the rest keeps
 * rounding from tipping the limit).
 */
const CELLS = ROUTE_COSTS.avifCells;

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
  const costs = CELLS.chroma[chroma];
  const pixels = Math.max(1, width * height);
  const band = width * cellHeight * 4;
  const cell = columns === 1 && cellWidth === width ? 0 : cellWidth * cellHeight * 4;
  const base = source + (costs.encoderMiB * MiB + band + cell) / pixels;
  const priced = (filePerPixel: number): AvifCellsCost => ({ bytesPerPixel: Math.max(decode, base + CELLS.fileCopies * filePerPixel), fileBytes: Math.floor(filePerPixel * pixels) });
  const densest = priced(atQuality(costs.densest, quality));
  const withCells = (perPixel: number): Price => ({ ...route, perPixel: route.perPixel + perPixel });
  if (maxRecodePixels(input, withCells(densest.bytesPerPixel), inputBytes) >= pixels) return densest;
  const room = (bytesLeftBeside(withCells(base), inputBytes, pixels) * CELLS.roomUsed) / CELLS.fileCopies / pixels;
  return room >= atQuality(costs.photo, quality) ? priced(room) : densest;
}
