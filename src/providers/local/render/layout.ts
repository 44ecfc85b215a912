// Where things go. Three layouts: one subject (the usual case: the subject, or a row of
// copies, where the placement words put it, secondary motifs small beside it), a pattern
// (motifs repeated on a grid), and a landscape (sky, a horizon with hills, things in the sky
// and on the ground). Positions are in pixels; parts stay in their unit box until painted.

import { abstractCluster } from "./abstract.ts";
import type { Rgb } from "./color.ts";
import { motifByName, type Motif } from "./motifs/index.ts";
import { motifColor, type Palette } from "./palette.ts";
import type { PromptReading } from "./reading.ts";
import type { Rng } from "./rng.ts";
import type { Part } from "./shapes.ts";

export interface Placement {
  parts: Part[];
  cx: number;
  cy: number;
  /** Half the side of the unit box, in pixels. */
  size: number;
  /** Replaces the palette's body colour (patterns alternate colours). */
  body?: Rgb;
}

export interface Composition {
  placements: Placement[];
  /** A landscape's ground: a closed outline and its top and bottom colours, painted after `behind` placements. */
  ground?: { points: number[]; colors: [Rgb, Rgb]; behind: number };
}

function subjectParts(motif: Motif | undefined, rng: Rng, palette: Palette): Part[] {
  return motif ? motif.draw(rng) : abstractCluster(rng, palette);
}

function single(reading: PromptReading, palette: Palette, rng: Rng, w: number, h: number): Composition {
  const m = Math.min(w, h);
  const [main, ...others] = reading.motifs;
  const cx = reading.placement.x * w + rng.range(-0.015, 0.015) * m;
  const cy = reading.placement.y * h + rng.range(-0.015, 0.015) * m;
  const scale = reading.scale * (reading.styles.has("minimal") ? 0.75 : 1);
  const placements: Placement[] = [];
  // Secondary motifs go small into the corners away from the subject, drawn first (behind it).
  others.slice(0, 2).forEach((motif, i) => {
    const x = cx < w / 2 ? w * 0.82 : w * 0.18;
    const y = motif.place === "sky" || i === 1 ? h * 0.2 : h * 0.8;
    placements.push({ parts: motif.draw(rng), cx: x, cy: y, size: m * 0.13, body: motifColor(reading, palette, motif, i + 1) });
  });
  const count = reading.count;
  const cols = count <= 4 ? count : Math.ceil(Math.sqrt(count));
  const rows = Math.ceil(count / cols);
  const cell = Math.min((w * 0.86) / cols, (h * 0.86) / rows);
  let size = count === 1 ? m * 0.36 * scale : cell * 0.42 * Math.min(scale, 1.15);
  // Keep the whole group inside the canvas, shrinking it if the placement is near an edge.
  const halfW = ((cols - 1) * cell) / 2 + size;
  const halfH = ((rows - 1) * cell) / 2 + size;
  const fit = Math.min(1, (0.96 * Math.min(cx, w - cx)) / halfW, (0.96 * Math.min(cy, h - cy)) / halfH);
  size *= fit;
  const step = cell * fit;
  const parts = subjectParts(main, rng, palette);
  for (let i = 0; i < count; i++) {
    const col = i % cols;
    const row = Math.floor(i / cols);
    const inRow = Math.min(cols, count - row * cols);
    placements.push({ parts, cx: cx + (col - (inRow - 1) / 2) * step, cy: cy + (row - (rows - 1) / 2) * step, size });
  }
  return { placements };
}

function pattern(reading: PromptReading, palette: Palette, rng: Rng, w: number, h: number): Composition {
  const m = Math.min(w, h);
  const perSide = Math.min(8, Math.max(3, Math.round(m / 160)));
  const cell = m / perSide;
  const motifs = reading.motifs.length > 0 ? reading.motifs : [motifByName(rng.pick(["circle", "star", "heart", "triangle", "hexagon"]))];
  const drawn = motifs.map((motif) => motif.draw(rng));
  const colors = [palette.body, palette.accent, ...palette.extras.slice(0, 1)];
  const cols = Math.ceil(w / cell);
  const rows = Math.ceil(h / cell);
  const placements: Placement[] = [];
  for (let row = 0; row < rows; row++) {
    for (let col = 0; col < cols; col++) {
      const offset = row % 2 === 1 ? cell / 2 : 0; // brick offset reads as a pattern, not a table
      placements.push({
        parts: drawn[(row + col) % drawn.length]!,
        cx: (col + 0.5) * cell + offset - (offset > 0 && col === cols - 1 ? cols * cell : 0),
        cy: (row + 0.5) * cell,
        size: cell * 0.34 * Math.min(reading.scale, 1.3),
        body: colors[(row * 3 + col) % colors.length],
      });
    }
  }
  return { placements };
}

