// AVIF for pictures larger than libavif can encode whole in the isolate's memory: the picture is
// cut into equal cells, each encoded on its own by the same libavif instance (avif.ts
// avifEncoder) and stored as one item of a grid AVIF (avif-grid.ts). The picture's rows come
// from a row source (a JPEG, PNG or WebP file's rows: native.ts rgbaRows; a HEIC's strips:
// plane-rows.ts) one band of cells at a time, so neither the picture nor its RGBA raster is
// ever whole: what is held is one band of rows, one cell, the encoder's memory for one cell, and
// the cells' AV1 data written so far.
//
// Cells: the fewest equal ones within CELL_SIDES, even sides of at least 64 (MIAF's least
// tile). The last row and column of cells reach past the picture: their missing pixels repeat
// its edge, and the grid is cropped to the picture's size. Cells are coded apart, so at quality 50 a seam can show
// where two meet on a smooth gradient; speed and memory are why (docs/codecs.md).

import { PixelgateError } from "../errors.ts";
import { avifEncoder } from "./avif.ts";
import { readAvifCell, writeGridAvif, type AvifCell, type AvifHead, type GridShape } from "./avif-grid.ts";
import type { RgbaRows } from "./native.ts";

/** The most a cell's sides may be (the picture is cut into the fewest equal cells within them): libavif's memory and time follow its size (docs/codecs.md). */
export const CELL_SIDES = { width: 1024, height: 512 };
const MIN_CELL_SIDE = 64;

export interface CellGrid extends GridShape {
  cellWidth: number;
  cellHeight: number;
  /**
   * How the cells sample chroma: 4:2:0, the convert setting; a picture of odd width or height
   * 4:4:4, since MIAF lets a 4:2:0 grid only have even sides (libavif refuses any other).
   */
  chroma: "4:2:0" | "4:4:4";
}

const even = (n: number) => Math.ceil(n / 2) * 2;

/** How a width x height picture is cut into cells. */
export function cellGrid(width: number, height: number): CellGrid {
  const [columns, rows] = [Math.ceil(width / CELL_SIDES.width), Math.ceil(height / CELL_SIDES.height)];
  const cellWidth = Math.max(MIN_CELL_SIDE, even(Math.ceil(width / columns)));
  const cellHeight = Math.max(MIN_CELL_SIDE, even(Math.ceil(height / rows)));
  const chroma = width % 2 === 0 && height % 2 === 0 ? "4:2:0" : "4:4:4";
  return { width, height, columns, rows, cellWidth, cellHeight, chroma };
}

/**
 * The picture `source` hands out, as a grid AVIF at `quality`: the file's pieces. `fileBytes`:
 * the most AV1 data the call was priced for (avif-cells-cost.ts); past it, image_too_large.
 */
export async function encodeAvifCells(source: RgbaRows, quality: number, fileBytes = Infinity): Promise<Uint8Array[]> {
  const grid = cellGrid(source.width, source.height);
  const { width, height, columns, rows, cellWidth, cellHeight } = grid;
  const encode = await avifEncoder(quality, grid.chroma);
  const rowBytes = width * 4;
  const band = new Uint8ClampedArray(rowBytes * cellHeight);
  // One column of cells as wide as the picture: the band is the cell.
  const cell = columns === 1 && cellWidth === width ? band : new Uint8ClampedArray(cellWidth * cellHeight * 4);
  const cells: AvifCell[] = [];
  let head: AvifHead | undefined;
  let written = 0;
  for (let row = 0; row < rows; row++) {
    const n = Math.min(cellHeight, height - row * cellHeight);
    source.read(band, n);
    for (let y = n; y < cellHeight; y++) band.copyWithin(y * rowBytes, (n - 1) * rowBytes, n * rowBytes);
    for (let column = 0; column < columns; column++) {
      if (cell !== band) cutCell(band, width, column * cellWidth, cell, cellWidth, cellHeight);
      const { ftyp, hdlr, ...coded } = readAvifCell(encode({ width: cellWidth, height: cellHeight, data: cell }));
      head ??= { ftyp, hdlr };
      cells.push(coded);
      written += coded.payload.length;
      if (written > fileBytes) throw new PixelgateError("image_too_large", "At this quality the AVIF of this picture would need more memory than the worker has (its detail was not in the upload's size); a lower quality or a smaller image fits.", { param: "image" });
    }
    // Other requests in the isolate run between cells (each takes a second or so).
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return writeGridAvif(head!, grid, cells);
}

/** The cell at column `left` of `band` into `cell`, its columns past the picture's edge repeating the last pixel. */
function cutCell(band: Uint8ClampedArray, width: number, left: number, cell: Uint8ClampedArray, cellWidth: number, cellHeight: number): void {
  const inside = Math.min(cellWidth, width - left);
  for (let y = 0; y < cellHeight; y++) {
    const from = (y * width + left) * 4;
    const to = y * cellWidth * 4;
    cell.set(band.subarray(from, from + inside * 4), to);
    for (let x = inside; x < cellWidth; x++) cell.copyWithin(to + x * 4, to + (inside - 1) * 4, to + inside * 4);
  }
}
