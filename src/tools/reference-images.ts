import { PixelgateError } from "../errors";
import type { TaskImage } from "../providers";
import { MAX_REFERENCE_IMAGES } from "./model-fields";
import type { OwnFiles } from "../images/input";
import { loadSourceImage } from "./source-image";

// `image` and `referenceImages` are one list to the model: merged, `image` first,
// at most 8, each loaded and checked like any input image before the charge.

export interface ReferenceFields {
  image?: string | null;
  imageBase64?: string | null;
  referenceImages?: string[] | null;
}

export async function referenceImagesOf(body: ReferenceFields, ownFiles: OwnFiles): Promise<TaskImage[]> {
  const sent: { value: string; param: string }[] = [];
  const single = body.image ?? body.imageBase64;
  if (single) sent.push({ value: single, param: body.image ? "image" : "imageBase64" });
  (body.referenceImages ?? []).forEach((value, index) => sent.push({ value, param: `referenceImages.${index}` }));
  if (sent.length > MAX_REFERENCE_IMAGES) {
    throw new PixelgateError("invalid_parameter", `At most ${MAX_REFERENCE_IMAGES} reference images (image plus referenceImages); got ${sent.length}.`, {
      param: "referenceImages",
    });
  }
  return Promise.all(sent.map(({ value, param }) => loadSourceImage(value, param, ownFiles)));
}
