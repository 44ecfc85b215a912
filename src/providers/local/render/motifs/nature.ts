// Motifs from nature: sky things (sun, moon, cloud) and ground things (mountain, tree, flower).

import { arcPoints, bar, circle, poly, rect, withColor } from "../shapes.ts";
import type { Part } from "../shapes.ts";
import type { Motif } from "./motif.ts";

const TRUNK: [number, number, number] = [121, 85, 58];
const STEM: [number, number, number] = [70, 150, 70];

/**
 * The crescent left of a disc of radius R at the origin when a disc of radius r centred at
 * (ox, oy) is taken away: the big arc outside the cutting disc, then the cutting disc's arc
 * inside the moon, back to the start. Computed as an outline so it is a plain filled shape in
 * both renderers (a "hole" that pokes outside would not be).
 */
function crescentPoints(R: number, ox: number, oy: number, r: number): number[] {
  const d = Math.hypot(ox, oy);
  const phi = Math.atan2(oy, ox);
  const alpha = Math.acos((R * R + d * d - r * r) / (2 * R * d));
  const beta = Math.acos((r * r + d * d - R * R) / (2 * r * d));
  const outer = arcPoints(0, 0, R, R, phi + alpha, phi + 2 * Math.PI - alpha, 72);
  // The inner arc runs around the direction back to the origin (phi + pi), from where the outer
  // arc ended (phi - alpha on the moon is phi + pi + beta on the cutting disc) back to the start.
  const inner = arcPoints(ox, oy, r, r, phi + Math.PI + beta, phi + Math.PI - beta, 36);
  return [...outer, ...inner.slice(2, -2)];
}

function leafPoints(length: number, width: number, angle: number): number[] {
  const points: number[] = [];
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  for (let i = 0; i < 64; i++) {
    const t = (i / 64) * 2 * Math.PI;
    const x = width * Math.sin(t) * Math.abs(Math.sin(t)); // sin^2 profile: pointed ends
    const y = -length * Math.cos(t);
    points.push(x * cos - y * sin, x * sin + y * cos);
  }
  return points;
}

export const NATURE_MOTIFS: Motif[] = [
  {
    name: "sun", words: ["sun", "sunshine", "sunny"], natural: [255, 190, 30], place: "sky",
    draw: (rng) => {
      const rays = rng.pick([8, 12, 16]);
      const parts: Part[] = [];
      for (let i = 0; i < rays; i++) {
        const a = (i * 2 * Math.PI) / rays;
        const w = Math.PI / rays / 1.6;
        parts.push(poly([0.62 * Math.cos(a - w), 0.62 * Math.sin(a - w), 0.92 * Math.cos(a), 0.92 * Math.sin(a), 0.62 * Math.cos(a + w), 0.62 * Math.sin(a + w)]));
      }
      parts.push(circle(0, 0, 0.52));
      return parts;
    },
  },
  {
    name: "moon", words: ["moon", "crescent", "lunar"], natural: [250, 230, 150], place: "sky",
    draw: (rng) => [poly(crescentPoints(0.8, rng.range(0.35, 0.5), -0.25, 0.7))],
  },
  {
    name: "cloud", words: ["cloud", "cloudy"], natural: [246, 248, 255], place: "sky",
    draw: () => [circle(-0.42, 0.12, 0.33), circle(0.02, -0.12, 0.45), circle(0.42, 0.08, 0.36), rect(-0.75, 0.05, 1.5, 0.4, "body", 0.2)],
  },
  {
    name: "mountain", words: ["mountain", "peak", "summit", "alps", "volcano"], natural: [110, 120, 150], place: "ground",
    draw: (rng) => {
      const peak = rng.range(-0.2, 0.1);
      // The snow cap follows the two slopes down to y = -0.35, with a zigzag lower edge.
      const capL = peak - ((-0.35 + 0.75) / 1.5) * (peak + 0.95);
      const capR = peak + ((-0.35 + 0.75) / 1.5) * (0.9 - peak);
      return [
        poly([0.1, 0.75, 0.55, -0.25, 0.98, 0.75], "shade"),
        poly([-0.95, 0.75, peak, -0.75, 0.9, 0.75]),
        poly([peak, -0.75, capR, -0.35, peak + 0.1, -0.45, peak - 0.05, -0.3, capL, -0.35], "light"),
      ];
    },
  },
  {
    name: "tree", words: ["tree", "pine", "oak", "fir", "woods"], natural: [60, 160, 80], place: "ground",
    draw: (rng) => {
      const trunk = withColor(rect(-0.1, 0.25, 0.2, 0.65, "dark"), TRUNK);
      if (rng.next() < 0.5) return [trunk, poly([0, -0.9, 0.45, -0.3, -0.45, -0.3]), poly([0, -0.55, 0.6, 0.05, -0.6, 0.05]), poly([0, -0.2, 0.72, 0.4, -0.72, 0.4])];
      return [trunk, circle(-0.32, -0.05, 0.36), circle(0.32, -0.05, 0.36), circle(0, -0.4, 0.45), circle(0, 0.05, 0.35)];
    },
  },
  {
    name: "flower", words: ["flower", "blossom", "daisy", "rose", "tulip", "bloom"], natural: [240, 100, 160], place: "ground",
    draw: (rng) => {
      const petals = rng.pick([5, 6, 8]);
      const parts: Part[] = [withColor(bar(0, 0.05, 0, 0.95, 0.08, "shade"), STEM), withColor(poly(leafPoints(0.25, 0.12, 1.0).map((v, i) => v + (i % 2 === 0 ? 0.2 : 0.6)), "shade"), STEM)];
      for (let i = 0; i < petals; i++) {
        const a = (i * 2 * Math.PI) / petals;
        parts.push(circle(0.3 * Math.cos(a), -0.3 + 0.3 * Math.sin(a), 0.22));
      }
      parts.push(withColor(circle(0, -0.3, 0.18, "accent"), [255, 205, 60]));
      return parts;
    },
  },
  {
    name: "leaf", words: ["leaf", "leaves", "plant", "nature"], natural: [80, 175, 90], place: "any",
    draw: () => [poly(leafPoints(0.85, 0.5, 0.5)), bar(-0.4, 0.65, 0.36, -0.55, 0.05, "shade")],
  },
];

