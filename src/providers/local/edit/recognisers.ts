// The edits the local editor knows, one recogniser each: the words that name it, the words it
// understands around them, and how it reads its amount. Defaults follow common editors: a
// 3 px blur, 20% brighter, 25% more contrast, a quarter turn clockwise, 2x upscale.

import type { ScaleFactor } from "../../types.ts";
import type { CropRatio, EditOperation } from "../edit.ts";
import type { ClauseView } from "./recognise.ts";

export interface EditRecogniser {
  name: string;
  heads: ReadonlySet<string>;
  /** Heads that count only when no other edit is named ("turn" in "turn it black and white"). */
  weakHeads?: ReadonlySet<string>;
  words: ReadonlySet<string>;
  build(view: ClauseView): EditOperation;
}

export const LIGHT = ["light", "lightly", "slight", "slightly", "subtle", "subtly", "gentle", "gently", "mild", "mildly", "bit", "little", "tad", "touch", "soft", "softly", "somewhat"];
export const STRONG = ["strong", "stronger", "strongly", "heavy", "heavily", "very", "lot", "lots", "much", "really", "extra", "intense", "significantly", "way", "super", "extremely"];
const MORE = ["increase", "increased", "raise", "boost", "up", "more", "higher", "enhance", "plus"];
const LESS = ["decrease", "decreased", "reduce", "reduced", "lower", "down", "less", "minus"];
const REMOVE = ["remove", "removed", "delete", "erase", "drop", "strip", "transparent", "clear", "no", "without", "take", "cut", "isolate", "extract", "cutout"];

const set = (...groups: (string | readonly string[])[]) =>
  new Set(groups.flatMap((g) => (typeof g === "string" ? g.split(" ") : g)));

/** A percent from the clause's number, or else from its intensity words. */
function percent(view: ClauseView, what: string, light: number, normal: number, strong: number): number {
  const n = view.amount(["%", ""], what);
  if (n) return n.value;
  return { light, normal, strong }[view.intensity()];
}

function signed(view: ClauseView, value: number, negative: boolean, max: { up: number; down: number }): number {
  const result = negative !== value < 0 ? -Math.abs(value) : Math.abs(value);
  if (result === 0) view.fail("an adjustment of 0% changes nothing.");
  if (result > max.up || result < -max.down) view.fail(`the adjustment must be between -${max.down}% and +${max.up}%.`);
  return result;
}

const plain = (name: string, heads: string, words: string, kind: "grayscale" | "sepia" | "invert"): EditRecogniser => ({
  name,
  heads: set(heads),
  words: set(words),
  build(view) {
    view.noAmount();
    return { kind };
  },
});

