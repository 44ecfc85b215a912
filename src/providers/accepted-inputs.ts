import { decodeImage, encodeImage, imageHasAlpha, readHeader, readOrientation, type ImageFormat } from "../codecs";
import { shrinkToFit } from "../raster/shrink";
import type { ProviderTask, TaskImage } from "./types";

// What each provider accepts as an input image, as its documentation states it: one table, one
// row per adapter (or per model family where a provider's models differ), and the one function
// that turns a task's input images into what that row accepts before anything is sent. An input
// the provider takes as it is goes unchanged; any other (a format it does not list, an EXIF
// orientation other than upright, a side over its documented maximum) is decoded, turned upright
// (decodeImage applies the orientation), scaled down to fit and re-encoded: PNG when it has
// transparency or the row asks for PNG, JPEG otherwise.

export interface AcceptedInputs {
  /** Where the provider documents this. */
  source: string;
  formats: readonly ImageFormat[];
  /** Format of a converted input: `png`, or `auto` (PNG with alpha, else JPEG). */
  convertTo: "png" | "auto";
  /** The longest side the provider documents, when it documents one. */
  maxSide?: number;
}

export const ACCEPTED_INPUTS = {
  /** FLUX.2 [klein]/[dev] on Workers AI: multipart files of at most 512x512 (sent as PNG). */
  "workers-ai-flux2": { source: "developers.cloudflare.com/workers-ai/models/flux-2-dev/ (input images 512x512)", formats: ["png"], convertTo: "png", maxSide: 512 },
  /** Stable Diffusion img2img on Workers AI: `image` as the bytes of a PNG or JPEG. */
  "workers-ai-sd": { source: "developers.cloudflare.com/workers-ai/models/stable-diffusion-v1-5-img2img/", formats: ["png", "jpeg"], convertTo: "auto" },
  /** OpenAI Images API edits: png, webp or jpg files under 50 MB, up to 16. */
  openai: { source: "developers.openai.com/api/reference/resources/images/methods/edit", formats: ["png", "webp", "jpeg"], convertTo: "auto" },
  /** Replicate's FLUX models (FLUX.2 [pro], Kontext [pro], 1.1 [pro]): jpeg, png, gif or webp. */
  "replicate-flux": { source: "replicate.com/black-forest-labs/flux-2-pro/api/schema (input_images)", formats: ["jpeg", "png", "gif", "webp"], convertTo: "auto" },
  /** Every other Replicate model (Bria, Topaz, rembg, Real-ESRGAN, ids an operator adds): jpeg or png. */
  replicate: { source: "replicate.com/bria/remove-background/api/schema (image: jpeg, png)", formats: ["jpeg", "png"], convertTo: "auto" },
} as const satisfies Record<string, AcceptedInputs>;

export type AcceptedInputsName = keyof typeof ACCEPTED_INPUTS;

/** The image as `accepts` takes it: unchanged when it already is, converted otherwise. */
export async function acceptedImage(image: TaskImage, accepts: AcceptedInputs): Promise<TaskImage> {
  const upright = readOrientation(image.bytes, image.format) === 1;
  const fits = accepts.maxSide === undefined || Math.max(image.width, image.height) <= accepts.maxSide;
  if (upright && fits && accepts.formats.includes(image.format)) return image;
  const decoded = await decodeImage(image.bytes, readHeader(image.bytes, image.format));
  const pixels = accepts.maxSide === undefined ? decoded : shrinkToFit(decoded, accepts.maxSide);
  const format: ImageFormat = accepts.convertTo === "png" || imageHasAlpha(pixels) ? "png" : "jpeg";
  return { bytes: await encodeImage(pixels, format), format, width: pixels.width, height: pixels.height };
}

/** The task with every input image (the edited image, the references) made acceptable. */
export async function withAcceptedImages<T extends ProviderTask>(task: T, accepts: AcceptedInputs): Promise<T> {
  switch (task.kind) {
    case "generate":
      return { ...task, references: await Promise.all(task.references.map((image) => acceptedImage(image, accepts))) };
    case "edit":
    case "remove_bg":
    case "upscale":
      return { ...task, image: await acceptedImage(task.image, accepts) };
    default:
      return task;
  }
}
