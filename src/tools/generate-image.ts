import { z } from "@hono/zod-openapi";
import { modelCost, resolveImageModel, servedNote, type ServingModel } from "../models/resolve";
import { aspectLabelOf, parseAspectRatio } from "../providers/aspect";
import { checkTask, runModel, seedUsed, type GenerateTask, type ImageOutput } from "../providers";
import { expectImage } from "./model-output";
import { screenRequest } from "../safety";
import { aspectRatioField, imageAliasField, imageField, modelField, promptField, referenceImagesField, responseFormatField, seedField, seedOf, styleField, type ResponseFormat } from "./model-fields";
import { imageResultFields, storeImage, timing } from "./model-output";
import { referenceImagesOf } from "./reference-images";
import { admitModelWork, modelWorkBudget } from "./model-work";
import { holdingPermit } from "./codec-work";
import type { Permit } from "../codecs";
import { requestBody } from "./request-body";
import { IMAGE_INPUT_ERRORS, ownFilesOf } from "./source-image";
import { defineTool, type ToolContext } from "./types";

// generate_image: a prompt, optionally reference images, to one image.

export const GenerateFields = z.object({
  prompt: promptField("What to draw."),
  model: modelField,
  aspectRatio: aspectRatioField,
  style: styleField,
  seed: seedField,
  image: imageField,
  imageBase64: imageAliasField,
  referenceImages: referenceImagesField,
  responseFormat: responseFormatField,
});
export const GenerateInput = requestBody("GenerateRequest", GenerateFields);
export type GenerateInput = z.infer<typeof GenerateInput>;

export interface PreparedGeneration {
  task: GenerateTask;
  model: ServingModel;
  style: string | null;
  responseFormat: ResponseFormat;
  /** The memory gate's admission for the references' preparation (model-work.ts); null: none needed. */
  permit: Permit | null;
}

/** Everything a generation needs before the charge; generate-transparent starts the same way. */
export async function prepareGeneration(input: GenerateInput, ctx: ToolContext): Promise<PreparedGeneration> {
  await screenRequest(ctx.env, [
    { param: "prompt", text: input.prompt },
    { param: "style", text: input.style ?? undefined },
  ]);
  const aspectRatio = parseAspectRatio(input.aspectRatio);
  const model = await resolveImageModel(ctx.env, input.model ?? undefined);
  const references = await referenceImagesOf(input, ownFilesOf(ctx));
  const task: GenerateTask = { kind: "generate", prompt: input.prompt, aspectRatio, seed: seedOf(input.seed), references };
  checkTask(task, model);
  return { task, model, style: input.style ?? null, responseFormat: input.responseFormat, permit: await admitModelWork(task, model, ctx) };
}

/** The fields generate and generate-transparent both report. */
export function generationFields(prepared: PreparedGeneration, ctx: ToolContext, image: ImageOutput) {
  const { task, model, style } = prepared;
  return {
    prompt: task.prompt,
    model: model.modelId,
    ...seedUsed(model, task),
    aspectRatio: aspectLabelOf(image.width, image.height, task.aspectRatio),
    style: style ?? "",
    hasInputImage: task.references.length > 0,
    referenceImagesCount: task.references.length,
    ...timing(ctx, image.costUsd),
  };
}

const GenerateResult = z
  .object({
    ...imageResultFields,
    prompt: z.string(),
    action: z.literal("generate"),
    aspectRatio: z.string().openapi({ description: "The result's aspect ratio: the one asked for when the result has it, else its own (some models keep a fixed size)." }),
    style: z.string().openapi({ description: "Echo of `style` (empty when none was sent)." }),
    hasInputImage: z.boolean(),
    referenceImagesCount: z.number().int(),
  })
  .openapi("GenerateResult");

export const generateImage = defineTool({
  name: "generate_image",
  paths: { v1: "/v1/generate", playground: "/playground/generate" },
  summary: "Generate an image from a prompt (model cost)",
  description:
    "Draws an image from `prompt`, optionally guided by reference images (`image` and `referenceImages`, merged). Costs the model's `costPerReq` (15 when none is recorded). The prompt passes the safety screen before anything is charged.",
  errors: [...IMAGE_INPUT_ERRORS, "content_policy_violation", "upstream_error", "upstream_timeout"],
  input: () => GenerateInput,
  result: () => GenerateResult,
  prepare: (input: GenerateInput, ctx) => prepareGeneration(input, ctx),
  price: (prepared: PreparedGeneration) => modelCost(prepared.model),
  release: ({ permit }: PreparedGeneration) => permit?.release(),
  workBudget: ({ task }: PreparedGeneration) => modelWorkBudget(task),
  summarize: (input: GenerateInput, prepared?: PreparedGeneration) => ({ model: prepared?.model.modelId ?? input.model ?? "", prompt: input.prompt ?? "" }),
  async run(prepared, ctx) {
    const image = expectImage(await holdingPermit(prepared.permit, () => runModel(ctx, prepared.model, prepared.task)), prepared.model);
    const stored = await storeImage(ctx, image, prepared.responseFormat);
    return {
      message: `Generated a ${image.width}x${image.height} image with ${prepared.model.name}.${servedNote(prepared.model)}`,
      result: { ...stored, action: "generate" as const, ...generationFields(prepared, ctx, image) },
    };
  },
});
