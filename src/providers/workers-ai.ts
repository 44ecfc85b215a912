import { PixelgateError } from "../errors";
import type { Model } from "../models/catalog";
import type { AspectRatio, ImageProvider, ProviderTask } from "./types";
import { megapixelSize } from "./aspect";
import { ACCEPTED_INPUTS, withAcceptedImages } from "./accepted-inputs";
import { MAX_UPSTREAM_BODY_BYTES, UpstreamClient, raceAbort } from "./upstream-http";
import { decodeBase64Image, decodeDataUri, encodedImage } from "./upstream-output";
import { FLUX2_MAX_INPUT_IMAGES, flux2Multipart, isFlux2 } from "./workers-ai-flux2";

// The Workers AI binding (`env.AI`), for its text-to-image and image-to-image models. Four input
// families, told apart by the model id:
// - FLUX.2 ([klein] 4B/9B, [dev], `flux-2-` in the id): multipart form inputs with the size, the
//   seed and up to 4 input images, so it generates, follows references and edits by instruction
//   (workers-ai-flux2.ts has the documented shape). It answers `{ image: base64 }`.
// - FLUX.1 [schnell] (`flux-1-schnell`): `prompt` and `steps` (4, its documented default; at most
//   8), nothing else: its published schema (Cloudflare's model JSON) lists those two with
//   `additionalProperties: false`, so it takes no seed (the result reports the seed, but the model
//   does not follow it), no size (the aspect ratio cannot be honoured: it renders 1024x1024) and no
//   input image (edits and references are refused before any charge). It answers `{ image: base64 }`.
// - image-to-image models (`img2img`, `inpainting` in the id, e.g. Stable Diffusion 1.5 img2img):
//   need an input image: `image` as an array of bytes (of a PNG or JPEG, upright:
//   ACCEPTED_INPUTS["workers-ai-sd"]), `prompt`, `strength`, plus the size and seed.
// - the other Stable Diffusion models (SDXL base, Lightning, DreamShaper): `prompt`, `width`,
//   `height`, `seed`; a first reference image, when given, becomes their `image` (SDXL base
//   accepts one). They answer a PNG stream.
// Sizes: about one megapixel, each side a multiple of 64 between 256 and 2048 (the range the SD
// models accept), so 16:9 becomes 1344x768. The binding takes no AbortSignal the test fake could
// carry, so the deadline is held by racing the call; the model's answer is then discarded.

const FLUX_STEPS = 4;
/** How much an edit may change the input: enough to follow the instruction, keeping the layout. */
const EDIT_STRENGTH = 0.6;
const REFERENCE_STRENGTH = 0.8;

type Family = "flux2" | "flux" | "img2img" | "diffusion";

function familyOf(upstreamModel: string): Family {
  if (isFlux2(upstreamModel)) return "flux2";
  if (/flux-1-schnell/i.test(upstreamModel)) return "flux";
  if (/img2img|inpainting/i.test(upstreamModel)) return "img2img";
  return "diffusion";
}

/** The binding's run() as this adapter uses it: any model id, any inputs, an unknown answer. */
type AiRun = (model: string, inputs: object) => Promise<unknown>;

