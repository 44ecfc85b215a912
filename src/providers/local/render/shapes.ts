// The geometry both local renderers share. A motif is a few Parts laid out in a unit box
// (x and y in [-1, 1], y pointing down, centre at 0); the raster renderer flattens them into
// polygons and fills them with anti-aliased coverage, the SVG composer writes them as elements.
// Curves stay curves (circle, ellipse, rounded rect) until a renderer decides how to draw them.

import type { Rgb } from "./color.ts";

/**
 * Which palette colour a part takes: `body` the subject colour, `accent` the second colour,
 * `shade` a darker body, `light` a highlight, `dark` near-black details (eyes, doors).
 * `color` pins a part to a fixed colour whatever the palette (a tree trunk is brown).
 */
export type Role = "body" | "accent" | "shade" | "light" | "dark";

interface PartBase {
  role: Role;
  color?: Rgb;
}
export interface CirclePart extends PartBase { kind: "circle"; cx: number; cy: number; r: number }
export interface EllipsePart extends PartBase { kind: "ellipse"; cx: number; cy: number; rx: number; ry: number; rotation: number }
export interface RectPart extends PartBase { kind: "rect"; x: number; y: number; w: number; h: number; rx: number }
/** A closed outline as flat [x0, y0, x1, y1, ...]; `holes` are cut out of it (each inside it). */
export interface PolyPart extends PartBase { kind: "poly"; outline: number[]; holes?: number[][] }
export type Part = CirclePart | EllipsePart | RectPart | PolyPart;

export const circle = (cx: number, cy: number, r: number, role: Role = "body"): CirclePart => ({ kind: "circle", cx, cy, r, role });

export const ellipse = (cx: number, cy: number, rx: number, ry: number, role: Role = "body", rotation = 0): EllipsePart => ({
  kind: "ellipse", cx, cy, rx, ry, rotation, role,
});

export const rect = (x: number, y: number, w: number, h: number, role: Role = "body", rx = 0): RectPart => ({ kind: "rect", x, y, w, h, rx, role });

export const poly = (outline: number[], role: Role = "body", holes?: number[][]): PolyPart =>
  holes ? { kind: "poly", outline, holes, role } : { kind: "poly", outline, role };

export function withColor<T extends Part>(part: T, color: Rgb): T {
  return { ...part, color };
}

/** Points of a regular polygon (or of a circle, with enough sides), starting at `rotation`. */
export function regularPoints(cx: number, cy: number, r: number, sides: number, rotation = -Math.PI / 2): number[] {
  const points: number[] = [];
  for (let i = 0; i < sides; i++) {
    const a = rotation + (i * 2 * Math.PI) / sides;
    points.push(cx + r * Math.cos(a), cy + r * Math.sin(a));
  }
  return points;
}

export function starPoints(cx: number, cy: number, outer: number, inner: number, tips: number, rotation = -Math.PI / 2): number[] {
  const points: number[] = [];
  for (let i = 0; i < tips * 2; i++) {
    const a = rotation + (i * Math.PI) / tips;
    const r = i % 2 === 0 ? outer : inner;
    points.push(cx + r * Math.cos(a), cy + r * Math.sin(a));
  }
  return points;
}

/** Points along an elliptical arc from angle a0 to a1 (radians, either direction), both ends included. */
export function arcPoints(cx: number, cy: number, rx: number, ry: number, a0: number, a1: number, steps: number): number[] {
  const points: number[] = [];
  for (let i = 0; i <= steps; i++) {
    const a = a0 + ((a1 - a0) * i) / steps;
    points.push(cx + rx * Math.cos(a), cy + ry * Math.sin(a));
  }
  return points;
}

/** A thick straight segment (stems, strings, veins) as a quadrilateral. */
export function bar(x0: number, y0: number, x1: number, y1: number, width: number, role: Role = "dark"): PolyPart {
  const len = Math.hypot(x1 - x0, y1 - y0) || 1;
  const nx = (-(y1 - y0) / len) * (width / 2);
  const ny = ((x1 - x0) / len) * (width / 2);
  return poly([x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny], role);
}

/** Moves and scales a unit-box part into place: (x, y) -> (cx + x * s, cy + y * s). */
export function placePart(part: Part, cx: number, cy: number, s: number): Part {
  const mapPoints = (p: number[]): number[] => p.map((v, i) => (i % 2 === 0 ? cx + v * s : cy + v * s));
  switch (part.kind) {
    case "circle":
      return { ...part, cx: cx + part.cx * s, cy: cy + part.cy * s, r: part.r * s };
    case "ellipse":
      return { ...part, cx: cx + part.cx * s, cy: cy + part.cy * s, rx: part.rx * s, ry: part.ry * s };
    case "rect":
      return { ...part, x: cx + part.x * s, y: cy + part.y * s, w: part.w * s, h: part.h * s, rx: part.rx * s };
    case "poly":
      return part.holes
        ? { ...part, outline: mapPoints(part.outline), holes: part.holes.map(mapPoints) }
        : { ...part, outline: mapPoints(part.outline) };
  }
}
