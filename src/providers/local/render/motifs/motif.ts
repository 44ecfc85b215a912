// What a drawable motif is: the words that call it, its own colour for prompts that name none,
// where it belongs in a landscape, and how it is drawn in the unit box from the seeded Rng.

import type { Rgb } from "../color.ts";
import type { Rng } from "../rng.ts";
import type { Part } from "../shapes.ts";

export interface Motif {
  name: string;
  /** Singular words; the reader also accepts their plurals. */
  words: readonly string[];
  natural: Rgb;
  /** `sky` things float above the horizon, `ground` things stand on it, `any` go where asked. */
  place: "sky" | "ground" | "any";
  draw(rng: Rng): Part[];
}
