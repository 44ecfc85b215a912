// Turns a placed Part (pixel coordinates) into polygon rings for the coverage filler. Curves
// get enough segments that the chord never strays more than about a tenth of a pixel from
// the true curve, so edges look round at any output size.

import type { Part } from "../shapes.ts";
import type { Ring } from "../../../../raster/coverage.ts";

function segmentsFor(radius: number): number {
  const n = Math.ceil(Math.PI / Math.sqrt(0.2 / Math.max(radius, 0.5)));
  return Math.min(720, Math.max(12, n));
}

function ellipseRing(cx: number, cy: number, rx: number, ry: number, rotation: number): Float64Array {
  const n = segmentsFor(Math.max(rx, ry));
  const points = new Float64Array(n * 2);
  const cos = Math.cos(rotation);
  const sin = Math.sin(rotation);
  for (let i = 0; i < n; i++) {
    const a = (i * 2 * Math.PI) / n;
    const x = rx * Math.cos(a);
    const y = ry * Math.sin(a);
    points[i * 2] = cx + x * cos - y * sin;
    points[i * 2 + 1] = cy + x * sin + y * cos;
  }
  return points;
}

function roundedRectRing(x: number, y: number, w: number, h: number, radius: number): number[] {
  const r = Math.min(radius, w / 2, h / 2);
  if (r <= 0) return [x, y, x + w, y, x + w, y + h, x, y + h];
  const steps = Math.max(2, Math.ceil(segmentsFor(r) / 4));
  const corners: [number, number, number][] = [
    [x + w - r, y + r, -Math.PI / 2],
    [x + w - r, y + h - r, 0],
    [x + r, y + h - r, Math.PI / 2],
    [x + r, y + r, Math.PI],
  ];
  const points: number[] = [];
  for (const [cx, cy, start] of corners) {
    for (let i = 0; i <= steps; i++) {
      const a = start + ((Math.PI / 2) * i) / steps;
      points.push(cx + r * Math.cos(a), cy + r * Math.sin(a));
    }
  }
  return points;
}

export function partRings(part: Part): Ring[] {
  switch (part.kind) {
    case "circle":
      return [{ points: ellipseRing(part.cx, part.cy, part.r, part.r, 0), hole: false }];
    case "ellipse":
      return [{ points: ellipseRing(part.cx, part.cy, part.rx, part.ry, part.rotation), hole: false }];
    case "rect":
      return [{ points: roundedRectRing(part.x, part.y, part.w, part.h, part.rx), hole: false }];
    case "poly":
      return [{ points: part.outline, hole: false }, ...(part.holes ?? []).map((points) => ({ points, hole: true }))];
  }
}
