import { decodeImage, encodeImage, estimateCodecBytes, generalPrice, imageHasAlpha, planRecode, readOrientation, runRecode, type ImageFormat, type RasterImage, type RecodePlan } from "../codecs";
import { pictureRows, pictureRowsBytes } from "../codecs/picture-rows";
import { readRouteFacts } from "../codecs/route-table";
import { fitSide, shrinkBands } from "../raster/shrink";
import { inputImagesOf } from "./input-links";
import type { ProviderTask, SentImage, TaskImage } from "./types";

// What each provider accepts as an input image, as its documentation states it: one table, one
// row per adapter (or per model family where a provider's models differ), and the one function
// that turns a task's input images into what that row accepts before anything is sent. An input
// the provider takes as it is goes unchanged; any other (a format it does not list, such as
// HEIC, an EXIF orientation other than upright, a side over its documented maximum) is turned
// upright, scaled down to fit when it must be and re-encoded: PNG when it can hold transparency
// or the row asks for PNG, JPEG otherwise. A photo is never decoded to a whole RGBA raster for
// it (inputPreparation), and what the work costs is priced by the memory gate before the charge
// (acceptedImagesBytes, through each adapter's memoryFor).

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

/**
 * How one input image is made acceptable, decided from its header: sent as it is, re-encoded at
 * its size by the route compress and convert take (our own WASM build: a 24 MP JPEG turned
 * upright, a HEIC to JPEG, without an RGBA raster), or shrunk from its rows (codecs/picture-rows)
 * when a side is over the documented maximum. GIF, BMP, TIFF and AVIF, small by their own limits,
 * are decoded whole as before.
 */
export type InputPreparation =
  | { kind: "as-is" }
  | { kind: "recode"; target: "png" | "jpeg"; plan: RecodePlan }
  | { kind: "shrink"; target: "png" | "auto"; width: number; height: number }
  | { kind: "whole"; target: "png" | "auto" };

/** JPEG quality of an input re-encoded for a provider: its detail kept, its size a fraction of a PNG's. */
const SENT_JPEG_QUALITY = 90;

export function inputPreparation(image: TaskImage, accepts: AcceptedInputs): InputPreparation {
  const upright = readOrientation(image.bytes, image.format) === 1;
  const fits = accepts.maxSide === undefined || Math.max(image.width, image.height) <= accepts.maxSide;
  if (upright && fits && (accepts.formats as readonly string[]).includes(image.format)) return { kind: "as-is" };
  if (!fits) return { kind: "shrink", target: accepts.convertTo, ...fitSide(image.width, image.height, accepts.maxSide!) };
  const alpha = mayHaveAlpha(image);
  if (alpha === null) return { kind: "whole", target: accepts.convertTo };
  const target = accepts.convertTo === "png" || alpha ? "png" : "jpeg";
  return { kind: "recode", target, plan: planRecode(image.bytes, image, target, target === "jpeg" ? { quality: SENT_JPEG_QUALITY } : {}) };
}

/** Whether the file can hold alpha, from its header; null when only decoding it tells (GIF, BMP, TIFF, AVIF). */
function mayHaveAlpha(image: TaskImage): boolean | null {
  switch (image.format) {
    case "jpeg":
      return false;
    case "png":
    case "webp":
    case "heic": {
      const facts = readRouteFacts(image.bytes, image.format);
      return facts.png?.alpha ?? facts.webp?.alpha ?? facts.heic?.encoding?.alpha ?? true;
    }
    default:
      return null;
  }
}

/** What making `image` acceptable costs at its peak, as the memory gate prices it (0: sent as it is). */
export function inputPreparationBytes(image: TaskImage, preparation: InputPreparation): number {
  const pixels = image.width * image.height;
  switch (preparation.kind) {
    case "as-is":
      return 0;
    case "recode": {
      return estimateCodecBytes(pixels, preparation.plan.price, image.bytes.length);
    }
    case "shrink":
      // The rows, then (once they are read) the small copy encoded as PNG by the general encoder.
      return Math.max(pictureRowsBytes(image.bytes, image), encodedCopyBytes(preparation.width * preparation.height));
    case "whole":
      return estimateCodecBytes(pixels, generalPrice(image.format, "png", image.bytes.length, pixels), image.bytes.length);
  }
}

/** A small copy's raster encoded as PNG by the general encoder. */
function encodedCopyBytes(pixels: number): number {
  return estimateCodecBytes(pixels, generalPrice("png", "png", 0, pixels), 0);
}

/** The image as `accepts` takes it: unchanged when it already is, converted otherwise. */
export async function acceptedImage(image: TaskImage, accepts: AcceptedInputs): Promise<SentImage> {
  const preparation = inputPreparation(image, accepts);
  switch (preparation.kind) {
    case "as-is":
      return image as SentImage;
    case "recode": {
      const recoded = await runRecode(image.bytes, preparation.plan);
      return { bytes: recoded.bytes, format: preparation.target, width: recoded.width, height: recoded.height };
    }
    case "shrink": {
      const rows = await pictureRows(image.bytes, image);
      const { width, height } = fitSide(rows.width, rows.height, accepts.maxSide!);
      return encodedAs(shrinkBands(rows.bands(), rows.width, rows.height, width, height), preparation.target);
    }
    case "whole":
      return encodedAs(await decodeImage(image.bytes, image), preparation.target);
  }
}

async function encodedAs(pixels: RasterImage, target: "png" | "auto"): Promise<SentImage> {
  const format: ImageFormat = target === "png" || imageHasAlpha(pixels) ? "png" : "jpeg";
  return { bytes: await encodeImage(pixels, format, format === "jpeg" ? { quality: SENT_JPEG_QUALITY } : {}), format, width: pixels.width, height: pixels.height };
}

/** What making every input image of `task` acceptable costs at its peak: they are made one at a time, the copies made so far held. */
export function acceptedImagesBytes(task: ProviderTask, accepts: AcceptedInputs): number {
  let peak = 0;
  let held = 0;
  for (const image of inputImagesOf(task)) {
    const preparation = inputPreparation(image, accepts);
    peak = Math.max(peak, held + inputPreparationBytes(image, preparation));
    // A copy is at most the size of a JPEG or PNG of its pixels: priced as the upload's size, or a byte a pixel for a re-encoded one.
    held += preparation.kind === "as-is" ? 0 : Math.max(image.bytes.length, image.width * image.height);
  }
  return peak;
}

/** The task with every input image (the edited image, the references) made acceptable, one at a time. */
export async function withAcceptedImages<T extends ProviderTask>(task: T, accepts: AcceptedInputs): Promise<T> {
  switch (task.kind) {
    case "generate": {
      const references: SentImage[] = [];
      for (const image of task.references) references.push(await acceptedImage(image, accepts));
      return { ...task, references };
    }
    case "edit":
    case "remove_bg":
    case "upscale":
      return { ...task, image: await acceptedImage(task.image, accepts) };
    default:
      return task;
  }
}
