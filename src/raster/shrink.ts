import type { RasterImage } from "../codecs";

// Shrinking an image to fit a size: for MCP previews (mcp/preview.ts) and for model inputs that
// must stay under a provider's size (providers/accepted-inputs.ts). A box filter: each output
// pixel averages the source pixels it covers, colours weighted by alpha so transparent pixels
// lend no colour to the edge. The source arrives a row at a time, in any order (ShrinkRows), so
// a picture too large to decode whole (an 8192 x 8192 upscale) can be shrunk from its rows as a
// reader hands them out; what is held is the output's sums, not the source.

/** The size `width` x `height` shrinks to within `maxSide` on its long side (never enlarged). */
export function shrunkSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  if (scale === 1) return { width, height };
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Box-filter reduction of a whole raster. */
export function shrinkToFit(image: RasterImage, maxSide: number): RasterImage {
  const size = shrunkSize(image.width, image.height, maxSide);
  if (size.width === image.width && size.height === image.height) return image;
  const shrink = new ShrinkRows(image.width, image.height, maxSide);
  const rowBytes = image.width * 4;
  for (let y = 0; y < image.height; y++) shrink.addRow(y, image.data.subarray(y * rowBytes, (y + 1) * rowBytes));
  return shrink.result();
}

/**
 * The box-filter reduction of a `width` x `height` source fed row by row (RGBA, 4 bytes a pixel),
 * each row once, in any order. Holds five 32-bit sums per output pixel (1.3 MB at 512 x 512).
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
    const size = shrunkSize(sourceWidth, sourceHeight, maxSide);
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
