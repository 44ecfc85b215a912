// The picture for prompts that name no motif: a cluster of overlapping simple shapes in the
// palette's colours, centred like a subject, so it still reads as one thing on a background
// (and generate-transparent can still cut it out).

import type { Palette } from "./palette.ts";
import type { Rng } from "./rng.ts";
import { circle, poly, rect, regularPoints, withColor, type Part } from "./shapes.ts";

/** A smooth irregular blob: a circle whose radius wobbles with a few seeded harmonics. */
function blobPoints(rng: Rng, radius: number): number[] {
  const harmonics = [2, 3, 5].map((k) => ({ k, amp: rng.range(0.03, 0.09), phase: rng.range(0, 2 * Math.PI) }));
  const points: number[] = [];
  for (let i = 0; i < 96; i++) {
    const a = (i / 96) * 2 * Math.PI;
    let r = radius;
    for (const h of harmonics) r += radius * h.amp * Math.sin(h.k * a + h.phase);
    points.push(r * Math.cos(a), r * Math.sin(a));
  }
  return points;
}

export function abstractCluster(rng: Rng, palette: Palette): Part[] {
  const parts: Part[] = [poly(blobPoints(rng, 0.62))];
  const colors = [palette.accent, ...palette.extras];
  const count = 2 + rng.int(3);
  for (let i = 0; i < count; i++) {
    const angle = rng.range(0, 2 * Math.PI);
    const dist = rng.range(0.2, 0.45);
    const cx = dist * Math.cos(angle);
    const cy = dist * Math.sin(angle);
    const size = rng.range(0.18, 0.36);
    const color = colors[i % colors.length]!;
    const kind = rng.int(4);
    const part =
      kind === 0 ? circle(cx, cy, size)
      : kind === 1 ? rect(cx - size, cy - size, size * 2, size * 2, "body", size * 0.3)
      : kind === 2 ? poly(regularPoints(cx, cy, size * 1.2, 3, rng.range(0, 2 * Math.PI)))
      : poly(regularPoints(cx, cy, size, 48), "body", [regularPoints(cx, cy, size * 0.5, 32)]);
    parts.push(withColor(part, color));
  }
  return parts;
}
