import { z } from "@hono/zod-openapi";
import { PixelgateError } from "../errors";
import { resolveTaskModel, servedNote, type ServingModel } from "../models/resolve";
import { checkTask, runModel, type ScaleFactor, type UpscaleTask } from "../providers";
import { imageAliasField, imageField, responseFormatField, type ResponseFormat, taskModelField } from "./model-fields";
import { expectImage, imageResultFields, storeImage, timing } from "./model-output";
import { IMAGE_INPUT_ERRORS, sourceImageOf } from "./source-image";
import { requestBody } from "./request-body";
import { defineTool } from "./types";

// upscale_image: 2x, 4x or 8x with the dedicated upscaler, 15 credits at any factor.

export const UPSCALE_CREDITS = 15;
export const SCALE_FACTORS = ["2x", "4x", "8x"] as const;

const UpscaleInput = requestBody(
  "UpscaleRequest",
  z.object({
    image: imageField,
    imageBase64: imageAliasField,
    scaleFactor: z.enum(SCALE_FACTORS).optional().openapi({ description: "`2x`, `4x` (default) or `8x`. `scale` is an alias." }),
    scale: z.enum(SCALE_FACTORS).optional().openapi({ description: "`2x`, `4x` (default) or `8x`." }),
    model: taskModelField("upscaler"),
    responseFormat: responseFormatField,
  }),
);
type UpscaleInput = z.infer<typeof UpscaleInput>;

/**
 * The factor, under either of its names: `scaleFactor` (REST's) or `scale` (MCP's, spec 4.11),
 * so a body written for one surface works on every other, batch items included.
 */
function scaleOf(input: UpscaleInput): (typeof SCALE_FACTORS)[number] {
  if (input.scale && input.scaleFactor && input.scale !== input.scaleFactor) {
    throw new PixelgateError("invalid_parameter", `scale (${input.scale}) and scaleFactor (${input.scaleFactor}) disagree; send one of them.`, { param: "scale" });
  }
  return input.scale ?? input.scaleFactor ?? "4x";
}

interface Prepared {
  task: UpscaleTask;
  model: ServingModel;
  responseFormat: ResponseFormat;
}

const UpscaleResult = z
  .object({
    ...imageResultFields,
    scaleFactor: z.enum(SCALE_FACTORS),
    action: z.literal("upscale"),
    hasInputImage: z.literal(true),
    width: z.number().int().openapi({ description: "Width of the result in pixels." }),
    height: z.number().int().openapi({ description: "Height of the result in pixels." }),
  })
  .openapi("UpscaleResult");

export const upscaleImage = defineTool({
  name: "upscale_image",
  paths: { v1: "/v1/upscale", playground: "/playground/upscale" },
  summary: "Upscale an image 2x, 4x or 8x (15 credits)",
  description:
    "Enlarges the image by exactly the factor with the dedicated upscaler. Always 15 credits. An input whose result would exceed the output limit is refused with 400 before charging.",
  mcpDescription:
    "Enlarges the image by exactly the factor (`scale`) with the dedicated upscaler. Always 15 credits. An input whose result would exceed the output size limit is refused before anything is charged.",
  mcpHides: ["scaleFactor"],
  errors: [...IMAGE_INPUT_ERRORS, "upstream_error", "upstream_timeout"],
  input: () => UpscaleInput,
  result: () => UpscaleResult,
  async prepare(input: UpscaleInput, ctx): Promise<Prepared> {
    const model = await resolveTaskModel(ctx.env, "upscale", input.model ?? undefined);
    const factor = Number.parseInt(scaleOf(input), 10) as ScaleFactor;
    const task: UpscaleTask = { kind: "upscale", image: await sourceImageOf(input, ctx), factor };
    checkTask(task, model);
    return { task, model, responseFormat: input.responseFormat };
  },
  price: () => UPSCALE_CREDITS,
  summarize: (input: UpscaleInput, prepared?: Prepared) => ({ model: prepared?.model.modelId ?? input.model ?? "", prompt: "" }),
  async run({ task, model, responseFormat }, ctx) {
    const image = expectImage(await runModel(ctx, model, task), model);
    const stored = await storeImage(ctx, image, responseFormat);
    return {
      message: `Upscaled ${task.image.width}x${task.image.height} by ${task.factor}x to ${image.width}x${image.height} with ${model.name}.${servedNote(model)}`,
      result: {
        ...stored,
        scaleFactor: `${task.factor}x` as (typeof SCALE_FACTORS)[number],
        action: "upscale" as const,
        hasInputImage: true as const,
        width: image.width,
        height: image.height,
        model: model.modelId,
        ...timing(ctx, image.costUsd),
      },
    };
  },
});
