// The `local` provider's text-to-svg: an icon composer, not a neural model. It reads the same
// words as the raster renderer (render/reading.ts), draws the same motifs as vector elements
// and paints them in the chosen style. Deterministic for (prompt, style, seed), and written in
// the sanitiser's canonical form so sanitizeSvg returns it unchanged.

import { darken, lighten, type Rgb } from "./render/color.ts";
import { abstractCluster } from "./render/abstract.ts";
import { buildPalette, motifColor, type Palette } from "./render/palette.ts";
import { readPrompt } from "./render/reading.ts";
import { createRng, hashText, sceneSeed } from "./render/rng.ts";
import { placePart, type Part } from "./render/shapes.ts";
import { element, escapeText, partElement } from "./svg/markup.ts";
import { backdrop, motifScale, partPaint, svgStyleOf } from "./svg/styles.ts";

export const SVG_SIZE = 512;

function roleColor(part: Part, body: Rgb, palette: Palette): Rgb {
  if (part.color) return part.color;
  switch (part.role) {
    case "body": return body;
    case "accent": return palette.accent;
    case "shade": return darken(body, 0.28);
    case "light": return lighten(body, 0.5);
    case "dark": return palette.dark;
  }
}

export function composeSvg(request: { prompt: string; style: string; seed: number }): string {
  const style = svgStyleOf(request.style);
  const rng = createRng(sceneSeed(request.prompt, request.seed) ^ hashText(style));
  const reading = readPrompt(request.prompt);
  const palette = buildPalette(reading, [], rng);
  const scale = motifScale(style) * Math.min(1.15, reading.scale);
  const center = SVG_SIZE / 2;

  const shapes: string[] = [];
  const draw = (parts: Part[], cx: number, cy: number, size: number, body: Rgb): void => {
    for (const part of parts) shapes.push(partElement(placePart(part, cx, cy, size), partPaint(style, part, roleColor(part, body, palette), palette)));
  };
  // A second named motif sits small in the upper right corner, behind the subject.
  const second = reading.motifs[1];
  if (second) draw(second.draw(rng), center + scale * 0.95, center - scale * 0.95, scale * 0.38, motifColor(reading, palette, second, 1));
  const main = reading.motifs[0];
  const parts = main ? main.draw(rng) : abstractCluster(rng, palette);
  const copies = Math.min(3, reading.count);
  // Copies share a row 400 units wide: each gets an equal slot, the motif a bit less than half of it.
  const slot = copies === 1 ? 0 : 400 / copies;
  const size = copies === 1 ? scale : Math.min(scale, slot * 0.42);
  for (let i = 0; i < copies; i++) draw(parts, center + (i - (copies - 1) / 2) * slot, center, size, palette.body);

  return element(
    "svg",
    { xmlns: "http://www.w3.org/2000/svg", width: SVG_SIZE, height: SVG_SIZE, viewBox: `0 0 ${SVG_SIZE} ${SVG_SIZE}` },
    [`<title>${escapeText(request.prompt)}</title>`, ...backdrop(style, palette), element("g", {}, shapes)],
  );
}
