import type { RasterImage } from "../../codecs/formats";
import { dimensionsFor } from "../aspect";
import type { ImageProvider, ProviderTask } from "../types";
import { checkEditFits, planEdit, type EditPlan } from "./edit";
import { cutOutPhoto, cutOutPhotoBytes, editPhoto, editPhotoBytes, workingRaster, workingRasterBytes } from "./full-size";
import { renderScene } from "./render";
import { composeSvg } from "./svg-composer";
import { assertUpscaleFits, UPSCALE_OUTPUT_LIMITS } from "../upscale-limits";
import { upscaleRows } from "./upscale";
import { pictureRows } from "../../codecs/picture-rows";

// The built-in provider: offline, deterministic, and honest about being classical image
// processing rather than a neural model. It serves every task, so `npm start` works with no
// account anywhere; its model rows (local-*) say what each part is.

/** Long side of a local render: large enough to look at, small enough to stay fast in a Worker. */
export const LOCAL_RENDER_LONG_SIDE = 1024;
/** What the general image model does for `action: upscale` on edit. */
const EDIT_UPSCALE_FACTOR = 2;

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

  memoryFor(task) {
    switch (task.kind) {
      case "generate":
        // The references are read one after another, each a working copy at most.
        return Math.max(0, ...task.references.map(workingRasterBytes));
      case "edit":
        return editPhotoBytes(task.image, planFor(task));
      case "remove_bg":
        return cutOutPhotoBytes(task.image);
      default:
        return 0;
    }
  },

  async run(task) {
    switch (task.kind) {
      case "generate": {
        // Only their colours are used (render/references.ts): a working copy of each does.
        const references: RasterImage[] = [];
        for (const reference of task.references) references.push(await workingRaster(reference));
        const size = dimensionsFor(task.aspectRatio, LOCAL_RENDER_LONG_SIDE);
        return { kind: "raster", image: renderScene({ prompt: task.prompt, seed: task.seed, ...size, references }), costUsd: 0 };
      }
      case "edit":
        return editPhoto(task.image, planFor(task));
      case "remove_bg":
        return cutOutPhoto(task.image);
      case "upscale":
        // Rows, made as the hosted file is written: the output is never whole (upscaleRows).
        return { kind: "rows", rows: upscaleRows(await pictureRows(task.image.bytes, task.image), task.factor), costUsd: 0 };
      case "svg":
        return { kind: "svg", markup: composeSvg({ prompt: task.prompt, style: task.style, seed: task.seed }), costUsd: 0 };
    }
  },
};
