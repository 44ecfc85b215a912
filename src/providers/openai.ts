import { settingsOf } from "../config/settings";
import { PixelgateError } from "../errors";
import type { Model } from "../models/catalog";
import { FORMAT_INFO } from "../codecs";
import type { AspectRatio, ImageProvider, ProviderOutput, ProviderTask, TaskImage } from "./types";
import { UpstreamClient, isAllowedApiBase } from "./upstream-http";
import { decodeBase64Image, encodedImage, fetchOutputFile } from "./upstream-output";
import { ACCEPTED_INPUTS, withAcceptedImages } from "./accepted-inputs";
import { InputLinks, travelsInline } from "./input-links";

// Any OpenAI-compatible Images API (OPENAI_BASE_URL, OPENAI_API_KEY):
// - generate without references: POST {base}/images/generations, JSON.
// - generate with references, edit (every action) and remove_bg: POST {base}/images/edits,
//   multipart/form-data with the image file(s) (`image`, or `image[]` for several, as GPT Image
//   models accept up to 16) and the prompt. Files are PNG, WebP or JPEG, upright, as the edits
//   endpoint documents (ACCEPTED_INPUTS.openai); any other input is converted first. When an
//   input is over 1 MB and the model is a GPT Image model, the edit goes in the documented JSON
//   form instead, `images: [{ image_url }]`, the large ones as signed links to our own copy in R2
//   that expire with the call's deadline (input-links.ts); DALL-E edits are multipart only.
//   remove_bg and `action: remove_bg` also ask for a transparent background, from the models whose documentation accepts one (GPT Image 1, 1 mini,
//   1.5). OpenAI documents `background: transparent` as refused by GPT Image 2, so for it those
//   two are refused before any charge and transparent output takes the path that works: the
//   render, then the cut-out stage (generate_transparent_image, remove_background).
// - upscale and svg are refused before any charge: the API cannot make an exact 2x/4x/8x image,
//   nor vector markup.
// Sizes: GPT Image models take only 1024x1024, 1536x1024 and 1024x1536; DALL-E 3 takes
// 1024x1024, 1792x1024 and 1024x1792; DALL-E 2 only squares. The aspect ratio picks the nearest
// of those (nearest in log scale, so 4:3 and 5:4 are landscape, 6:5 square); the exact ratio is not
// available from this API. The seed is not sent: the Images API has no seed parameter.
// `response_format: b64_json` is sent only to DALL-E models: GPT Image models always answer
// b64_json and reject the parameter. Both `b64_json` and `url` answers are accepted.
// A refusal by OpenAI's own moderation (HTTP 400 `moderation_blocked`) is reported as
// `upstream_error` like any other upstream failure, and so refunded: our safety screen already
// passed the prompt, and the client cannot tell the difference between "our" and "their" policy.
// costUsd is left out: token prices depend on model and quality and any compatible API prices
// differently, so a number computed here would not be honest.

const DEFAULT_BASE_URL = "https://api.openai.com/v1";
const REMOVE_BACKGROUND_PROMPT =
  "Remove the background completely: keep the main subject exactly as it is and make everything else fully transparent.";

