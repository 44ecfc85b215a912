import { z } from "@hono/zod-openapi";
import { resolveTaskModel, servedNote, type ServingModel } from "../models/resolve";
import { checkTask, runModel, type RemoveBackgroundTask } from "../providers";
import { screenRequest } from "../safety";
import { imageAliasField, imageField, optionalPromptField, responseFormatField, type ResponseFormat, taskModelField } from "./model-fields";
import { expectImage, imageResultFields, storeImage, timing } from "./model-output";
import { IMAGE_INPUT_ERRORS, sourceImageOf } from "./source-image";
import { requestBody } from "./request-body";
import { admitModelWork, modelWorkBudget } from "./model-work";
import { holdingPermit } from "./codec-work";
import type { Permit } from "../codecs";
import { defineTool } from "./types";

// remove_background: the dedicated cut-out model, 8 credits whatever the size.

export const REMOVE_BACKGROUND_CREDITS = 8;

const RemoveBackgroundInput = requestBody(
  "RemoveBackgroundRequest",
  z.object({
    image: imageField,
    imageBase64: imageAliasField,
    prompt: optionalPromptField("A note recorded with the request; it does not steer the cut-out."),
    model: taskModelField("background-removal"),
    responseFormat: responseFormatField,
  }),
);
type RemoveBackgroundInput = z.infer<typeof RemoveBackgroundInput>;

interface Prepared {
  task: RemoveBackgroundTask;
  model: ServingModel;
  note: string;
  responseFormat: ResponseFormat;
  permit: Permit | null;
}

const RemoveBackgroundResult = z
  .object({
    ...imageResultFields,
    imageUrl: z.string().openapi({ description: "Hosted URL of the cut-out with a transparent background: PNG, or WebP with alpha for a photo over 4 MP on the local model (at the photo's upright size)." }),
    prompt: z.string(),
    action: z.literal("remove_bg"),
    hasInputImage: z.literal(true),
  })
  .openapi("RemoveBackgroundResult");

export const removeBackground = defineTool({
  name: "remove_background",
  paths: { v1: "/v1/remove-background", playground: "/playground/remove-background" },
  summary: "Remove the background of an image (8 credits)",
  description:
    "Makes the background transparent and keeps the subject, with the dedicated cut-out model. Always 8 credits. A cut-out that finds no background to remove fails with 502 and is refunded.",
  mcpDescription:
    "Makes the background transparent and keeps the subject, with the dedicated cut-out model. Always 8 credits. A cut-out that finds no background to remove fails and is refunded.",
  errors: [...IMAGE_INPUT_ERRORS, "content_policy_violation", "upstream_error", "upstream_timeout"],
  input: () => RemoveBackgroundInput,
  result: () => RemoveBackgroundResult,
  async prepare(input: RemoveBackgroundInput, ctx): Promise<Prepared> {
    await screenRequest(ctx.env, [{ param: "prompt", text: input.prompt }]);
    const model = await resolveTaskModel(ctx.env, "remove_bg", input.model ?? undefined);
    const task: RemoveBackgroundTask = { kind: "remove_bg", image: await sourceImageOf(input, ctx) };
    checkTask(task, model);
    return { task, model, note: input.prompt ?? "", responseFormat: input.responseFormat, permit: await admitModelWork(task, model, ctx) };
  },
  price: () => REMOVE_BACKGROUND_CREDITS,
  release: ({ permit }: Prepared) => permit?.release(),
  workBudget: ({ task }: Prepared) => modelWorkBudget(task),
  summarize: (input: RemoveBackgroundInput, prepared?: Prepared) => ({ model: prepared?.model.modelId ?? input.model ?? "", prompt: input.prompt ?? "" }),
  async run({ task, model, note, responseFormat, permit }, ctx) {
    const image = expectImage(await holdingPermit(permit, () => runModel(ctx, model, task)), model);
    const stored = await storeImage(ctx, image, responseFormat);
    return {
      message: `Removed the background with ${model.name}.${servedNote(model)}`,
      result: {
        ...stored,
        prompt: note,
        action: "remove_bg" as const,
        hasInputImage: true as const,
        model: model.modelId,
        ...timing(ctx, image.costUsd),
      },
    };
  },
});
