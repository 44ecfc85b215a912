// Reads a prompt into what the renderers can draw: motifs, colours, themes, tone, placement,
// layout and style. Plain word lookup, no grammar: "a red circle on the left" gives the circle
// motif, the colour red and a subject centred at 27% of the width.

import type { Rgb } from "./color.ts";
import { motifForWord, type Motif } from "./motifs/index.ts";
import {
  COLOR_WORDS, COUNT_WORDS, PATTERN_WORDS, PLACE_WORDS, SCENE_WORDS, SIZE_WORDS, STYLE_WORDS, THEME_WORDS, TONE_WORDS,
  type StyleWord, type Theme, type Tone,
} from "./words.ts";

export interface PromptReading {
  /** Lower-case words, in order. */
  words: string[];
  /** Motifs in the order named, each once; empty when the prompt names none (an abstract picture). */
  motifs: Motif[];
  colors: Rgb[];
  themes: Theme[];
  tones: Set<Tone>;
  styles: Set<StyleWord>;
  /** The subject's centre as fractions of width and height. */
  placement: { x: number; y: number };
  layout: "single" | "pattern" | "scene";
  /** How many copies of the subject ("three stars"). */
  count: number;
  /** Relative subject size ("a tiny star"). */
  scale: number;
}

/** Splits on anything that is not a letter or digit; apostrophes vanish ("cat's" -> "cats"). */
export function promptWords(prompt: string): string[] {
  return prompt.toLowerCase().replace(/['\u2019]/g, "").split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

export function readPrompt(prompt: string): PromptReading {
  const words = promptWords(prompt);
  const reading: PromptReading = {
    words, motifs: [], colors: [], themes: [], tones: new Set(), styles: new Set(),
    placement: { x: 0.5, y: 0.5 }, layout: "single", count: 1, scale: 1,
  };
  for (const word of words) {
    const color = COLOR_WORDS[word];
    const theme = THEME_WORDS[word];
    const place = PLACE_WORDS[word];
    const motif = color ? undefined : motifForWord(word);
    if (color) reading.colors.push(color);
    if (theme) reading.themes.push(theme);
    if (motif && !reading.motifs.includes(motif)) reading.motifs.push(motif);
    if (TONE_WORDS[word]) reading.tones.add(TONE_WORDS[word]);
    if (STYLE_WORDS[word]) reading.styles.add(STYLE_WORDS[word]);
    if (place) reading.placement = { x: place.x ?? reading.placement.x, y: place.y ?? reading.placement.y };
    if (SIZE_WORDS[word]) reading.scale = SIZE_WORDS[word];
    if (COUNT_WORDS[word] && reading.count === 1) reading.count = COUNT_WORDS[word];
    if (PATTERN_WORDS.has(word)) reading.layout = "pattern";
    if (SCENE_WORDS.has(word) && reading.layout === "single") reading.layout = "scene";
  }
  // A theme that suggests a subject ("a sunset" -> a sun) supplies one when the words name none.
  if (reading.motifs.length === 0) {
    const suggested = reading.themes.find((t) => t.motif)?.motif;
    const motif = suggested ? motifForWord(suggested) : undefined;
    if (motif) reading.motifs.push(motif);
  }
  return reading;
}