export const EDITS: EditRecogniser[] = [
  plain("grayscale", "grayscale greyscale monochrome monochromatic mono desaturate desaturated gray grey bw", "tone toned colors colours color colour", "grayscale"),
  plain("sepia", "sepia", "tone toned tint tinted", "sepia"),
  plain("invert", "invert inverted inversion negative inverse", "colors colours color colour", "invert"),
  {
    name: "blur",
    heads: set("blur blurred blurry blurring soften defocus"),
    words: set("radius gaussian more out px", LIGHT, STRONG),
    build(view) {
      const n = view.amount(["px", ""], "a blur radius in pixels");
      const radius = n ? n.value : { light: 1.5, normal: 3, strong: 8 }[view.intensity()];
      if (!(radius > 0 && radius <= 100)) view.fail("the blur radius must be more than 0 and at most 100 px.");
      return { kind: "blur", radius };
    },
  },
  {
    name: "sharpen",
    heads: set("sharpen sharpened sharper sharp crisp crisper crispen unblur deblur"),
    words: set("more detail details", LIGHT, STRONG),
    build(view) {
      const amount = percent(view, "a sharpening amount in percent", 30, 60, 120);
      if (!(amount > 0 && amount <= 500)) view.fail("the sharpening amount must be more than 0% and at most 500%.");
      return { kind: "sharpen", amount: amount / 100 };
    },
  },
  {
    name: "brighten/darken",
    heads: set("brighten brightened brighter bright brightness lighten lightened lighter darken darkened darker dark darkness dim dimmer exposure"),
    words: set(MORE, LESS, LIGHT, STRONG),
    build(view) {
      const amount = percent(view, "a brightness change in percent", 10, 20, 40);
      const darker = view.has("darken", "darkened", "darker", "dark", "darkness", "dim", "dimmer");
      const negative = darker !== view.has(...LESS);
      return { kind: "brightness", percent: signed(view, amount, negative, { up: 300, down: 100 }) };
    },
  },
  {
    name: "contrast",
    heads: set("contrast contrasty"),
    words: set(MORE, LESS, LIGHT, STRONG),
    build(view) {
      const amount = percent(view, "a contrast change in percent", 10, 25, 50);
      return { kind: "contrast", percent: signed(view, amount, view.has(...LESS), { up: 300, down: 100 }) };
    },
  },
  {
    name: "rotate",
    heads: set("rotate rotated rotation rotating spin"),
    weakHeads: set("turn"),
    words: set("left right clockwise counterclockwise cw ccw upsidedown half quarter around by deg turn"),
    build(view) {
      const n = view.amount(["deg", ""], "an angle in degrees");
      const angle = n ? n.value : view.has("upsidedown", "half") ? 180 : 90;
      const counter = view.has("left", "counterclockwise", "ccw");
      if (counter && view.has("right", "clockwise", "cw")) view.fail("it gives two directions.");
      if (angle % 90 !== 0) view.fail("rotations are in steps of 90 degrees (90, 180 or 270).");
      const degrees = (((counter ? -angle : angle) % 360) + 360) % 360;
      if (degrees === 0) view.fail("a full turn changes nothing; rotate by 90, 180 or 270 degrees.");
      return { kind: "rotate", degrees: degrees as 90 | 180 | 270 };
    },
  },
  {
    name: "flip",
    heads: set("flip flipped flipping"),
    words: set("vertical vertically horizontal horizontally sideways upsidedown over axis along around"),
    build(view) {
      view.noAmount();
      return { kind: view.has("horizontal", "horizontally", "sideways") ? "mirror" : "flip" };
    },
  },
  {
    name: "mirror",
    heads: set("mirror mirrored mirroring"),
    words: set("vertical vertically horizontal horizontally sideways"),
    build(view) {
      view.noAmount();
      return { kind: view.has("vertical", "vertically") ? "flip" : "mirror" };
    },
  },
  {
    name: "crop",
    heads: set("crop cropped cropping reframe"),
    words: set("aspect ratio square portrait landscape vertical horizontal widescreen center centre centered centred middle format as from"),
    build: (view) => ({ kind: "crop", ratio: cropRatio(view) }),
  },
  {
    name: "remove background",
    heads: set("background backdrop bg cutout isolate"),
    words: set(REMOVE, "subject object foreground person product keep away off out"),
    build(view) {
      view.noAmount();
      if (!view.has(...REMOVE)) view.fail('say what to do with the background, e.g. "remove the background".');
      return { kind: "remove_background" };
    },
  },
  {
    name: "upscale",
    heads: set("upscale upscaled upscaling enlarge enlarged upsample upres bigger larger resolution res magnify double twice quadruple"),
    words: set("increase higher more size times factor hd by as big large"),
    build(view) {
      const n = view.amount(["x", "", "%"], "a scale factor such as 2x");
      let factor = view.has("quadruple") ? 4 : 2;
      if (n) factor = n.unit === "%" ? n.value / 100 : n.value;
      if (factor !== 2 && factor !== 4 && factor !== 8) view.fail("the upscale factor must be 2x, 4x or 8x.");
      return { kind: "upscale", factor: factor as ScaleFactor };
    },
  },
];

function cropRatio(view: ClauseView): CropRatio {
  const tokens = view.clause.tokens.filter((t) => t.kind !== "word");
  const ratio = tokens[0];
  if (tokens.length > 1 || (ratio && ratio.kind !== "ratio")) view.fail("a crop takes one aspect ratio, such as 16:9 or square.");
  const portrait = view.has("portrait", "vertical");
  const landscape = view.has("landscape", "horizontal", "widescreen");
  let [w, h] = ratio?.kind === "ratio" ? [ratio.width, ratio.height] : view.has("square") ? [1, 1] : view.has("widescreen") ? [16, 9] : portrait ? [3, 4] : landscape ? [4, 3] : [0, 0];
  if (!(w > 0 && h > 0)) view.fail("say which aspect ratio to crop to, e.g. 'crop to 16:9' or 'crop square'.");
  if (w / h > 10 || h / w > 10) view.fail("the aspect ratio must be between 1:10 and 10:1.");
  if ((portrait && w > h) || (landscape && h > w)) [w, h] = [h, w];
  return { width: w, height: h, label: `${w}:${h}` };
}