export const workersAiProvider: ImageProvider = {
  name: "workers-ai",
  seeded: ["generate", "edit"],
  check(task, model) {
    const refuse = (message: string, param: string) => {
      throw new PixelgateError("invalid_parameter", `${model.name} ${message}; choose another model.`, { param });
    };
    if (task.kind !== "generate" && task.kind !== "edit") refuse(`(Workers AI) cannot do ${task.kind}`, "model");
    const family = familyOf(model.upstreamModel);
    if (family === "flux2" && task.kind === "generate" && task.references.length > FLUX2_MAX_INPUT_IMAGES) {
      refuse(`takes at most ${FLUX2_MAX_INPUT_IMAGES} reference images (${task.references.length} were sent)`, "referenceImages");
    }
    if (family === "flux" && task.kind === "edit") refuse("is text-to-image only and cannot edit an image", "model");
    if (family === "flux" && task.kind === "generate" && task.references.length > 0) refuse("takes no reference images", "referenceImages");
    if (family === "img2img" && task.kind === "generate" && task.references.length === 0) refuse("needs an input image", "image");
  },
  // FLUX.2 inputs are shrunk to its 512x512 (workers-ai-flux2.ts), every other family's made to fit Stable Diffusion's row.
  accepts: (model) => ACCEPTED_INPUTS[familyOf(model.upstreamModel) === "flux2" ? "workers-ai-flux2" : "workers-ai-sd"],
  async run(task, call) {
    workersAiProvider.check?.(task, call.model);
    const upstream = new UpstreamClient("Workers AI", call.signal, []);
    const ai = call.env.AI as unknown as { run: AiRun } | undefined;
    if (!ai) throw upstream.failure("is not configured (no AI binding).");

    // Built before the call: an input image that fails to decode here is the input's fault (4xx).
    const inputs =
      familyOf(call.model.upstreamModel) === "flux2"
        ? await flux2Multipart(task, call.model.upstreamModel)
        : inputsFor(await withAcceptedImages(task, ACCEPTED_INPUTS["workers-ai-sd"]), call.model);
    let answer: unknown;
    try {
      answer = await raceAbort(ai.run(call.model.upstreamModel, inputs), call.signal);
    } catch (error) {
      if (call.signal.aborted) throw upstream.timedOut();
      throw upstream.failure(`failed running ${call.model.upstreamModel}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 400));
    }
    return encodedImage(upstream, await bytesOf(upstream, answer), "an answer");
  },
};

function inputsFor(task: ProviderTask, model: Model): Record<string, unknown> {
  if (task.kind !== "generate" && task.kind !== "edit") throw new Error(`workers-ai adapter cannot run ${task.kind}`);
  if (familyOf(model.upstreamModel) === "flux") return { prompt: task.prompt, steps: FLUX_STEPS };
  const inputs: Record<string, unknown> = { prompt: task.prompt, ...sizeFor(task.aspectRatio), seed: task.seed };
  const image = task.kind === "edit" ? task.image : task.references[0];
  if (image) {
    inputs.image = Array.from(image.bytes);
    inputs.strength = task.kind === "edit" ? EDIT_STRENGTH : REFERENCE_STRENGTH;
  }
  return inputs;
}

/** About a megapixel at the requested ratio, sides multiples of 64 within 256..2048. */
export function sizeFor(ratio: AspectRatio): { width: number; height: number } {
  return megapixelSize(ratio, { multiple: 64, min: 256, max: 2048 });
}

/** The binding answers a PNG stream (Stable Diffusion), bytes, or `{ image: base64 }` (FLUX.1 and FLUX.2). */
async function bytesOf(upstream: UpstreamClient, answer: unknown): Promise<Uint8Array> {
  if (answer instanceof ReadableStream) return upstream.readBytes(new Response(answer), MAX_UPSTREAM_BODY_BYTES);
  if (answer instanceof ArrayBuffer || ArrayBuffer.isView(answer)) {
    const bytes = answer instanceof ArrayBuffer ? new Uint8Array(answer) : new Uint8Array(answer.buffer, answer.byteOffset, answer.byteLength);
    if (bytes.byteLength > MAX_UPSTREAM_BODY_BYTES) throw upstream.failure("returned an image over the size limit.");
    return bytes;
  }
  const image = (answer as { image?: unknown } | null)?.image;
  if (typeof image === "string" && image !== "") {
    return /^data:/i.test(image) ? decodeDataUri(upstream, image, "an image") : decodeBase64Image(upstream, image, "an image");
  }
  throw upstream.failure("answered without an image (neither image bytes nor { image: base64 }).");
}
