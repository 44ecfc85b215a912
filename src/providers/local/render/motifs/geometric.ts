// Plain geometric motifs: the shapes people name when they want a simple graphic.

import { arcPoints, bar, circle, ellipse, poly, rect, regularPoints, starPoints } from "../shapes.ts";
import type { Motif } from "./motif.ts";

/** The classic parametric heart, scaled into the unit box. */
function heartPoints(steps: number): number[] {
  const points: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t = (i / steps) * 2 * Math.PI;
    const x = 16 * Math.sin(t) ** 3;
    const y = -(13 * Math.cos(t) - 5 * Math.cos(2 * t) - 2 * Math.cos(3 * t) - Math.cos(4 * t));
    points.push(x / 17.5, (y + 2.5) / 17.5);
  }
  return points;
}

/** A drop: the lower part of a circle whose two tangents from the tip close the outline. */
function dropPoints(): number[] {
  const r = 0.55;
  const cy = 0.35;
  const tipY = -0.9;
  const gamma = Math.acos(r / (cy - tipY)); // angle between "towards the tip" and a tangent point
  return [0, tipY, ...arcPoints(0, cy, r, r, -Math.PI / 2 + gamma, (3 * Math.PI) / 2 - gamma, 40)];
}

export const GEOMETRIC_MOTIFS: Motif[] = [
  {
    name: "circle", words: ["circle", "ball", "dot", "orb", "sphere", "bubble", "disc", "disk"], natural: [229, 72, 77], place: "any",
    draw: (rng) => (rng.next() < 0.5 ? [circle(0, 0, 0.8)] : [circle(0, 0, 0.8), ellipse(-0.28, -0.3, 0.2, 0.12, "light", -0.6)]),
  },
  {
    name: "square", words: ["square", "box", "block", "rectangle", "tile"], natural: [66, 133, 244], place: "any",
    draw: (rng) => [rect(-0.72, -0.72, 1.44, 1.44, "body", rng.pick([0, 0.08, 0.2]))],
  },
  {
    name: "cube", words: ["cube", "dice"], natural: [66, 133, 244], place: "any",
    draw: () => [
      poly([0, -0.85, 0.78, -0.45, 0, -0.05, -0.78, -0.45], "light"),
      poly([-0.78, -0.45, 0, -0.05, 0, 0.85, -0.78, 0.45], "body"),
      poly([0.78, -0.45, 0.78, 0.45, 0, 0.85, 0, -0.05], "shade"),
    ],
  },
  {
    name: "triangle", words: ["triangle", "pyramid"], natural: [250, 176, 5], place: "any",
    draw: () => [poly([0, -0.8, 0.85, 0.7, -0.85, 0.7])],
  },
  {
    name: "star", words: ["star", "sparkle"], natural: [255, 200, 40], place: "sky",
    draw: (rng) => {
      const tips = rng.pick([5, 5, 6, 8]);
      return [poly(starPoints(0, 0.05, 0.9, tips === 5 ? 0.38 : 0.5, tips))];
    },
  },
  {
    name: "heart", words: ["heart", "love", "valentine"], natural: [225, 45, 80], place: "any",
    draw: () => [poly(heartPoints(96))],
  },
  {
    name: "hexagon", words: ["hexagon", "honeycomb", "hex"], natural: [245, 166, 35], place: "any",
    draw: () => [poly(regularPoints(0, 0, 0.85, 6, 0)), poly(regularPoints(0, 0, 0.55, 6, 0), "light")],
  },
  {
    name: "diamond", words: ["diamond", "gem", "crystal", "jewel"], natural: [64, 200, 230], place: "any",
    draw: () => [
      poly([-0.85, -0.3, -0.45, -0.75, 0.45, -0.75, 0.85, -0.3, 0, 0.85], "body"),
      poly([-0.85, -0.3, 0.85, -0.3, 0, 0.85], "shade"),
      poly([-0.3, -0.3, 0, -0.75, 0.3, -0.3], "light"),
    ],
  },
  {
    name: "ring", words: ["ring", "donut", "doughnut", "torus", "halo"], natural: [236, 120, 170], place: "any",
    draw: () => [poly(regularPoints(0, 0, 0.82, 96), "body", [regularPoints(0, 0, 0.38, 64)])],
  },
  {
    name: "drop", words: ["drop", "droplet", "raindrop", "water", "tear"], natural: [50, 140, 230], place: "any",
    draw: () => [poly(dropPoints()), ellipse(-0.2, 0.3, 0.09, 0.18, "light", 0.3)],
  },
  {
    name: "lightning", words: ["lightning", "bolt", "thunder", "energy", "electric", "flash"], natural: [255, 205, 0], place: "sky",
    draw: () => [poly([0.15, -0.9, -0.55, 0.12, -0.05, 0.12, -0.2, 0.9, 0.55, -0.15, 0.05, -0.15, 0.3, -0.9])],
  },
  {
    name: "balloon", words: ["balloon"], natural: [235, 60, 90], place: "sky",
    draw: () => [
      bar(0, 0.5, 0.05, 0.95, 0.025, "dark"),
      ellipse(0, -0.2, 0.55, 0.68),
      poly([-0.08, 0.56, 0.08, 0.56, 0, 0.46]),
      ellipse(-0.22, -0.42, 0.1, 0.18, "light", 0.4),
    ],
  },
];
