import { z } from "@hono/zod-openapi";
import { PixelgateError } from "../errors";
import { resolveTaskModel, servedNote, type ServingModel } from "../models/resolve";
import { isolateCodecGate, waitingBytes, type Permit } from "../codecs";
import { checkTask, runModel, type ScaleFactor, type UpscaleTask } from "../providers";
import { assertUpscaleFits, estimateUpscaleBytes, UPSCALE_OUTPUT_LIMITS } from "../providers/upscale-limits";
import { WorkBudget } from "../codecs/fuel";
import { holdingPermit } from "./codec-work";
import { admitModelWork, modelWorkBudget } from "./model-work";
import { imageAliasField, imageField, responseFormatField, type ResponseFormat, taskModelField } from "./model-fields";
import { expectImageOrStreamed, imageResultFields, storeImage, timing } from "./model-output";
import { IMAGE_INPUT_ERRORS, sourceImageOf } from "./source-image";
import { requestBody } from "./request-body";
import { defineTool } from "./types";

// upscale_image: 2x, 4x or 8x with the dedicated upscaler, 15 credits at any factor. The result
// is hosted: the local upscaler's rows go straight into the file in R2 as they are made, an
// upstream's file is stored as it came. Its size is known from the input's header, so the output
// limit (UPSCALE_OUTPUT_LIMITS), `b64_json`'s limit and the memory gate all answer before the charge.

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
  /**
   * The memory gate's admission: a local upscale's whole work, an upstream's input made
   * acceptable for the provider (a HEIC or WebP converted); null when there is none.
   */
  permit: Permit | null;
}

/**
 * The work budget: a local upscale's, the pixels it reads and the factor's square more it
 * writes; an upstream's, its input made acceptable for the provider (a HEIC converted) as any
 * model call's.
 */
function upscaleWorkBudget({ task, model }: Prepared): WorkBudget {
  const { image, factor } = task;
  return model.provider === "local" ? WorkBudget.forWork("upscale", image.width * image.height * (1 + factor * factor)) : modelWorkBudget(task);
}

/** `b64_json` of a result too large to read back whole is refused before the charge. */
function assertInlineFits(image: { width: number; height: number }, factor: ScaleFactor, responseFormat: ResponseFormat): void {
  const pixels = image.width * factor * image.height * factor;
  if (responseFormat !== "b64_json" || pixels <= UPSCALE_OUTPUT_LIMITS.inline) return;
  const side = Math.sqrt(UPSCALE_OUTPUT_LIMITS.inline);
  throw new PixelgateError(
    "invalid_parameter",
    `An upscale result of ${image.width * factor}x${image.height * factor} is answered as a link only; responseFormat b64_json is available up to ${side} x ${side} pixels. Leave responseFormat out and download imageUrl.`,
    { param: "responseFormat" },
  );
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
    "Enlarges the image by exactly the factor with the dedicated upscaler, up to 8192 x 8192 pixels. Always 15 credits. An input whose result would exceed the output limit is refused with 400 before charging. The result is hosted (`imageUrl`); `b64_json` is available for results up to 2048 x 2048.",
  mcpDescription:
    "Enlarges the image by exactly the factor (`scale`) with the dedicated upscaler. Always 15 credits. An input whose result would exceed the output size limit is refused before anything is charged.",
  mcpHides: ["scaleFactor"],
  errors: [...IMAGE_INPUT_ERRORS, "service_busy", "upstream_error", "upstream_timeout"],
  input: () => UpscaleInput,
  result: () => UpscaleResult,
  async prepare(input: UpscaleInput, ctx): Promise<Prepared> {
    const model = await resolveTaskModel(ctx.env, "upscale", input.model ?? undefined);
    const factor = Number.parseInt(scaleOf(input), 10) as ScaleFactor;
    const image = await sourceImageOf(input, ctx);
    const task: UpscaleTask = { kind: "upscale", image, factor };
    assertUpscaleFits(image.width, image.height, factor, "image", UPSCALE_OUTPUT_LIMITS.streamed);
    checkTask(task, model);
    assertInlineFits(image, factor, input.responseFormat);
    // The items of one batch share their context: one group at the gate (memory-gate.ts).
    const estimate = estimateUpscaleBytes(image, factor);
    const permit = model.provider === "local" ? await isolateCodecGate.acquire(estimate, ctx, waitingBytes(image.bytes.length)) : await admitModelWork(task, model, ctx);
    return { task, model, responseFormat: input.responseFormat, permit };
  },
  price: () => UPSCALE_CREDITS,
  release: ({ permit }) => permit?.release(),
  workBudget: upscaleWorkBudget,
  summarize: (input: UpscaleInput, prepared?: Prepared) => ({ model: prepared?.model.modelId ?? input.model ?? "", prompt: "" }),
  async run({ task, model, responseFormat, permit }, ctx) {
    const work = async () => {
      const image = expectImageOrStreamed(await runModel(ctx, model, task), model);
      return { image, stored: await storeImage(ctx, image, responseFormat) };
    };
    const { image, stored } = await holdingPermit(permit, work);
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
