import type { RasterImage } from "../codecs";

// Shrinking a picture to fit a size with a box filter: each output pixel averages the source
// pixels it covers, colours weighted by alpha so transparent pixels lend no colour to an edge.
// For MCP previews (mcp/preview.ts), for model inputs that must stay under a provider's size
// (providers/accepted-inputs.ts) and for the local models' working copies. The source arrives as
// bands of rows top to bottom (codecs/picture-rows.ts), so a 24 MP photo is shrunk without ever
// being whole: only one output row's sums are held besides the output. (shrink-rows.ts takes
// rows in any order, holding every output pixel's sums: the MCP previews of large results.)

/** The size `width` x `height` shrinks to so that its longer side is at most `maxSide` (never enlarged). */
export function fitSide(width: number, height: number, maxSide: number): { width: number; height: number } {
  return scaled(width, height, Math.min(1, maxSide / Math.max(width, height)));
}

/** The size `width` x `height` shrinks to so that it has at most `maxPixels` pixels (never enlarged). */
export function fitPixels(width: number, height: number, maxPixels: number): { width: number; height: number } {
  const size = scaled(width, height, Math.min(1, Math.sqrt(maxPixels / (width * height))));
  // Rounding may pass the budget by a row or a column: take it back.
  while (size.width * size.height > maxPixels && (size.width > 1 || size.height > 1)) {
    if (size.width >= size.height) size.width--;
    else size.height--;
  }
  return size;
}

function scaled(width: number, height: number, scale: number): { width: number; height: number } {
  if (scale >= 1) return { width, height };
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Box-filter reduction of a whole raster so its longer side is at most `maxSide`. */
export function shrinkToFit(image: RasterImage, maxSide: number): RasterImage {
  const size = fitSide(image.width, image.height, maxSide);
  if (size.width === image.width && size.height === image.height) return image;
  return shrinkBands([image], image.width, image.height, size.width, size.height);
}

/**
 * Bands of a `width` x `height` picture (top to bottom) shrunk to `outWidth` x `outHeight`
 * (each at most the source's) by the box filter, as one raster.
 */
export function shrinkBands(bands: Iterable<RasterImage>, width: number, height: number, outWidth: number, outHeight: number): RasterImage {
  const out = new Uint8ClampedArray(outWidth * outHeight * 4);
  let at = 0;
  for (const row of shrunkRows(bands, width, height, outWidth, outHeight)) {
    out.set(row.data, at);
    at += row.data.length;
  }
  return { width: outWidth, height: outHeight, data: out };
}

/**
 * The same, an output row at a time as soon as its source rows have gone by: nothing but one
 * row's sums is held, so a picture can be shrunk on its way to an encoder.
 */
export function* shrunkRows(bands: Iterable<RasterImage>, width: number, height: number, outWidth: number, outHeight: number): Generator<RasterImage> {
  // Source column -> output column, and how many source columns each output column covers.
  const columnOf = new Uint32Array(width);
  const columns = new Uint32Array(outWidth);
  for (let x = 0; x < outWidth; x++) {
    const x0 = Math.floor((x * width) / outWidth);
    const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * width) / outWidth));
    for (let sx = x0; sx < x1 && sx < width; sx++) columnOf[sx] = x;
    columns[x] = x1 - x0;
  }
  const sums = new Float64Array(outWidth * 4);
  let y = 0; // output row being summed
  let rowEnd = Math.max(1, Math.floor(height / outHeight)); // its first source row past it
  let rowsIn = 0;
  let sy = 0;
  for (const band of bands) {
    const { data } = band;
    for (let r = 0; r < band.height; r++, sy++) {
      for (let sx = 0, i = r * width * 4; sx < width; sx++, i += 4) {
        const alpha = data[i + 3]!;
        const s = columnOf[sx]! * 4;
        sums[s] = sums[s]! + data[i]! * alpha;
        sums[s + 1] = sums[s + 1]! + data[i + 1]! * alpha;
        sums[s + 2] = sums[s + 2]! + data[i + 2]! * alpha;
        sums[s + 3] = sums[s + 3]! + alpha;
      }
      rowsIn++;
      if (sy + 1 === rowEnd) {
        yield { width: outWidth, height: 1, data: averagedRow(sums, columns, rowsIn) };
        sums.fill(0);
        rowsIn = 0;
        y++;
        rowEnd = y < outHeight ? Math.max(rowEnd + 1, Math.floor(((y + 1) * height) / outHeight)) : height + 1;
      }
    }
  }
  if (y !== outHeight) throw new Error(`Shrinking ended at row ${y} of ${outHeight}.`);
}

function averagedRow(sums: Float64Array, columns: Uint32Array, rows: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(columns.length * 4);
  for (let x = 0, s = 0; x < columns.length; x++, s += 4) {
    const a = sums[s + 3]!;
    if (a > 0) {
      out[s] = sums[s]! / a;
      out[s + 1] = sums[s + 1]! / a;
      out[s + 2] = sums[s + 2]! / a;
    }
    out[s + 3] = a / (rows * columns[x]!);
  }
  return out;
}
