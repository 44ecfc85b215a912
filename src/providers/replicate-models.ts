import { PixelgateError } from "../errors";
import { megapixelSize } from "./aspect";
import type { AcceptedInputsName } from "./accepted-inputs";
import type { AspectRatio, ProviderTask } from "./types";
import type { ImageReference } from "./input-links";

// The Replicate models the catalogue seeds, each called with the input names its model page
// documents (replicate.com/<owner>/<name>/api; checked 2026-11). A model listed here is called
// with exactly these names; any other Replicate id gets the generic input (replicate-input.ts).
// - black-forest-labs/flux-2-pro: `prompt`, `input_images` (up to 8: references, or the image to
//   edit), `aspect_ratio` (1:1, 16:9, 3:2, 2:3, 4:5, 5:4, 9:16, 3:4, 4:3, or `custom` with
//   `width`/`height` 256..2048, multiples of 32), `seed`, `output_format` (webp, jpg, png).
// - black-forest-labs/flux-kontext-pro: instruction edits of one image: `prompt`, `input_image`,
//   `aspect_ratio` (the list above plus 21:9, 9:21, 2:1, 1:2, or `match_input_image`), `seed`,
//   `output_format` (jpg, png).
// - black-forest-labs/flux-1.1-pro: `prompt`, `aspect_ratio` (as flux-2-pro, `custom` with
//   `width`/`height` 256..1440), `image_prompt` (one reference), `seed`, `output_format`.
// - bria/remove-background: `image`, `preserve_alpha`.
// - topazlabs/image-upscale: `image`, `upscale_factor` ("2x", "4x" or "6x"), `output_format`.
// - cjwbw/rembg (community, run by version): `image`.
// - nightmareai/real-esrgan (community, run by version): `image`, `scale` (up to 10),
//   `face_enhance`.
// - recraft-ai/recraft-v3-svg: `prompt`, `size`. Its `style` is an enum of Recraft's own
//   ("any", "line_art", ...) that our free-text style would fail, so the style is worded into
//   the prompt instead.

const FLUX_RATIOS = ["1:1", "16:9", "3:2", "2:3", "4:5", "5:4", "9:16", "3:4", "4:3"];
const KONTEXT_RATIOS = [...FLUX_RATIOS, "21:9", "9:21", "2:1", "1:2"];
const FLUX2_MAX_IMAGES = 8;
const TOPAZ_FACTORS: Record<number, string> = { 2: "2x", 4: "4x" };

interface ReplicateModel {
  /** The row of ACCEPTED_INPUTS its input images are made to fit (default: `replicate`). */
  accepts?: AcceptedInputsName;
  /** Refuses, before the charge, what this model cannot do (free 4xx). */
  check?(task: ProviderTask, name: string): void;
  /** `ref`: how each input image travels (a data URI, or a link to our copy when large). */
  input(task: ProviderTask, ref: ImageReference): Record<string, unknown>;
}

const refuse = (message: string, param: string): never => {
  throw new PixelgateError("invalid_parameter", `${message}; choose another model.`, { param });
};

/** The documented ratio, or `custom` with a size of about a megapixel (sides multiples of 32, at most `maxSide`). */
function fluxAspect(ratio: AspectRatio, allowed: string[], maxSide: number): Record<string, unknown> {
  if (allowed.includes(ratio.label)) return { aspect_ratio: ratio.label };
  return { aspect_ratio: "custom", ...megapixelSize(ratio, { multiple: 32, min: 256, max: maxSide }) };
}

const MODELS: Record<string, ReplicateModel> = {
  "black-forest-labs/flux-2-pro": {
    accepts: "replicate-flux",
    check(task, name) {
      if (task.kind === "generate" && task.references.length > FLUX2_MAX_IMAGES) refuse(`${name} takes at most ${FLUX2_MAX_IMAGES} reference images`, "referenceImages");
    },
    input(task, ref) {
      if (task.kind !== "generate" && task.kind !== "edit") return {};
      const images = task.kind === "edit" ? [task.image] : task.references;
      const input: Record<string, unknown> = { prompt: task.prompt, ...fluxAspect(task.aspectRatio, FLUX_RATIOS, 2048), seed: task.seed, output_format: "png" };
      if (images.length > 0) input.input_images = images.map(ref);
      return input;
    },
  },
  "black-forest-labs/flux-kontext-pro": {
    accepts: "replicate-flux",
    check(task, name) {
      if (task.kind === "generate" && task.references.length > 1) refuse(`${name} takes one reference image`, "referenceImages");
    },
    input(task, ref) {
      if (task.kind !== "generate" && task.kind !== "edit") return {};
      const image = task.kind === "edit" ? task.image : task.references[0];
      const aspect = KONTEXT_RATIOS.includes(task.aspectRatio.label) ? task.aspectRatio.label : "match_input_image";
      return { prompt: task.prompt, ...(image ? { input_image: ref(image) } : {}), aspect_ratio: aspect, seed: task.seed, output_format: "png" };
    },
  },
  "black-forest-labs/flux-1.1-pro": {
    accepts: "replicate-flux",
    check(task, name) {
      if (task.kind === "edit") refuse(`${name} is text-to-image and cannot edit an image`, "model");
      if (task.kind === "generate" && task.references.length > 1) refuse(`${name} takes one reference image`, "referenceImages");
    },
    input(task, ref) {
      if (task.kind !== "generate") return {};
      const [reference] = task.references;
      return { prompt: task.prompt, ...fluxAspect(task.aspectRatio, FLUX_RATIOS, 1440), seed: task.seed, output_format: "png", ...(reference ? { image_prompt: ref(reference) } : {}) };
    },
  },
  "bria/remove-background": {
    input: (task, ref) => (task.kind === "remove_bg" ? { image: ref(task.image), preserve_alpha: true } : {}),
  },
  "topazlabs/image-upscale": {
    check(task, name) {
      if (task.kind === "upscale" && !TOPAZ_FACTORS[task.factor]) refuse(`${name} upscales by 2x or 4x (its largest, 6x, is not one of ours), not ${task.factor}x`, "scaleFactor");
    },
    input: (task, ref) => (task.kind === "upscale" ? { image: ref(task.image), upscale_factor: TOPAZ_FACTORS[task.factor], output_format: "png" } : {}),
  },
  "cjwbw/rembg": {
    input: (task, ref) => (task.kind === "remove_bg" ? { image: ref(task.image) } : {}),
  },
  "nightmareai/real-esrgan": {
    input: (task, ref) => (task.kind === "upscale" ? { image: ref(task.image), scale: task.factor, face_enhance: false } : {}),
  },
  "recraft-ai/recraft-v3-svg": {
    input(task) {
      if (task.kind !== "svg") return {};
      const style = task.style.trim();
      return { prompt: style ? `${task.prompt}, in ${style} style` : task.prompt, size: "1024x1024" };
    },
  },
};

/** The catalogue's entry for an upstream id ("owner/name" or "owner/name:version"), if any. */
export function knownReplicateModel(upstreamModel: string): ReplicateModel | undefined {
  return MODELS[upstreamModel.split(":")[0]!];
}
