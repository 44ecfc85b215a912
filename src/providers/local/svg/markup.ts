// Writing SVG markup in exactly the canonical form the sanitiser (src/svg) serialises: attributes
// in the order given, double quotes, empty elements self-closed, no whitespace between
// elements. So composer output survives sanitizeSvg byte for byte, which the tests check.

import { toHex, type Rgb } from "../render/color.ts";
import type { Part } from "../render/shapes.ts";

export type Attrs = Record<string, string | number | undefined>;

export function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function escapeAttr(value: string): string {
  return escapeText(value).replace(/"/g, "&quot;");
}

/** Coordinates to one decimal: plenty at 512 units, and short. */
export function num(v: number): string {
  const rounded = Math.round(v * 10) / 10;
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

export function element(name: string, attrs: Attrs, children: string[] = []): string {
  let out = `<${name}`;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    out += ` ${key}="${escapeAttr(typeof value === "number" ? num(value) : value)}"`;
  }
  return children.length === 0 ? `${out}/>` : `${out}>${children.join("")}</${name}>`;
}

export const hex = (c: Rgb): string => toHex(c);

function pathData(points: readonly number[]): string {
  let d = "";
  for (let i = 0; i < points.length; i += 2) d += `${i === 0 ? "M" : "L"}${num(points[i]!)} ${num(points[i + 1]!)}`;
  return d + "Z";
}

/** One placed part as its natural element; `paint` holds fill/stroke attributes. */
export function partElement(part: Part, paint: Attrs): string {
  switch (part.kind) {
    case "circle":
      return element("circle", { cx: part.cx, cy: part.cy, r: part.r, ...paint });
    case "ellipse": {
      const rotate = part.rotation === 0 ? undefined : `rotate(${num((part.rotation * 180) / Math.PI)} ${num(part.cx)} ${num(part.cy)})`;
      return element("ellipse", { cx: part.cx, cy: part.cy, rx: part.rx, ry: part.ry, transform: rotate, ...paint });
    }
    case "rect":
      return element("rect", { x: part.x, y: part.y, width: part.w, height: part.h, rx: part.rx > 0 ? part.rx : undefined, ...paint });
    case "poly": {
      const d = [part.outline, ...(part.holes ?? [])].map(pathData).join("");
      return element("path", { d, "fill-rule": part.holes ? "evenodd" : undefined, ...paint });
    }
  }
}
