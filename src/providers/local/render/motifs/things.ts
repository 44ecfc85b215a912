// Motifs of made things and animals, each a handful of simple shapes in the unit box.

import { bar, circle, ellipse, poly, rect, withColor } from "../shapes.ts";
import type { Motif } from "./motif.ts";

const FLAME: [number, number, number] = [255, 140, 40];

export const THING_MOTIFS: Motif[] = [
  {
    name: "house", words: ["house", "home", "cottage", "cabin", "building", "hut"], natural: [236, 200, 150], place: "ground",
    draw: () => [
      rect(0.32, -0.72, 0.16, 0.4, "accent"),
      rect(-0.62, -0.12, 1.24, 0.97),
      poly([-0.85, -0.05, 0, -0.85, 0.85, -0.05], "accent"),
      rect(-0.16, 0.35, 0.32, 0.5, "dark", 0.03),
      rect(0.3, 0.08, 0.22, 0.22, "light"),
      rect(-0.52, 0.08, 0.22, 0.22, "light"),
    ],
  },
  {
    name: "cat", words: ["cat", "kitten", "kitty"], natural: [240, 150, 60], place: "any",
    draw: () => [
      poly([-0.7, -0.15, -0.62, -0.85, -0.15, -0.5]),
      poly([0.7, -0.15, 0.62, -0.85, 0.15, -0.5]),
      ellipse(0, 0.1, 0.78, 0.68),
      ellipse(-0.28, -0.02, 0.09, 0.14, "dark"),
      ellipse(0.28, -0.02, 0.09, 0.14, "dark"),
      poly([-0.08, 0.2, 0.08, 0.2, 0, 0.3], "accent"),
      bar(-0.2, 0.32, -0.62, 0.26, 0.025, "dark"),
      bar(0.2, 0.32, 0.62, 0.26, 0.025, "dark"),
      bar(-0.2, 0.38, -0.6, 0.44, 0.025, "dark"),
      bar(0.2, 0.38, 0.6, 0.44, 0.025, "dark"),
    ],
  },
  {
    name: "fish", words: ["fish", "goldfish"], natural: [250, 130, 50], place: "any",
    draw: () => [
      poly([0.45, 0, 0.95, -0.45, 0.95, 0.45]),
      ellipse(-0.1, 0, 0.65, 0.42),
      poly([-0.15, -0.38, 0.2, -0.62, 0.25, -0.3], "shade"),
      circle(-0.45, -0.08, 0.07, "dark"),
    ],
  },
  {
    name: "rocket", words: ["rocket", "spaceship", "launch"], natural: [225, 70, 70], place: "sky",
    draw: () => [
      withColor(poly([-0.15, 0.62, 0.15, 0.62, 0, 0.98]), FLAME),
      poly([-0.22, 0.2, -0.5, 0.7, -0.2, 0.6], "accent"),
      poly([0.22, 0.2, 0.5, 0.7, 0.2, 0.6], "accent"),
      poly([0, -0.95, 0.22, -0.6, 0.26, 0.1, 0.2, 0.62, -0.2, 0.62, -0.26, 0.1, -0.22, -0.6]),
      circle(0, -0.2, 0.13, "light"),
    ],
  },
  {
    name: "bird", words: ["bird", "dove", "sparrow", "robin"], natural: [70, 150, 220], place: "sky",
    draw: () => [
      poly([0.1, 0.05, 0.85, -0.3, 0.7, 0.25], "shade"),
      ellipse(-0.05, 0.15, 0.55, 0.38),
      circle(-0.5, -0.2, 0.27),
      poly([-0.74, -0.24, -0.98, -0.14, -0.74, -0.1], "accent"),
      circle(-0.55, -0.25, 0.05, "dark"),
      poly([-0.1, 0.05, 0.35, -0.55, 0.3, 0.1], "light"),
    ],
  },
];
