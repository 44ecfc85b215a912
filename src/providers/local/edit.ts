// The local instruction editor (the edit tool on a local model): plain-language instructions
// mapped to classical image operations, not a neural model. planEdit runs before any credit is
// taken and refuses what it cannot do (400 invalid_parameter naming what it supports), so an
// unknown instruction is never charged for and never "succeeds" by returning the input.
//
//   const plan = planEdit("black and white, then rotate 90 left and crop to 16:9");
//   checkEditFits(plan, header.width, header.height);   // output size limits, pre-charge
//   const edited = applyEdit(image, plan);

import type { RasterImage } from "../../codecs/formats.ts";
import { PixelgateError } from "../../errors.ts";
import type { ScaleFactor } from "../types.ts";
import { cutOutBackground } from "./cutout.ts";
import { blur, sharpen } from "./edit/blur.ts";
import { crop, cropSize, flipVertical, mirror, rotate } from "./edit/geometry.ts";
import { splitInstruction, supportedList } from "./edit/grammar.ts";
import { recogniseClause } from "./edit/recognise.ts";
import { adjustBrightness, adjustContrast, grayscale, invert, sepia } from "./edit/tone.ts";
import { assertUpscaleFits, UPSCALE_OUTPUT_LIMITS } from "../upscale-limits.ts";
import { upscaleLanczos } from "./upscale.ts";

export { SUPPORTED_EDITS } from "./edit/grammar.ts";

/** An aspect ratio to crop to: width and height units, e.g. 16 and 9. */
export interface CropRatio {
  width: number;
  height: number;
  label: string;
}

export type EditOperation =
  | { kind: "grayscale" }
  | { kind: "sepia" }
  | { kind: "invert" }
  /** Gaussian blur; `radius` is the standard deviation in pixels (as in CSS blur()). */
  | { kind: "blur"; radius: number }
  /** Unsharp mask; `amount` 1 adds the full difference from a 1 px blur. */
  | { kind: "sharpen"; amount: number }
  /** Percent change of every channel (as in CSS brightness()); negative darkens. */
  | { kind: "brightness"; percent: number }
  /** Percent change of the distance from mid-grey (as in CSS contrast()); negative lowers. */
  | { kind: "contrast"; percent: number }
  /** Clockwise quarter turns. */
  | { kind: "rotate"; degrees: 90 | 180 | 270 }
  /** Top to bottom. */
  | { kind: "flip" }
  /** Left to right. */
  | { kind: "mirror" }
  /** The largest centred region with this aspect ratio. */
  | { kind: "crop"; ratio: CropRatio }
  | { kind: "remove_background" }
  | { kind: "upscale"; factor: ScaleFactor };

export interface EditPlan {
  /** The operations, applied in the order the instruction gave them. */
  operations: EditOperation[];
  /** What will be done, e.g. "grayscale, then rotate 90° clockwise", for messages and logs. */
  summary: string;
}

/** Parses an instruction; throws invalid_parameter (on `param`) for anything it cannot do. */
export function planEdit(instruction: string, param = "prompt"): EditPlan {
  const operations = splitInstruction(instruction, param).flatMap((clause) => recogniseClause(clause, param) ?? []);
  if (!operations.length) {
    throw new PixelgateError("invalid_parameter", `"${instruction.trim()}" names no edit the local editor knows. ${supportedList()}`, { param });
  }
  return { operations, summary: operations.map(describe).join(", then ") };
}

/**
 * Pre-charge size check: follows the image's size through the plan (turns swap the sides, crops
 * shrink them) and refuses an upscale whose output would pass the limit.
 */
export function checkEditFits(plan: EditPlan, width: number, height: number): void {
  let w = width;
  let h = height;
  for (const op of plan.operations) {
    if (op.kind === "rotate" && op.degrees !== 180) [w, h] = [h, w];
    else if (op.kind === "crop") [w, h] = cropSize(w, h, op.ratio);
    else if (op.kind === "upscale") {
      assertUpscaleFits(w, h, op.factor, "prompt", UPSCALE_OUTPUT_LIMITS.raster);
      w *= op.factor;
      h *= op.factor;
    }
  }
}

/** Applies the plan to a copy; the input image is left as it was. */
export function applyEdit(image: RasterImage, plan: EditPlan): RasterImage {
  checkEditFits(plan, image.width, image.height);
  let current = image;
  for (const op of plan.operations) current = applyOperation(current, op);
  return current === image ? { ...image, data: image.data.slice() } : current;
}

function applyOperation(image: RasterImage, op: EditOperation): RasterImage {
  switch (op.kind) {
    case "grayscale": return grayscale(image);
    case "sepia": return sepia(image);
    case "invert": return invert(image);
    case "blur": return blur(image, op.radius);
    case "sharpen": return sharpen(image, op.amount);
    case "brightness": return adjustBrightness(image, op.percent);
    case "contrast": return adjustContrast(image, op.percent);
    case "rotate": return rotate(image, op.degrees);
    case "flip": return flipVertical(image);
    case "mirror": return mirror(image);
    case "crop": return crop(image, op.ratio);
    case "upscale": return upscaleLanczos(image, op.factor);
    case "remove_background": {
      const { image: cut, backgroundFound } = cutOutBackground(image);
      // The cut-out is the "model" of this step; when it finds no backdrop to remove it has
      // failed at the task, which the billed-call path refunds, rather than handing back an
      // opaque image as if the background had been removed.
      if (!backgroundFound) {
        throw new PixelgateError(
          "upstream_error",
          "The local cut-out (not a neural model) found no plain or smoothly varying background to remove in this image.",
        );
      }
      return cut;
    }
  }
}

function describe(op: EditOperation): string {
  switch (op.kind) {
    case "blur": return `blur (radius ${op.radius} px)`;
    case "sharpen": return `sharpen (amount ${Math.round(op.amount * 100)}%)`;
    case "brightness": return op.percent >= 0 ? `brighten ${op.percent}%` : `darken ${-op.percent}%`;
    case "contrast": return `${op.percent >= 0 ? "increase" : "decrease"} contrast ${Math.abs(op.percent)}%`;
    case "rotate": return `rotate ${op.degrees}° clockwise`;
    case "flip": return "flip vertically";
    case "mirror": return "mirror horizontally";
    case "crop": return `crop to ${op.ratio.label}`;
    case "remove_background": return "remove the background";
    case "upscale": return `upscale ${op.factor}x`;
    default: return op.kind;
  }
}
