import type { Paint, Rgb } from "../../raster/coverage.ts";

// Colours for the SVG preview: hex, rgb(), the common names, and gradients (url(#id)) drawn as
// a vertical blend of their first and last stops. Anything else paints nothing.

const NAMED: Record<string, Rgb> = {
  black: [0, 0, 0], white: [255, 255, 255], red: [255, 0, 0], green: [0, 128, 0], blue: [0, 0, 255], yellow: [255, 255, 0],
  orange: [255, 165, 0], purple: [128, 0, 128], gray: [128, 128, 128], grey: [128, 128, 128], pink: [255, 192, 203],
  brown: [165, 42, 42], gold: [255, 215, 0], navy: [0, 0, 128], teal: [0, 128, 128], silver: [192, 192, 192],
};

export function parseColor(text: string | undefined): Rgb | null {
  const value = (text ?? "").trim().toLowerCase();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(value)?.[1];
  if (hex) {
    const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join("") : hex;
    return [0, 2, 4].map((at) => Number.parseInt(full.slice(at, at + 2), 16)) as unknown as Rgb;
  }
  const rgb = /^rgba?\(\s*([\d.]+)%?\s*,?\s*([\d.]+)%?\s*,?\s*([\d.]+)%?/.exec(value);
  if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])].map((part) => Math.min(255, Math.round(part))) as unknown as Rgb;
  return NAMED[value] ?? (value === "currentcolor" ? NAMED.black! : null);
}

/** Gradient id to its stop colours, in order. */
export type Gradients = Map<string, Rgb[]>;

export function paintOf(value: string | undefined, opacity: number, gradients: Gradients): Paint | null {
  if (opacity <= 0) return null;
  const ref = /^url\(\s*#([^)\s]+)\s*\)/.exec((value ?? "").trim())?.[1];
  if (ref) {
    const stops = gradients.get(ref);
    return stops && stops.length > 0 ? { top: stops[0]!, bottom: stops[stops.length - 1]!, opacity } : null;
  }
  const color = parseColor(value);
  return color ? { top: color, bottom: color, opacity } : null;
}
