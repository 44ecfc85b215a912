// Backgrounds and film grain. The background is a smooth linear gradient (no texture) so that
// a subject drawn on it can be cut out again by estimating the background from the border.
// Grain is only added when the prompt asks for it.

import type { Rgb } from "../color.ts";
import { packOpaque, type Canvas } from "../../../../raster/coverage.ts";

/** Fills the whole canvas, opaque, blending `from` to `to` along the direction `angle` (radians). */
export function fillLinearGradient(canvas: Canvas, from: Rgb, to: Rgb, angle: number): void {
  const { width, height, pixels } = canvas;
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  // Project the corners on the direction so t runs exactly 0..1 across the canvas.
  const projections = [0, width * dx, height * dy, width * dx + height * dy];
  const min = Math.min(...projections);
  const span = Math.max(1e-6, Math.max(...projections) - min);
  // t in 16.16 fixed point and a table of the 4097 colours t can select (12 bits of t is finer
  // than 8-bit colour can show): one table load and one word store per pixel.
  const lut = new Uint32Array(4097);
  for (let i = 0; i <= 4096; i++) {
    const t = i / 4096;
    lut[i] = packOpaque(Math.round(from[0] + (to[0] - from[0]) * t), Math.round(from[1] + (to[1] - from[1]) * t), Math.round(from[2] + (to[2] - from[2]) * t));
  }
  const step = Math.round((dx / span) * 65536);
  let p = 0;
  for (let y = 0; y < height; y++) {
    let t = Math.round(((0.5 * dx + (y + 0.5) * dy - min) / span) * 65536);
    for (let x = 0; x < width; x++, p++, t += step) pixels[p] = lut[t < 0 ? 0 : t > 65535 ? 4096 : (t + 8) >> 4]!;
  }
}

/** Deterministic luminance noise of +-amount, from an integer hash of (x, y, seed). */
export function addGrain(canvas: Canvas, amount: number, seed: number): void {
  const { width, height, data } = canvas;
  let o = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++, o += 4) {
      let h = Math.imul(x, 374761393) + Math.imul(y, 668265263) + seed;
      h = Math.imul(h ^ (h >>> 13), 1274126177);
      h ^= h >>> 16;
      const n = (((h & 0xff) - 128) * amount) >> 7;
      data[o] = data[o]! + n;
      data[o + 1] = data[o + 1]! + n;
      data[o + 2] = data[o + 2]! + n;
    }
  }
}
