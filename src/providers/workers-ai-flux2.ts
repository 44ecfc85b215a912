import { ACCEPTED_INPUTS, acceptedImage } from "./accepted-inputs";
import { megapixelSize } from "./aspect";
import type { AspectRatio, ProviderTask, TaskImage } from "./types";

// FLUX.2 on Workers AI: [klein] 4B, [klein] 9B and [dev] (`@cf/black-forest-labs/flux-2-*`).
// What Cloudflare documents (the model pages developers.cloudflare.com/workers-ai/models/
// flux-2-dev/ and flux-2-klein-4b/, and the launch notes in its changelog, 2025-11-25 for [dev],
// 2026-01-15 and 2026-01-28 for [klein] 4B and 9B):
// - the models take multipart form data only, "even if you just have a prompt": through the
//   binding, env.AI.run(model, { multipart: { body, contentType } }), where body and contentType
//   come from serialising a FormData through a Response (which writes the boundary);
// - fields: `prompt` (required), `width` and `height` (256..1920), `seed`, `steps`, `guidance`,
//   and up to 4 input images `input_image_0` .. `input_image_3` (binary), 512x512 per input image;
// - [klein] is distilled with a fixed 4-step inference: its steps "cannot be adjusted", so we
//   send none; [dev] takes steps (the documented example uses 25);
// - the answer is `{ image: base64 }`.
// Inputs larger than 512 px on a side, not PNG or not upright are turned upright, reduced (box
// filter) and sent as PNG (ACCEPTED_INPUTS["workers-ai-flux2"]), so every input the model gets is
// one it documents; a reference keeps its proportions.

export const FLUX2_MAX_INPUT_IMAGES = 4;
const MIN_SIDE = 256;
const MAX_SIDE = 1920;
/** [dev]'s step count: the documented example's. Cost grows with steps (priced per step). */
const DEV_STEPS = 25;

export function isFlux2(upstreamModel: string): boolean {
  return /flux-2-/i.test(upstreamModel);
}

/** [klein] has a fixed step count; [dev] (and anything else of the family) takes `steps`. */
function takesSteps(upstreamModel: string): boolean {
  return !/klein/i.test(upstreamModel);
}

/** About a megapixel at the ratio, sides multiples of 64 within 256..1920. */
export function flux2SizeFor(ratio: AspectRatio): { width: number; height: number } {
  return megapixelSize(ratio, { multiple: 64, min: MIN_SIDE, max: MAX_SIDE });
}

/** The input images of a task: the edited image, or the references. */
export function flux2Inputs(task: ProviderTask): TaskImage[] {
  if (task.kind === "edit") return [task.image];
  if (task.kind === "generate") return task.references;
  return [];
}

/** The multipart inputs of one run, as the binding takes them. */
export async function flux2Multipart(task: ProviderTask, upstreamModel: string): Promise<{ multipart: { body: ReadableStream<Uint8Array>; contentType: string } }> {
  if (task.kind !== "generate" && task.kind !== "edit") throw new Error(`FLUX.2 cannot run ${task.kind}`);
  const form = new FormData();
  const { width, height } = flux2SizeFor(task.aspectRatio);
  form.append("prompt", task.prompt);
  form.append("width", String(width));
  form.append("height", String(height));
  form.append("seed", String(task.seed));
  if (takesSteps(upstreamModel)) form.append("steps", String(DEV_STEPS));
  const images = flux2Inputs(task);
  for (const [index, image] of images.entries()) {
    const { bytes } = await acceptedImage(image, ACCEPTED_INPUTS["workers-ai-flux2"]);
    form.append(`input_image_${index}`, new Blob([bytes], { type: "image/png" }), `input_image_${index}.png`);
  }
  // Serialising through a Response writes the body and the Content-Type with its boundary.
  const encoded = new Response(form);
  return { multipart: { body: encoded.body!, contentType: encoded.headers.get("Content-Type")! } };
}

