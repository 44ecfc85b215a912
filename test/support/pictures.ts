import type { RasterImage } from "../../src/codecs/index.ts";

// Pictures the model-tool tests send: a subject on a plain background, as a photo studio would
// give a cut-out model, and a busy one with no background to find.

/** A dark red disc (radius 30% of the short side) on a light grey-blue background. */
export function discOnPlainBackground(width: number, height: number): RasterImage {
  const data = new Uint8ClampedArray(width * height * 4);
  const radius = Math.min(width, height) * 0.3;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = Math.hypot(x + 0.5 - width / 2, y + 0.5 - height / 2) < radius;
      data.set(inside ? [170, 20, 30, 255] : [215, 225, 235, 255], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

/** Every pixel a different hash colour: nothing is background. */
export function noise(width: number, height: number): RasterImage {
  const data = new Uint8ClampedArray(width * height * 4);
  let state = 12345;
  for (let i = 0; i < data.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      state = (state * 1103515245 + 12345) >>> 0;
      data[i + c] = state >>> 24;
    }
    data[i + 3] = 255;
  }
  return { width, height, data };
}

export function alphaAt(image: RasterImage, x: number, y: number): number {
  return image.data[(y * image.width + x) * 4 + 3]!;
}