const GROUND_COLORS: [RegExp, [Rgb, Rgb]][] = [
  [/^(ocean|sea|lake|water|beach)$/, [[40, 120, 190], [20, 70, 140]]],
  [/^(desert|sand|dunes?)$/, [[230, 190, 120], [200, 150, 90]]],
  [/^(snow|winter|ice|snowy)$/, [[240, 245, 250], [200, 215, 235]]],
];

function scene(reading: PromptReading, palette: Palette, rng: Rng, w: number, h: number): Composition {
  const m = Math.min(w, h);
  const horizon = h * (0.62 + rng.range(-0.04, 0.04));
  let colors: [Rgb, Rgb] = [[110, 170, 90], [60, 120, 70]];
  for (const [pattern, c] of GROUND_COLORS) if (reading.words.some((word) => pattern.test(word))) colors = c;
  const points: number[] = [];
  const waves = [1, 2.3, 4.1].map((f) => ({ f, amp: rng.range(0.005, 0.025) * h, phase: rng.range(0, 6.3) }));
  for (let i = 0; i <= 64; i++) {
    const x = (i / 64) * w;
    let y = horizon;
    for (const wave of waves) y += wave.amp * Math.sin((x / w) * wave.f * Math.PI + wave.phase);
    points.push(x, y);
  }
  points.push(w + 1, h + 1, -1, h + 1);
  // A landscape shows what its theme implies (a sunset has a sun) besides what the words name.
  const themed = reading.themes.flatMap((t) => (t.motif ? [motifByName(t.motif)] : [])).filter((m) => !reading.motifs.includes(m));
  const motifs = reading.motifs.length + themed.length > 0 ? [...reading.motifs, ...themed.slice(0, 1)] : [motifByName("sun")];
  const behindGround: Placement[] = [];
  const front: Placement[] = [];
  let skyIndex = 0;
  motifs.slice(0, 4).forEach((motif, i) => {
    const parts = motif.draw(rng);
    // Motifs the words did not name (a theme's sun, the default sun) keep their natural colour.
    const named = reading.motifs.indexOf(motif);
    const body = motifColor(reading, palette, motif, named < 0 ? reading.colors.length + 1 : named);
    if (motif.place === "sky") {
      const x = i === 0 && reading.placement.x !== 0.5 ? reading.placement.x : skyIndex++ % 2 === 0 ? 0.72 : 0.28;
      behindGround.push({ parts, cx: x * w, cy: horizon * 0.4, size: m * 0.13 * reading.scale, body });
    } else if (motif.name === "mountain") {
      const size = Math.min(w * 0.5, horizon * 0.6);
      behindGround.push({ parts, cx: (i === 0 ? reading.placement.x : 0.3) * w, cy: horizon + 0.02 * h - 0.75 * size, size, body });
    } else {
      const size = m * 0.2 * reading.scale;
      const x = i === 0 ? reading.placement.x : ([0.22, 0.78, 0.12][i - 1] ?? 0.5);
      front.push({ parts, cx: x * w, cy: horizon + 0.08 * h - 0.9 * size, size, body });
    }
  });
  const skyDark = palette.background[1][0] + palette.background[1][1] + palette.background[1][2] < 300;
  if (skyDark) colors = [[colors[0][0] * 0.35, colors[0][1] * 0.35, colors[0][2] * 0.35], [colors[1][0] * 0.3, colors[1][1] * 0.3, colors[1][2] * 0.3]];
  return { placements: [...behindGround, ...front], ground: { points, colors, behind: behindGround.length } };
}

export function compose(reading: PromptReading, palette: Palette, rng: Rng, w: number, h: number): Composition {
  if (reading.layout === "pattern") return pattern(reading, palette, rng, w, h);
  if (reading.layout === "scene") return scene(reading, palette, rng, w, h);
  return single(reading, palette, rng, w, h);
}
