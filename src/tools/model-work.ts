import { isolateCodecGate, waitingBytes, type Permit } from "../codecs";
import { WorkBudget } from "../codecs/fuel";
import { ISOLATE_CODEC_BUDGET } from "../codecs/limits";
import { PixelgateError } from "../errors";
import type { Model } from "../models/catalog";
import { inputImagesOf } from "../providers/input-links";
import { memoryForTask, type ProviderTask } from "../providers";
import { holdingPermit } from "./codec-work";
import type { ToolContext } from "./types";

// The memory side of the model tools, as codec-work.ts is compress's and convert's: what the
// call's own codec work will need (a photo turned upright or converted for the provider, a
// local model's reading and writing) is priced from the headers in prepare(), before any
// credit is taken, and admitted by the isolate's memory gate; run() holds the admission.

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

/** Runs `task`'s `work` holding `permit` (none: as it is), on a work budget for its input images' pixels. */
export function holdingModelPermit<T>(permit: Permit | null, task: ProviderTask, work: () => Promise<T>): Promise<T> {
  const pixels = inputImagesOf(task).reduce((sum, image) => sum + image.width * image.height, 0);
  return permit ? holdingPermit(permit, WorkBudget.forWork("model", pixels), work) : work();
}
