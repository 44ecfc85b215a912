// Words of an edit instruction: how "Make it black & white, then rotate 90° left" becomes
// clauses of tokens. Phrases that contain a separator word ("black and white") or span several
// words ("upside down", "scale up") are folded into one token first, so splitting on "and",
// "then" and commas cannot cut them apart. Recognising what a clause asks for is recognise.ts.

import { PixelgateError } from "../../../errors.ts";

/** What the local editor can do, in the words its error messages and docs use. */
export const SUPPORTED_EDITS: readonly string[] = [
  "grayscale (black and white, monochrome)",
  "sepia",
  "invert (negative)",
  "blur (light, strong, or a radius such as 'blur 4px')",
  "sharpen (light or strong)",
  "brighten / make lighter (optionally by a percent, e.g. 'brighten 20%')",
  "darken (optionally by a percent)",
  "increase or decrease contrast (optionally by a percent)",
  "rotate 90, 180 or 270 degrees (left/right, clockwise/counterclockwise)",
  "flip (vertically, top to bottom)",
  "mirror (flip horizontally)",
  "crop to an aspect ratio, centred ('crop to 16:9', 'crop square', 'crop to portrait 3:4')",
  "remove the background",
  "upscale / enlarge 2x, 4x or 8x",
];

export type Unit = "" | "%" | "px" | "x" | "deg";

export type Token =
  | { kind: "word"; word: string }
  | { kind: "number"; value: number; unit: Unit; text: string }
  | { kind: "ratio"; width: number; height: number; text: string };

export interface Clause {
  /** The clause as the user wrote it (after folding), for error messages. */
  text: string;
  tokens: Token[];
}

const PHRASES: [RegExp, string][] = [
  [/\bblack[\s-]*(?:and|&|n)?[\s-]*white\b|\bb\s*[&/]\s*w\b/g, " grayscale "],
  [/\bgr[ae]y\s*-?\s*scaled?\b/g, " grayscale "],
  [/\bremove\s+(?:the\s+|all\s+)?colou?rs?\b/g, " grayscale "],
  [/\bcounter\s*-?\s*clockwise\b|\banti\s*-?\s*clockwise\b/g, " counterclockwise "],
  [/\bupside\s*-?\s*down\b/g, " upsidedown "],
  [/\b(?:from\s+)?left\s+(?:to|and)\s+right\b|\bside\s+to\s+side\b/g, " horizontally "],
  [/\b(?:from\s+)?top\s+(?:to|and)\s+bottom\b/g, " vertically "],
  [/\bscale\s+(?:it\s+|this\s+)?up\b|\bsuper\s*-?\s*res(?:olution)?\b|\bup\s*-?\s*scale\b/g, " upscale "],
  [/\bcut\s+(?:it\s+)?out\b/g, " cutout "],
  [/\bget\s+rid\s+of\b/g, " remove "],
];

// The ratio form comes first so "16x9" is a ratio, not the number 16 with unit "x".
const TOKEN =
  /(\d+(?:\.\d+)?)\s*(?::|x|×|\/|\bby\b)\s*(\d+(?:\.\d+)?)|([+-]?\d+(?:\.\d+)?)\s*(%|percent\b|pct\b|px\b|pixels?\b|x\b|×|times\b|°|deg\b|degrees?\b)?|\bx\s*(\d+)\b|([a-z]+)/g;

/** The instruction as clauses in the order given; never empty. */
export function splitInstruction(instruction: string, param: string): Clause[] {
  let text = ` ${instruction.toLowerCase().replace(/['’]/g, "")} `;
  for (const [pattern, replacement] of PHRASES) text = text.replace(pattern, replacement);
  // Separators: punctuation (a dot only when it is not a decimal point), "and", "then",
  // "with", "plus", "also", "&", and "+" unless it signs a number.
  const parts = text.split(/[,;!?]|\.(?!\d)|\b(?:and|then|with|plus|also|after\s+that|afterwards)\b|&|\+(?!\s*\d)/);
  const clauses: Clause[] = [];
  for (const part of parts) {
    const tokens = tokenize(part);
    if (tokens.length) clauses.push({ text: part.trim().replace(/\s+/g, " "), tokens });
  }
  if (!clauses.length) {
    throw new PixelgateError("invalid_parameter", `The edit instruction is empty. ${supportedList()}`, { param });
  }
  return clauses;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    if (m[1] !== undefined) tokens.push({ kind: "ratio", width: Number(m[1]), height: Number(m[2]), text: m[0] });
    else if (m[3] !== undefined) tokens.push({ kind: "number", value: Number(m[3]), unit: unitOf(m[4]), text: m[0].trim() });
    else if (m[5] !== undefined) tokens.push({ kind: "number", value: Number(m[5]), unit: "x", text: m[0] });
    else tokens.push({ kind: "word", word: m[6]! });
  }
  return tokens;
}

const UNITS: Record<string, Unit> = {
  "%": "%", percent: "%", pct: "%",
  px: "px", pixel: "px", pixels: "px",
  x: "x", "×": "x", times: "x",
  "°": "deg", deg: "deg", degree: "deg", degrees: "deg",
};

function unitOf(suffix: string | undefined): Unit {
  return suffix ? (UNITS[suffix] ?? "") : "";
}

/** The sentence every "not understood" error ends with. */
export function supportedList(): string {
  return `The local editor (not a neural model) supports: ${SUPPORTED_EDITS.join("; ")}. Combine several with "and" or commas.`;
}
