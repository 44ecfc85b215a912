// The `local` provider's generate: a seeded procedural renderer, not a neural model. It reads
// the prompt's words (colours, motifs, placement, layout, style; see render/words.ts and
// render/motifs/) and draws simple anti-aliased geometry on a smooth gradient. The picture is
// a pure function of (prompt, seed, width, height, references): same inputs, same bytes.
// References are used for their dominant colours only (render/references.ts).

import type { RasterImage } from "../../codecs/formats.ts";
import { darken, lighten, mix, type Rgb } from "./render/color.ts";
import { compose, type Placement } from "./render/layout.ts";
import { buildPalette, type Palette } from "./render/palette.ts";
import { addGrain, fillLinearGradient } from "./render/raster/background.ts";
import { createCanvas, fillRings, type Canvas, type Paint } from "../../raster/coverage.ts";
import { partRings } from "./render/raster/flatten.ts";
import { readPrompt, type PromptReading } from "./render/reading.ts";
import { dominantColors } from "./render/references.ts";
import { createRng, sceneSeed } from "./render/rng.ts";
import { placePart, type Part } from "./render/shapes.ts";

export interface RenderRequest {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  /** Decoded reference images; their dominant colours become the palette where the words name none. */
  references?: RasterImage[];
}

function partColor(part: Part, palette: Palette, body: Rgb): Rgb {
  if (part.color) return part.color;
  switch (part.role) {
    case "body": return body;
    case "accent": return palette.accent;
    case "shade": return body === palette.body ? palette.shade : darken(body, 0.28);
    case "light": return body === palette.body ? palette.light : lighten(body, 0.5);
    case "dark": return palette.dark;
  }
}

function paintFor(color: Rgb, role: Part["role"], reading: PromptReading, palette: Palette): Paint {
  if (reading.styles.has("retro") && role === "body") {
    return { top: color, bottom: color, bands: [mix(color, palette.accent, 0), mix(color, palette.accent, 0.35), mix(color, palette.accent, 0.7)] };
  }
  if (reading.styles.has("gradient")) return { top: lighten(color, 0.3), bottom: darken(color, 0.25) };
  return { top: color, bottom: color };
}

function drawPlacement(canvas: Canvas, placement: Placement, reading: PromptReading, palette: Palette): void {
  const body = placement.body ?? palette.body;
  for (const part of placement.parts) {
    const placed = placePart(part, placement.cx, placement.cy, placement.size);
    fillRings(canvas, partRings(placed), paintFor(partColor(part, palette, body), part.role, reading, palette));
  }
}

export function renderScene(request: RenderRequest): RasterImage {
  const { prompt, width, height } = request;
  const seed = sceneSeed(prompt, request.seed);
  const rng = createRng(seed);
  const reading = readPrompt(prompt);
  const palette = buildPalette(reading, dominantColors(request.references ?? []), rng);
  const canvas = createCanvas(width, height);

  // Flat and minimal pictures get a quieter background; others a gradient at a seeded angle.
  const quiet = reading.styles.has("flat") || reading.styles.has("minimal");
  const [from, to] = palette.background;
  const angle = Math.PI / 2 + rng.range(-0.5, 0.5);
  fillLinearGradient(canvas, from, quiet ? mix(to, from, 0.7) : to, reading.layout === "scene" ? Math.PI / 2 : angle);

  const composition = compose(reading, palette, rng, width, height);
  composition.placements.forEach((placement, i) => {
    if (composition.ground && i === composition.ground.behind) drawGround(canvas, composition.ground);
    drawPlacement(canvas, placement, reading, palette);
  });
  if (composition.ground && composition.ground.behind >= composition.placements.length) drawGround(canvas, composition.ground);
  if (reading.styles.has("grain")) addGrain(canvas, 18, seed);
  return { width, height, data: canvas.data };
}

function drawGround(canvas: Canvas, ground: NonNullable<ReturnType<typeof compose>["ground"]>): void {
  fillRings(canvas, [{ points: ground.points, hole: false }], { top: ground.colors[0], bottom: ground.colors[1] });
}