export const openaiProvider: ImageProvider = {
  name: "openai",
  seeded: [], // the Images API has no seed parameter
  check(task, model) {
    if (task.kind === "upscale" || task.kind === "svg") {
      throw new PixelgateError("invalid_parameter", `${model.name} (OpenAI Images API) cannot do ${task.kind === "svg" ? "SVG" : "exact upscaling"}; choose another model.`, {
        param: "model",
      });
    }
    if (wantsTransparency(task) && !takesTransparentBackground(model.upstreamModel)) {
      throw new PixelgateError(
        "invalid_parameter",
        `${model.name} cannot make a transparent background (OpenAI refuses background: transparent for it); use remove_background, or generate_transparent_image, which renders and then cuts the subject out.`,
        { param: task.kind === "edit" ? "action" : "model" },
      );
    }
  },
  accepts: () => ACCEPTED_INPUTS.openai,
  async run(task, call) {
    openaiProvider.check?.(task, call.model);
    const { env, model } = call;
    const { openai } = settingsOf(env);
    const key = openai.apiKey ?? "";
    const upstream = new UpstreamClient("OpenAI", call.signal, [key]);
    const base = (openai.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    if (!key || !isAllowedApiBase(base)) throw upstream.failure("is not configured (OPENAI_API_KEY, and an https (or loopback http) OPENAI_BASE_URL).");

    const links = new InputLinks(call);
    try {
      const request = await requestFor(await withAcceptedImages(task, ACCEPTED_INPUTS.openai), model, links);
      const headers = { Authorization: `Bearer ${key}`, Accept: "application/json" };
      const response = await upstream.send(`${base}/images/${request.endpoint}`, { method: "POST", headers: request.json ? { ...headers, "Content-Type": "application/json" } : headers, body: request.body });
      await upstream.expectOk(response, `to images/${request.endpoint}`);
      return await imageFromReply(upstream, await upstream.readJson(response, `from images/${request.endpoint}`));
    } finally {
      links.release(); // OpenAI has answered (or we gave up): nothing will fetch the copies now
    }
  },
};

interface ImagesRequest {
  endpoint: "generations" | "edits";
  body: string | FormData;
  json: boolean;
}

function requestFor(task: ProviderTask, model: Model, links: InputLinks): Promise<ImagesRequest> | ImagesRequest {
  const upstreamModel = model.upstreamModel;
  if (task.kind === "generate" && task.references.length === 0) {
    const body: Record<string, unknown> = { model: upstreamModel, prompt: task.prompt, n: 1, size: sizeFor(upstreamModel, task.aspectRatio) };
    if (isDallE(upstreamModel)) body.response_format = "b64_json";
    return { endpoint: "generations", body: JSON.stringify(body), json: true };
  }
  switch (task.kind) {
    case "generate":
      return editRequest(upstreamModel, task.prompt, task.references, task.aspectRatio, false, links);
    case "edit":
      return editRequest(upstreamModel, task.prompt, [task.image], task.aspectRatio, task.action === "remove_bg", links);
    case "remove_bg":
      return editRequest(upstreamModel, REMOVE_BACKGROUND_PROMPT, [task.image], ratioOf(task.image), true, links);
    default:
      throw new Error(`openai adapter cannot run ${task.kind}`); // refused by check() above
  }
}

function editRequest(upstreamModel: string, prompt: string, images: TaskImage[], ratio: AspectRatio, transparent: boolean, links: InputLinks): Promise<ImagesRequest> | ImagesRequest {
  if (!isDallE(upstreamModel) && !images.every(travelsInline)) return jsonEditRequest(upstreamModel, prompt, images, ratio, transparent, links);
  const form = new FormData();
  form.append("model", upstreamModel);
  form.append("prompt", prompt);
  form.append("n", "1");
  form.append("size", sizeFor(upstreamModel, ratio));
  if (isDallE(upstreamModel)) form.append("response_format", "b64_json");
  else if (transparent) form.append("background", "transparent");
  const field = images.length > 1 ? "image[]" : "image";
  images.forEach((image, index) => {
    const { mime, ext } = FORMAT_INFO[image.format];
    form.append(field, new Blob([image.bytes], { type: mime }), `image-${index + 1}.${ext}`);
  });
  return { endpoint: "edits", body: form, json: false };
}

/** The JSON form of edits (GPT Image models): each image an `image_url`, a data URL or, over 1 MB, a link to our copy. */
async function jsonEditRequest(upstreamModel: string, prompt: string, images: TaskImage[], ratio: AspectRatio, transparent: boolean, links: InputLinks): Promise<ImagesRequest> {
  const references = [];
  for (const image of images) references.push({ image_url: await links.reference(image) });
  const body: Record<string, unknown> = { model: upstreamModel, prompt, images: references, n: 1, size: sizeFor(upstreamModel, ratio) };
  if (transparent) body.background = "transparent";
  return { endpoint: "edits", body: JSON.stringify(body), json: true };
}

function wantsTransparency(task: ProviderTask): boolean {
  return task.kind === "remove_bg" || (task.kind === "edit" && task.action === "remove_bg");
}

/** GPT Image 2 (and its dated snapshots) refuses `background: transparent`; DALL-E has no such parameter. */
export function takesTransparentBackground(upstreamModel: string): boolean {
  return !isDallE(upstreamModel) && !/^gpt-image-2(-\d{4}-\d{2}-\d{2})?$/i.test(upstreamModel);
}

function isDallE(upstreamModel: string): boolean {
  return /dall-e/i.test(upstreamModel);
}

/** The supported size nearest to the ratio (see the header comment for the tables). */
export function sizeFor(upstreamModel: string, ratio: AspectRatio): string {
  if (/dall-e-2/i.test(upstreamModel)) return "1024x1024";
  const [long, wideRatio] = /dall-e-3/i.test(upstreamModel) ? [1792, 1792 / 1024] : [1536, 1536 / 1024];
  const r = ratio.width / ratio.height;
  // Half way (in log scale) between square and the wide size is sqrt(wideRatio).
  if (r >= Math.sqrt(wideRatio)) return `${long}x1024`;
  if (r <= 1 / Math.sqrt(wideRatio)) return `1024x${long}`;
  return "1024x1024";
}

function ratioOf(image: TaskImage): AspectRatio {
  return { label: `${image.width}:${image.height}`, width: image.width, height: image.height };
}

/** `{ data: [{ b64_json } | { url }] }` from either endpoint. */
async function imageFromReply(upstream: UpstreamClient, reply: unknown): Promise<ProviderOutput> {
  const first = (reply as { data?: unknown })?.data;
  const item = Array.isArray(first) ? (first[0] as { b64_json?: unknown; url?: unknown } | undefined) : undefined;
  if (typeof item?.b64_json === "string" && item.b64_json !== "") {
    return encodedImage(upstream, decodeBase64Image(upstream, item.b64_json, "an image"), "b64_json");
  }
  if (typeof item?.url === "string") {
    // Image URLs are pre-signed storage links: our key is not sent to them.
    return encodedImage(upstream, await fetchOutputFile(upstream, item.url), "an image file");
  }
  throw upstream.failure("answered without an image (no data[0].b64_json or data[0].url).");
}
