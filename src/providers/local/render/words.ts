// The words the local renderers understand besides motifs: colour names, things that stand for
// a palette (sunset, ocean, forest, ...), tone modifiers, composition and style words.

import type { Rgb } from "./color.ts";

export const COLOR_WORDS: Readonly<Record<string, Rgb>> = {
  red: [220, 40, 50], crimson: [190, 20, 50], scarlet: [235, 40, 30], maroon: [128, 20, 40], burgundy: [120, 25, 50],
  orange: [245, 130, 30], amber: [255, 180, 0], peach: [255, 190, 150], coral: [255, 120, 95],
  yellow: [250, 215, 40], gold: [230, 180, 40], golden: [230, 180, 40], lemon: [250, 235, 80],
  green: [50, 170, 80], emerald: [20, 160, 110], lime: [160, 220, 40], olive: [120, 130, 50], mint: [150, 230, 190],
  teal: [20, 140, 140], cyan: [30, 200, 220], turquoise: [50, 210, 200], aqua: [60, 220, 220],
  blue: [40, 100, 220], azure: [40, 150, 250], navy: [20, 35, 100], cobalt: [0, 70, 170], indigo: [75, 40, 160],
  purple: [130, 50, 180], violet: [140, 80, 220], lavender: [185, 160, 230], lilac: [200, 160, 220], magenta: [220, 40, 170],
  pink: [245, 120, 170], fuchsia: [235, 50, 180],
  brown: [130, 85, 50], chocolate: [110, 60, 30], tan: [210, 180, 140], beige: [235, 220, 190], cream: [250, 242, 215], ivory: [252, 248, 232],
  black: [20, 20, 24], white: [250, 250, 250], gray: [128, 130, 135], grey: [128, 130, 135], silver: [190, 195, 200], charcoal: [55, 60, 65],
};

/** Things that bring their colours with them, and the motif they suggest when the prompt names none. */
export interface Theme {
  colors: readonly Rgb[];
  /** Background top and bottom. */
  sky: readonly [Rgb, Rgb];
  motif?: string;
}

const SUNSET: Theme = { colors: [[255, 170, 50], [240, 90, 80]], sky: [[120, 60, 140], [255, 150, 90]], motif: "sun" };
const NIGHT: Theme = { colors: [[250, 230, 150], [60, 70, 140]], sky: [[10, 15, 45], [40, 50, 110]], motif: "moon" };

export const THEME_WORDS: Readonly<Record<string, Theme>> = {
  sunset: SUNSET, sunrise: SUNSET, dusk: SUNSET, dawn: { ...SUNSET, sky: [[250, 180, 160], [255, 230, 170]] },
  night: NIGHT, midnight: NIGHT, starry: { ...NIGHT, motif: "star" },
  space: { colors: [[240, 240, 255], [150, 90, 220]], sky: [[5, 5, 25], [45, 20, 80]], motif: "star" },
  galaxy: { colors: [[240, 240, 255], [150, 90, 220]], sky: [[5, 5, 25], [45, 20, 80]], motif: "star" },
  ocean: { colors: [[20, 120, 200], [40, 200, 210]], sky: [[160, 220, 245], [30, 110, 180]] },
  sea: { colors: [[20, 120, 200], [40, 200, 210]], sky: [[160, 220, 245], [30, 110, 180]] },
  beach: { colors: [[40, 170, 210], [240, 210, 150]], sky: [[140, 210, 250], [250, 230, 180]] },
  forest: { colors: [[40, 130, 60], [120, 85, 50]], sky: [[200, 230, 200], [90, 150, 100]], motif: "tree" },
  jungle: { colors: [[30, 140, 50], [200, 220, 60]], sky: [[180, 230, 170], [40, 110, 60]], motif: "tree" },
  snowy: { colors: [[245, 250, 255], [150, 190, 230]], sky: [[200, 220, 240], [240, 245, 250]] },
  snow: { colors: [[245, 250, 255], [150, 190, 230]], sky: [[200, 220, 240], [240, 245, 250]] },
  winter: { colors: [[230, 240, 255], [120, 160, 210]], sky: [[190, 210, 235], [235, 242, 250]] },
  ice: { colors: [[200, 235, 250], [90, 170, 220]], sky: [[220, 240, 250], [150, 200, 235]] },
  fire: { colors: [[255, 120, 20], [255, 210, 60]], sky: [[60, 10, 10], [200, 50, 20]] },
  lava: { colors: [[255, 90, 10], [255, 200, 40]], sky: [[40, 10, 10], [150, 30, 10]] },
  desert: { colors: [[230, 160, 80], [200, 110, 60]], sky: [[250, 225, 180], [230, 180, 120]] },
  autumn: { colors: [[220, 110, 30], [170, 50, 30]], sky: [[250, 220, 170], [230, 160, 100]], motif: "leaf" },
  spring: { colors: [[240, 130, 180], [120, 200, 100]], sky: [[230, 245, 220], [250, 225, 235]], motif: "flower" },
  candy: { colors: [[255, 120, 190], [120, 210, 250]], sky: [[255, 230, 245], [220, 240, 255]] },
  sky: { colors: [[255, 255, 255], [90, 170, 240]], sky: [[90, 160, 240], [200, 230, 255]] },
};

export type Tone = "pastel" | "neon" | "dark" | "light" | "vivid" | "muted";
export const TONE_WORDS: Readonly<Record<string, Tone>> = {
  pastel: "pastel", soft: "pastel", neon: "neon", glowing: "neon", fluorescent: "neon", dark: "dark", deep: "dark", moody: "dark",
  light: "light", pale: "light", bright: "vivid", vivid: "vivid", vibrant: "vivid", saturated: "vivid", muted: "muted", dull: "muted", faded: "muted",
};

export type StyleWord = "flat" | "gradient" | "minimal" | "retro" | "grain";
export const STYLE_WORDS: Readonly<Record<string, StyleWord>> = {
  flat: "flat", gradient: "gradient", shaded: "gradient", glossy: "gradient", minimal: "minimal", minimalist: "minimal", simple: "minimal",
  retro: "retro", vintage: "retro", synthwave: "retro", vaporwave: "retro", "80s": "retro", noisy: "grain", noise: "grain",
  grain: "grain", grainy: "grain", textured: "grain", film: "grain",
};

/** Where the subject goes, as its centre in [0, 1] of the width or the height. */
export const PLACE_WORDS: Readonly<Record<string, { x?: number; y?: number }>> = {
  left: { x: 0.27 }, right: { x: 0.73 }, top: { y: 0.27 }, upper: { y: 0.3 }, above: { y: 0.3 }, bottom: { y: 0.73 }, lower: { y: 0.7 },
  below: { y: 0.7 }, center: { x: 0.5, y: 0.5 }, centre: { x: 0.5, y: 0.5 }, centered: { x: 0.5, y: 0.5 }, centred: { x: 0.5, y: 0.5 }, middle: { x: 0.5, y: 0.5 },
};

export const PATTERN_WORDS = new Set(["pattern", "grid", "tiled", "tiles", "repeating", "repeat", "seamless", "wallpaper", "many", "lots"]);
export const SCENE_WORDS = new Set(["horizon", "landscape", "scenery", "scene", "ground", "field", "hills", "meadow", "valley", "lake"]);
export const SIZE_WORDS: Readonly<Record<string, number>> = { tiny: 0.5, small: 0.65, little: 0.7, big: 1.2, large: 1.2, huge: 1.35, giant: 1.35 };
export const COUNT_WORDS: Readonly<Record<string, number>> = {
  two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, pair: 2, couple: 2, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
};
