// Premultiplied alpha for filters that mix neighbouring pixels (blur, sharpen, the upscaler).
// Averaging straight RGBA lets the colour stored under a transparent pixel (often black or
// whatever the editor left there) bleed into its visible neighbours; weighting each colour by
// its alpha first makes a transparent pixel contribute nothing, whatever colour it stores.

/** RGBA as floats with colour multiplied by alpha: (r*a/255, g*a/255, b*a/255, a). */
export function premultiply(data: Uint8ClampedArray): Float32Array {
  const out = new Float32Array(data.length);
  premultiplyInto(data, out);
  return out;
}

/** premultiply into `out` (as long as `data`): a row at a time, for the upscaler. */
export function premultiplyInto(data: Uint8ClampedArray, out: Float32Array): void {
  for (let i = 0; i < data.length; i += 4) {
    const k = data[i + 3]! / 255;
    out[i] = data[i]! * k;
    out[i + 1] = data[i + 1]! * k;
    out[i + 2] = data[i + 2]! * k;
    out[i + 3] = data[i + 3]!;
  }
}

/**
 * Back to straight 8-bit RGBA. Alpha is clamped to 0..255 and colour to 0..alpha first, so the
 * overshoot of a filter with negative lobes cannot produce a colour brighter than its coverage
 * allows; a pixel whose alpha rounds to 0 becomes transparent black.
 */
export function unpremultiplyInto(src: Float32Array, out: Uint8ClampedArray): void {
  for (let i = 0; i < src.length; i += 4) {
    const a = src[i + 3]!;
    if (a < 0.5) {
      out[i] = out[i + 1] = out[i + 2] = out[i + 3] = 0;
      continue;
    }
    const alpha = a > 255 ? 255 : a;
    const k = 255 / alpha;
    out[i] = clampTo(src[i]!, alpha) * k;
    out[i + 1] = clampTo(src[i + 1]!, alpha) * k;
    out[i + 2] = clampTo(src[i + 2]!, alpha) * k;
    out[i + 3] = alpha;
  }
}

function clampTo(value: number, max: number): number {
  return value < 0 ? 0 : value > max ? max : value;
}
