// The colours of a picture: from the prompt's colour words first, then the references'
// dominant colours, the subject's own colour, a theme (sunset, ocean, ...), and finally a hue
// derived from a hash of the words, so even an unknown prompt gets its own stable palette.
// The background is always pushed far enough from the subject to tell them apart, which is
// what lets the classical cut-out of generate-transparent isolate the subject.

import { adjust, darken, distance, fromHsl, lighten, luminance, mix, toHsl, type Rgb } from "./color.ts";
import type { Motif } from "./motifs/index.ts";
import type { PromptReading } from "./reading.ts";
import { hashText, type Rng } from "./rng.ts";
import type { Tone } from "./words.ts";

export interface Palette {
  body: Rgb;
  accent: Rgb;
  shade: Rgb;
  light: Rgb;
  dark: Rgb;
  /** Background gradient: start and end colour. */
  background: readonly [Rgb, Rgb];
  /** More colours for abstract pictures and patterns. */
  extras: Rgb[];
}

const MIN_SUBJECT_CONTRAST = 130;

function applyTones(c: Rgb, tones: Set<Tone>): Rgb {
  let out = c;
  if (tones.has("pastel")) out = adjust(lighten(out, 0.4), 0, -0.15, 0);
  if (tones.has("light")) out = lighten(out, 0.3);
  if (tones.has("dark")) out = darken(out, 0.35);
  if (tones.has("vivid")) out = adjust(out, 0, 0.3, 0);
  if (tones.has("muted")) out = adjust(out, 0, -0.35, 0);
  if (tones.has("neon")) {
    const [h] = toHsl(out);
    out = fromHsl(h, 1, 0.55);
  }
  return out;
}

/** A quiet background that stands apart from the subject: dark behind light subjects, light behind dark ones. */
function backgroundFor(body: Rgb, rng: Rng, tones: Set<Tone>): [Rgb, Rgb] {
  const [h] = toHsl(body);
  const hue = h + rng.range(150, 210);
  const dark = tones.has("neon") || tones.has("dark") || luminance(body) > 0.62;
  const l = dark ? rng.range(0.12, 0.22) : rng.range(0.86, 0.93);
  const s = tones.has("muted") ? 0.1 : rng.range(0.2, 0.45);
  return [fromHsl(hue, s, l), fromHsl(hue + rng.range(-25, 25), s, dark ? l + 0.1 : l - 0.08)];
}

/** Moves the background away from the subject colour until the two are clearly apart. */
function separate(background: [Rgb, Rgb], body: Rgb): [Rgb, Rgb] {
  let [a, b] = background;
  const towardsBlack = luminance(body) > 0.5;
  for (let step = 0; step < 10 && Math.min(distance(a, body), distance(b, body)) < MIN_SUBJECT_CONTRAST; step++) {
    a = towardsBlack ? darken(a, 0.25) : lighten(a, 0.25);
    b = towardsBlack ? darken(b, 0.25) : lighten(b, 0.25);
  }
  return [a, b];
}

/**
 * The body colour of the motif named `index`-th: the subject (index 0) takes the palette's body;
 * the others their own colour word in order, else their natural colour ("a sun over a
 * mountain": a yellow sun, a slate mountain), toned like the rest.
 */
export function motifColor(reading: PromptReading, palette: Palette, motif: Motif, index: number): Rgb {
  if (index === 0) return palette.body;
  return applyTones(reading.colors[index] ?? motif.natural, reading.tones);
}

export function buildPalette(reading: PromptReading, references: Rgb[], rng: Rng): Palette {
  const theme = reading.themes[0];
  const motif = reading.motifs[0];
  const hashedHue = (hashText(reading.words.join(" ")) % 360) + rng.range(-20, 20);
  const hashed = fromHsl(hashedHue, rng.range(0.55, 0.8), rng.range(0.45, 0.6));
  const body = reading.colors[0] ?? references[0] ?? motif?.natural ?? theme?.colors[0] ?? hashed;
  const accentCandidate = reading.colors[1] ?? theme?.colors[1] ?? references[1] ?? adjust(body, rng.range(120, 200), 0, 0);
  const accent = distance(accentCandidate, body) < 60 ? adjust(body, 40, 0, luminance(body) > 0.5 ? -0.25 : 0.2) : accentCandidate;

  const namedBackground = reading.words.includes("background") && reading.colors.length >= 2 ? reading.colors.at(-1) : undefined;
  let background: [Rgb, Rgb];
  if (namedBackground) background = [namedBackground, darken(namedBackground, 0.15)];
  else if (theme) background = [theme.sky[0], theme.sky[1]];
  else if (reading.layout === "scene") background = [[120, 175, 235], [215, 232, 248]]; // a landscape has a daytime sky
  else if (references[2]) background = [references[2], mix(references[2], references[0] ?? references[2], 0.3)];
  else background = backgroundFor(body, rng, reading.tones);

  const tones = reading.tones;
  const tonedBody = applyTones(body, tones);
  const tonedAccent = applyTones(accent, tones);
  const tonedBackground: [Rgb, Rgb] = namedBackground || theme || reading.layout === "scene" ? [applyTones(background[0], tones), applyTones(background[1], tones)] : background;
  const extras = [0, 1, 2, 3].map((i) => applyTones(reading.colors[i + 2] ?? references[i + 2] ?? adjust(body, 45 * (i + 1) + rng.range(-15, 15), 0, rng.range(-0.1, 0.1)), tones));
  return {
    body: tonedBody,
    accent: tonedAccent,
    shade: darken(tonedBody, 0.28),
    light: lighten(tonedBody, 0.5),
    dark: darken(tonedBody, 0.78),
    // A landscape is not one subject to cut out: its sky stays the colour of a sky.
    background: reading.layout === "scene" ? tonedBackground : separate(tonedBackground, tonedBody),
    extras,
  };
}
