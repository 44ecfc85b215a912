import { isolateCodecGate, waitingBytes, type Permit } from "../codecs";
import { WorkBudget } from "../codecs/fuel";
import { ISOLATE_CODEC_BUDGET } from "../codecs/limits";
import { PixelgateError } from "../errors";
import type { Model } from "../models/catalog";
import { inputImagesOf } from "../providers/input-links";
import { memoryForTask, type ProviderTask } from "../providers";
import type { ToolContext } from "./types";

// The memory side of the model tools, as codec-work.ts is compress's and convert's: what the
// call's own codec work will need (a photo turned upright or converted for the provider, a
// local model's reading and writing) is priced from the headers in prepare(), before any
// credit is taken, and admitted by the isolate's memory gate; run() holds the admission
// (codec-work.ts holdingPermit), on the work budget priced here too.

const MiB = 1024 * 1024;

/**
 * Admits `task` on `model` at the memory gate: null when it does no codec work here;
 * image_too_large when it could not fit the isolate even alone; service_busy (503, Retry-After)
 * when the isolate stays full for the gate's whole wait. All free.
 */
export async function admitModelWork(task: ProviderTask, model: Model, ctx: ToolContext): Promise<Permit | null> {
  const bytes = memoryForTask(task, model);
  if (bytes <= 0) return null;
  const images = inputImagesOf(task);
  if (bytes > ISOLATE_CODEC_BUDGET) {
    const sizes = images.map((image) => `${image.width}x${image.height} ${image.format.toUpperCase()}`).join(", ");
    throw new PixelgateError(
      "image_too_large",
      `Preparing ${sizes} for ${model.name} would need ${Math.ceil(bytes / MiB)} MB, more than the ${ISOLATE_CODEC_BUDGET / MiB} MB a worker has for images; send a smaller image.`,
      { param: task.kind === "generate" ? "referenceImages" : "image" },
    );
  }
  return isolateCodecGate.acquire(bytes, ctx, waitingBytes(images.reduce((sum, image) => sum + image.bytes.length, 0)));
}

/**
 * The work budget of a model call on `task` (ToolDefinition.workBudget): its input images'
 * pixels at the model kind's rate (work-steps.ts), the floor alone for a prompt without images.
 * The floor also holds what a call with no input makes here: the local renderer's PNG (1024 px
 * on the long side at most); an upstream's answer is only read from its header and hosted.
 */
export function modelWorkBudget(task: ProviderTask): WorkBudget {
  return WorkBudget.forWork("model", inputImagesOf(task).reduce((sum, image) => sum + image.width * image.height, 0));
}
