// YCbCr 4:2:0 strips (a HEIC decoded a row of tiles at a time: heic-tiles.ts) read as RGBA
// rows, for the encoders that take RGBA (libavif: avif-cells.ts). Each chroma sample serves its
// 2x2 luma samples (as native/planes_sink.c pg_planes_rgba converts them for the PNG writer),
// so an encoder that averages them back down to 4:2:0 gets the file's own chroma again.

import type { PlanesEncoding, PlaneStrip, RgbaRows } from "./native.ts";

/**
 * `strips` (top to bottom, `width` wide, `height` rows in all, each starting on an even row) as
 * RGBA rows, opaque, converted with the planes' own matrix and range. A strip is read to its end
 * before the next is asked for (heic-tiles.ts reuses a strip's planes for the next).
 */
export function planeStripRows(width: number, height: number, encoding: PlanesEncoding, strips: Iterable<PlaneStrip>): RgbaRows {
  const { kr, kb, fullRange } = encoding;
  const kg = 1 - kr - kb;
  // Codes to full-range values: luma from black, chroma from its middle.
  const [black, lumaScale, chromaScale] = fullRange ? [0, 1, 1] : [16, 255 / 219, 255 / 224];
  const [crToR, cbToB] = [2 * (1 - kr) * chromaScale, 2 * (1 - kb) * chromaScale];
  const [cbToG, crToG] = [(-2 * kb * (1 - kb) * chromaScale) / kg, (-2 * kr * (1 - kr) * chromaScale) / kg];
  const next = strips[Symbol.iterator]();
  let strip: PlaneStrip | undefined;
  let row = 0;
  return {
    width,
    height,
    read(into, rows) {
      for (let k = 0; k < rows; k++, row++) {
        if (!strip || row === strip.height) {
          const step = next.next();
          if (step.done) throw new Error("The picture's strips ended early.");
          [strip, row] = [step.value, 0];
        }
        const { y, cb, cr } = strip;
        const [luma, blue, red] = [row * y.stride, (row >> 1) * cb.stride, (row >> 1) * cr.stride];
        // A clamped array rounds and clamps each value it is given.
        for (let x = 0, at = k * width * 4; x < width; x++, at += 4) {
          const l = (y.data[luma + x]! - black) * lumaScale;
          const [u, v] = [cb.data[blue + (x >> 1)]! - 128, cr.data[red + (x >> 1)]! - 128];
          into[at] = l + crToR * v;
          into[at + 1] = l + cbToG * u + crToG * v;
          into[at + 2] = l + cbToB * u;
          into[at + 3] = 255;
        }
      }
    },
  };
}
