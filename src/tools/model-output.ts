import { z } from "@hono/zod-openapi";
import type { FileLike } from "../codecs/file-pieces";
import { PixelgateError } from "../errors";
import { Base64Bytes, base64Field } from "../http/base64-bytes";
import type { Model } from "../models/catalog";
import type { ImageOutput, ModelOutput, StreamedImageOutput } from "../providers";
import { hostedFileInfo, hostPieces, hostResult, openResult } from "../storage/results";
import type { ResponseFormat } from "./model-fields";
import { latencySince } from "./source-image";
import type { ToolContext } from "./types";

// Storing what a model made and the result fields every model tool shares.

/**
 * Hosts the image in R2; adds the inline copy when the client asked for `b64_json`. A streamed
 * image is uploaded as it is made; its inline copy is read back from R2 (the tool keeps
 * `b64_json` to results small enough for that: upscale-image.ts).
 */
export async function storeImage(ctx: ToolContext, image: ImageOutput | StreamedImageOutput, responseFormat: ResponseFormat) {
  if (image.kind === "streamed") {
    const hosted = await hostPieces(ctx.env.FILES, ctx.baseUrl, image.pieces, image.format);
    if (responseFormat !== "b64_json") return { imageUrl: hosted.url };
    const stored = await openResult(ctx.env.FILES, `${hosted.id}.${hostedFileInfo(image.format).ext}`);
    if (!stored) throw new PixelgateError("internal_error", "The hosted result could not be read back.");
    return { imageUrl: hosted.url, ...inlineCopy(new Uint8Array(await stored.arrayBuffer()), responseFormat) };
  }
  const hosted = await hostResult(ctx.env.FILES, ctx.baseUrl, image.bytes, image.format);
  return { imageUrl: hosted.url, ...inlineCopy(image.bytes, responseFormat) };
}

export function inlineCopy(file: FileLike, responseFormat: ResponseFormat): { b64_json?: Base64Bytes; imageBase64?: Base64Bytes } {
  if (responseFormat !== "b64_json") return {};
  const base64 = new Base64Bytes(file);
  return { b64_json: base64, imageBase64: base64 };
}

/** The provider's price as dollars (`$0.00` for the built-in models, which cost nothing to run). */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined || !Number.isFinite(usd)) return "$0.00";
  const text = usd.toFixed(4).replace(/0{1,2}$/, "");
  return `$${text}`;
}

/** Fields stamped at the end of every model call: how long it took and what it cost upstream. */
export function timing(ctx: ToolContext, costUsd: number | undefined) {
  return { latency: latencySince(ctx.startedAt), cost: formatCost(costUsd) };
}

/** Result fields shared by the image tools, for their OpenAPI schemas. */
export const imageResultFields = {
  imageUrl: z.string().openapi({ description: "Hosted URL of the resulting image (served from /files/)." }),
  b64_json: base64Field("Base64 of the image; only with `responseFormat: b64_json`.").optional(),
  imageBase64: base64Field("Same payload as `b64_json`.").optional(),
  model: z.string().openapi({ description: "The model that served the request." }),
  seed: z.number().int().optional().openapi({ description: "The seed the model used; absent when the model takes none (its result does not depend on one)." }),
  latency: z.string().openapi({ example: "1.42s" }),
  cost: z.string().openapi({ description: "Provider cost in dollars.", example: "$0.00" }),
};

/** An image model that answered with markup answered nothing usable. */
export function expectImage(output: ModelOutput, model: Model): ImageOutput {
  if (output.kind === "image") return output;
  throw unexpected(output, model);
}

/** As expectImage, for a tool that also hosts an image made as it is written (upscale). */
export function expectImageOrStreamed(output: ModelOutput, model: Model): ImageOutput | StreamedImageOutput {
  if (output.kind !== "svg") return output;
  throw unexpected(output, model);
}

function unexpected(output: ModelOutput, model: Model): PixelgateError {
  // A streamed image where a whole one is needed is a bug of ours (only upscale streams), not the provider's.
  if (output.kind === "streamed") return new PixelgateError("internal_error", `${model.name} made its image as rows, which this tool does not host.`);
  return new PixelgateError("upstream_error", `${model.name} returned SVG where an image was expected.`);
}
