import { settingsOf } from "../config/settings";
import { deleteInputCopies, shareInputCopy, type InputCopy } from "../storage/input-copies";
import type { ProviderCall, ProviderTask, TaskImage } from "./types";
import { dataUriOf } from "./upstream-output";

// How an input image travels to a provider that takes either inline data or a URL (Replicate,
// OpenAI's JSON edits): up to INLINE_LIMIT_BYTES as a data URI; above, as a signed link to the
// service's own copy in R2 (src/storage/input-copies.ts) that expires with the call's deadline.
// Replicate documents data URIs for files under 1 MB and URLs above.

/** Replicate: "data URLs for files smaller than 1 MB"; above, an HTTP URL. */
export const INLINE_LIMIT_BYTES = 1_000_000;

/** How an input image is written into a request: a data URI or a link. */
export type ImageReference = (image: TaskImage) => string;

export function travelsInline(image: TaskImage): boolean {
  return image.bytes.length <= INLINE_LIMIT_BYTES;
}

/** The links a call shared; `release` deletes the copies once the provider is done with them. */
export class InputLinks {
  private readonly copies: InputCopy[] = [];
  constructor(private readonly call: ProviderCall) {}

  /** A data URI for a small image, else a signed link to a copy, good until the call's deadline. */
  async reference(image: TaskImage): Promise<string> {
    if (travelsInline(image)) return dataUriOf(image);
    const { env, publicBaseUrl } = this.call;
    const expiresAt = Math.floor((Date.now() + settingsOf(env).upstreamTimeoutMs) / 1000);
    const copy = await shareInputCopy(env, publicBaseUrl, image.bytes, image.format, expiresAt);
    this.copies.push(copy);
    return copy.url;
  }

  /** A reference for every input image of `task`, each large one copied and linked once. */
  async referencesFor(task: ProviderTask): Promise<ImageReference> {
    const images = inputImagesOf(task);
    const references = new Map<TaskImage, string>();
    for (const image of images) references.set(image, await this.reference(image));
    return (image) => references.get(image) ?? dataUriOf(image);
  }

  /**
   * Deletes the copies in the background (call.waitUntil). Without it (adapter tests) they stay
   * until the R2 lifecycle rule removes them; their links answer 404 from their expiry in any case.
   */
  release(): void {
    if (this.copies.length === 0) return;
    this.call.waitUntil?.(deleteInputCopies(this.call.env, this.copies.splice(0)));
  }
}

/** The input images a task carries. */
export function inputImagesOf(task: ProviderTask): TaskImage[] {
  switch (task.kind) {
    case "generate":
      return task.references;
    case "edit":
    case "remove_bg":
    case "upscale":
      return [task.image];
    default:
      return [];
  }
}
