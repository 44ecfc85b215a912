// What writing a grid AVIF (avif-cells.ts) costs a call, as bytes per pixel of its picture, for
// the route table's AVIF rows (route-table.ts): the row source's own memory (`source`, from
// recode-cost.ts), and beside it what the cells need, which follows the cells' size more than
// the picture's: libavif's instance for one cell, the band of RGBA rows and the cell in
// JavaScript, and the AV1 data written so far. Measured with the memory child of
// `npm run bench:codecs` (docs/codecs.md, "AVIF as a grid of cells").

import { cellGrid } from "./avif-cells.ts";
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
 * Bytes per pixel of a width x height picture written as a grid AVIF at `quality`, its rows from
 * a source that holds `source` bytes a pixel while the cells are encoded; `decode`: what making
 * those rows cost before the first cell (a whole HEIC decoded first), when that is more.
 */
export function avifCellsBytesPerPixel(source: number, width: number, height: number, quality: number, decode = 0): number {
  const { columns, cellWidth, cellHeight } = cellGrid(width, height);
  const pixels = Math.max(1, width * height);
  const band = width * cellHeight * 4;
  const cell = columns === 1 && cellWidth === width ? 0 : cellWidth * cellHeight * 4;
  const cells = source + FILE_COPIES * atQuality(DENSEST, quality) + (ENCODER_BYTES + band + cell) / pixels;
  return Math.max(decode, cells);
}
