import type { RasterImage } from "../codecs";
import { fitSide } from "./shrink";

// shrinkToFit's box filter (shrink.ts) for a picture too large to hold: its rows are added one
// at a time, in any order (a PNG read top to bottom as it arrives, a BMP's rows bottom up), and
// what is held is the output's sums, not the source. For the MCP previews of large results
// (mcp/preview.ts). Each output pixel averages the source pixels it covers, colours weighted by
// alpha so transparent pixels lend no colour to an edge: the same pixels shrinkToFit makes.


/**
 * The box-filter reduction of a `width` x `height` source fed row by row (RGBA, 4 bytes a pixel),
 * each row once, in any order. Holds four 32-bit sums per output pixel (4 MB at 512 x 512).
 */
export class ShrinkRows {
  readonly width: number;
  readonly height: number;
  /** Per output pixel: alpha-weighted red, green, blue, and alpha. */
  private readonly sums: Uint32Array;
  /** Output column of each source column, output row of each source row. */
  private readonly column: Int32Array;
  private readonly row: Int32Array;
  /** Source pixels per output pixel: the widths and heights of the boxes. */
  private readonly boxWidth: Int32Array;
  private readonly boxHeight: Int32Array;

  constructor(
    readonly sourceWidth: number,
    readonly sourceHeight: number,
    maxSide: number,
  ) {
    const size = fitSide(sourceWidth, sourceHeight, maxSide); // as shrinkToFit sizes it
    this.width = size.width;
    this.height = size.height;
    this.sums = new Uint32Array(this.width * this.height * 4);
    [this.column, this.boxWidth] = boxes(sourceWidth, this.width);
    [this.row, this.boxHeight] = boxes(sourceHeight, this.height);
  }

  /** Adds source row `y` (sourceWidth RGBA pixels). */
  addRow(y: number, rgba: Uint8Array | Uint8ClampedArray): void {
    const out = this.row[y]!;
    if (out < 0) return;
    const sums = this.sums;
    const base = out * this.width * 4;
    const column = this.column;
    for (let x = 0, i = 0; x < this.sourceWidth; x++, i += 4) {
      const o = column[x]!;
      if (o < 0) continue;
      const at = base + o * 4;
      const alpha = rgba[i + 3]!;
      sums[at] = sums[at]! + rgba[i]! * alpha;
      sums[at + 1] = sums[at + 1]! + rgba[i + 1]! * alpha;
      sums[at + 2] = sums[at + 2]! + rgba[i + 2]! * alpha;
      sums[at + 3] = sums[at + 3]! + alpha;
    }
  }

  /** The shrunk image from the rows added. */
  result(): RasterImage {
    const out = new Uint8ClampedArray(this.width * this.height * 4);
    for (let y = 0; y < this.height; y++) {
      for (let x = 0; x < this.width; x++) {
        const o = (y * this.width + x) * 4;
        const a = this.sums[o + 3]!;
        if (a > 0) {
          out[o] = this.sums[o]! / a;
          out[o + 1] = this.sums[o + 1]! / a;
          out[o + 2] = this.sums[o + 2]! / a;
        }
        out[o + 3] = a / (this.boxWidth[x]! * this.boxHeight[y]!);
      }
    }
    return { width: this.width, height: this.height, data: out };
  }
}

/**
 * Output index of each of `source` positions and the size of each of `target` boxes: box k
 * covers [floor(k * source / target), max(start + 1, floor((k + 1) * source / target))); a
 * position no box covers maps to -1.
 */
function boxes(source: number, target: number): [Int32Array, Int32Array] {
  const of = new Int32Array(source).fill(-1);
  const size = new Int32Array(target);
  for (let k = 0; k < target; k++) {
    const start = Math.floor((k * source) / target);
    const end = Math.max(start + 1, Math.floor(((k + 1) * source) / target));
    size[k] = end - start;
    for (let s = start; s < end; s++) of[s] = k;
  }
  return [of, size];
}
