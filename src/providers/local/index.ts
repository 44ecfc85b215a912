import { decodeImage } from "../../codecs";
import type { RasterImage } from "../../codecs/formats";
import { PixelgateError } from "../../errors";
import { dimensionsFor } from "../aspect";
import type { ImageProvider, ProviderTask, TaskImage } from "../types";
import { cutOutBackground } from "./cutout";
import { applyEdit, checkEditFits, planEdit, type EditPlan } from "./edit";
import { renderScene } from "./render";
import { composeSvg } from "./svg-composer";
import { assertUpscaleFits, UPSCALE_OUTPUT_LIMITS } from "../upscale-limits";
import { upscaleRows } from "./upscale";

// The built-in provider: offline, deterministic, and honest about being classical image
// processing rather than a neural model. It serves every task, so `npm start` works with no
// account anywhere; its model rows (local-*) say what each part is.

/** Long side of a local render: large enough to look at, small enough to stay fast in a Worker. */
export const LOCAL_RENDER_LONG_SIDE = 1024;
/** What the general image model does for `action: upscale` on edit. */
const EDIT_UPSCALE_FACTOR = 2;

function decode(image: TaskImage): Promise<RasterImage> {
  return decodeImage(image.bytes, image);
}

/** What an edit does, decided from the action and the instruction. */
function planFor(task: Extract<ProviderTask, { kind: "edit" }>): EditPlan {
  if (task.action === "remove_bg") return planEdit("remove the background");
  if (task.action === "upscale") return planEdit(`upscale ${EDIT_UPSCALE_FACTOR}x`);
  return planEdit(task.prompt);
}

export const localProvider: ImageProvider = {
  name: "local",
  // The renderer and the SVG composer draw from the seed; the editor, cut-out and upscaler are deterministic image processing.
  seeded: ["generate", "svg"],

  check(task) {
    switch (task.kind) {
      case "edit":
        checkEditFits(planFor(task), task.image.width, task.image.height);
        return;
      case "upscale":
        assertUpscaleFits(task.image.width, task.image.height, task.factor, "image", UPSCALE_OUTPUT_LIMITS.streamed);
        return;
      default:
        return;
    }
  },

  async run(task) {
    switch (task.kind) {
      case "generate": {
        const references = await Promise.all(task.references.map(decode));
        const size = dimensionsFor(task.aspectRatio, LOCAL_RENDER_LONG_SIDE);
        return { kind: "raster", image: renderScene({ prompt: task.prompt, seed: task.seed, ...size, references }), costUsd: 0 };
      }
      case "edit":
        return { kind: "raster", image: applyEdit(await decode(task.image), planFor(task)), costUsd: 0 };
      case "remove_bg":
        return { kind: "raster", image: cutOutOrFail(await decode(task.image)), costUsd: 0 };
      case "upscale":
        // Rows, made as the hosted file is written: the output is never whole (upscaleRows).
        return { kind: "rows", rows: upscaleRows(await decode(task.image), task.factor), costUsd: 0 };
      case "svg":
        return { kind: "svg", markup: composeSvg({ prompt: task.prompt, style: task.style, seed: task.seed }), costUsd: 0 };
    }
  },
};

/**
 * A cut-out that found no background to remove failed: answering the unchanged picture as a
 * "transparent PNG" would be a lie. generate-transparent turns this failure into
 * `isTransparent: false`; on remove-background it is refunded like any provider failure.
 */
function cutOutOrFail(image: RasterImage): RasterImage {
  const cut = cutOutBackground(image);
  if (!cut.backgroundFound) {
    throw new PixelgateError(
      "upstream_error",
      "The local cut-out found no uniform or smoothly varying background to remove; try a subject on a plain background, or a neural cut-out model.",
    );
  }
  return cut.image;
}
