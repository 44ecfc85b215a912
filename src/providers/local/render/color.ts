// Colour arithmetic for the local renderers: 8-bit sRGB triples, mixed and shifted in HSL,
// which is crude but predictable ("pastel" = towards white, "neon" = full saturation).

import type { Rgb } from "../../../raster/coverage.ts";

export type { Rgb };

const clampByte = (v: number): number => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [clampByte(a[0] + (b[0] - a[0]) * t), clampByte(a[1] + (b[1] - a[1]) * t), clampByte(a[2] + (b[2] - a[2]) * t)];
}

export const WHITE: Rgb = [255, 255, 255];
export const BLACK: Rgb = [0, 0, 0];

export function lighten(c: Rgb, t: number): Rgb {
  return mix(c, WHITE, t);
}

export function darken(c: Rgb, t: number): Rgb {
  return mix(c, BLACK, t);
}

/** Relative luminance in [0, 1] (Rec. 709 weights on gamma-encoded values; good enough to rank). */
export function luminance(c: Rgb): number {
  return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
}

/** Euclidean RGB distance, 0..441: how far apart two colours look, roughly. */
export function distance(a: Rgb, b: Rgb): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

export function toHsl(c: Rgb): [number, number, number] {
  const r = c[0] / 255;
  const g = c[1] / 255;
  const b = c[2] / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return [h * 60, s, l];
}

export function fromHsl(h: number, s: number, l: number): Rgb {
  const hue = (((h % 360) + 360) % 360) / 360;
  const sat = Math.min(1, Math.max(0, s));
  const lig = Math.min(1, Math.max(0, l));
  if (sat === 0) return [clampByte(lig * 255), clampByte(lig * 255), clampByte(lig * 255)];
  const q = lig < 0.5 ? lig * (1 + sat) : lig + sat - lig * sat;
  const p = 2 * lig - q;
  const channel = (t: number): number => {
    const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (u < 1 / 6) return p + (q - p) * 6 * u;
    if (u < 1 / 2) return q;
    if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
    return p;
  };
  return [clampByte(channel(hue + 1 / 3) * 255), clampByte(channel(hue) * 255), clampByte(channel(hue - 1 / 3) * 255)];
}

/** Shifts hue (degrees), and scales saturation and lightness towards their limits by the given amounts. */
export function adjust(c: Rgb, hueShift: number, saturation: number, lightness: number): Rgb {
  const [h, s, l] = toHsl(c);
  return fromHsl(h + hueShift, s + saturation, l + lightness);
}

export function toHex(c: Rgb): string {
  return "#" + c.map((v) => clampByte(v).toString(16).padStart(2, "0")).join("");
}
