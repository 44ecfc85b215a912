// The motif vocabulary: every drawable subject, found by any of its words or their plurals.

import { GEOMETRIC_MOTIFS } from "./geometric.ts";
import type { Motif } from "./motif.ts";
import { NATURE_MOTIFS } from "./nature.ts";
import { THING_MOTIFS } from "./things.ts";

export type { Motif } from "./motif.ts";

export const MOTIFS: readonly Motif[] = [...GEOMETRIC_MOTIFS, ...NATURE_MOTIFS, ...THING_MOTIFS];

const BY_WORD = new Map<string, Motif>();
for (const motif of MOTIFS) for (const word of motif.words) BY_WORD.set(word, motif);

/** The motif a word names: exact, or the plural of a motif word (stars, boxes, leaves, daisies). */
export function motifForWord(word: string): Motif | undefined {
  const exact = BY_WORD.get(word);
  if (exact) return exact;
  for (const singular of [word.slice(0, -1), word.slice(0, -2), word.replace(/ies$/, "y"), word.replace(/ves$/, "f")]) {
    if (singular.length > 1 && word.endsWith("s") && BY_WORD.has(singular)) return BY_WORD.get(singular);
  }
  return undefined;
}

export function motifByName(name: string): Motif {
  const found = MOTIFS.find((m) => m.name === name);
  if (!found) throw new Error(`no motif named ${name}`);
  return found;
}
