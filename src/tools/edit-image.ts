import { z } from "@hono/zod-openapi";
import { PixelgateError } from "../errors";
import { modelCost, resolveImageModel, servedNote, type ServingModel } from "../models/resolve";
import { aspectLabelOf, parseAspectRatio } from "../providers/aspect";
import { checkTask, runModel, seedUsed, type EditTask } from "../providers";
import { SUPPORTED_EDITS } from "../providers/local/edit";
import { screenRequest } from "../safety";
import { aspectRatioField, imageAliasField, imageField, modelField, optionalPromptField, responseFormatField, seedField, seedOf, type ResponseFormat } from "./model-fields";
import { expectImage, imageResultFields, storeImage, timing } from "./model-output";
import { IMAGE_INPUT_ERRORS, sourceImageOf } from "./source-image";
import { requestBody } from "./request-body";
import { admitModelWork, modelWorkBudget } from "./model-work";
import { holdingPermit } from "./codec-work";
import type { Permit } from "../codecs";
import { defineTool } from "./types";

// edit_image: an image and an instruction to a new image, through the general image
// model. `remove_bg` and `upscale` are fixed instructions at fixed prices (8 and 15).

export const EDIT_ACTIONS = ["edit", "remove_bg", "upscale"] as const;
type EditAction = (typeof EDIT_ACTIONS)[number];

/** The instruction a fixed action sends when the client wrote none. */
const DEFAULT_INSTRUCTIONS: Record<Exclude<EditAction, "edit">, string> = {
  remove_bg: "Remove the background completely and keep the main subject, on a transparent background.",
  upscale: "Upscale the image to twice its size, keeping every detail sharp.",
};

const FIXED_PRICES: Record<Exclude<EditAction, "edit">, number> = { remove_bg: 8, upscale: 15 };

const EditInput = requestBody(
  "EditRequest",
  z.object({
    image: imageField,
    imageBase64: imageAliasField,
    prompt: optionalPromptField("The edit to make. Optional for `remove_bg` and `upscale`, which fill in a fixed instruction."),
    action: z.enum(EDIT_ACTIONS).default("edit").openapi({ description: "`edit` (default, model cost), `remove_bg` (8 credits) or `upscale` (15 credits)." }),
    model: modelField,
    aspectRatio: aspectRatioField,
    seed: seedField,
    responseFormat: responseFormatField,
  }),
);
type EditInput = z.infer<typeof EditInput>;

interface Prepared {
  task: EditTask;
  model: ServingModel;
  responseFormat: ResponseFormat;
  permit: Permit | null;
}

const EditResult = z
  .object({
    ...imageResultFields,
    prompt: z.string(),
    action: z.enum(EDIT_ACTIONS),
    aspectRatio: z.string().openapi({ description: "The result's aspect ratio: the one asked for when the result has it, else its own (1024x576 is `16:9`)." }),
    hasInputImage: z.literal(true),
    referenceImagesCount: z.number().int(),
  })
  .openapi("EditResult");

function instructionOf(input: EditInput): string {
  if (input.prompt) return input.prompt;
  if (input.action === "edit") throw new PixelgateError("missing_parameter", "prompt is required: say what to change.", { param: "prompt" });
  return DEFAULT_INSTRUCTIONS[input.action];
}

export const editImage = defineTool({
  name: "edit_image",
  paths: { v1: "/v1/edit", playground: "/playground/edit" },
  summary: "Edit an image by instruction (model cost; 8 for remove_bg, 15 for upscale)",
  description:
    `Applies the instruction in \`prompt\` to \`image\` with the general image model. There is no mask: describe the region in the prompt. The built-in local model (local-draw-v1) is classical image processing, not a neural model: it understands ${SUPPORTED_EDITS.join("; ")}, combined with "and" or commas, and refuses any other instruction with 400 invalid_parameter before charging.`,
  mcpDescription:
    `Applies the instruction in \`prompt\` to \`image\` with the general image model (its cost); \`action\` remove_bg (8 credits) and upscale (15) use fixed instructions. There is no mask: describe the region in the prompt. The built-in local model (local-draw-v1) is classical image processing, not a neural model: it understands ${SUPPORTED_EDITS.map((edit) => edit.split(" (")[0]).join(", ")}, combined with "and" or commas, and refuses any other instruction before charging.`,
  errors: [...IMAGE_INPUT_ERRORS, "content_policy_violation", "upstream_error", "upstream_timeout"],
  input: () => EditInput,
  result: () => EditResult,
  async prepare(input: EditInput, ctx): Promise<Prepared> {
    const prompt = instructionOf(input);
    await screenRequest(ctx.env, [{ param: "prompt", text: prompt }]);
    const aspectRatio = parseAspectRatio(input.aspectRatio);
    const model = await resolveImageModel(ctx.env, input.model ?? undefined);
    const image = await sourceImageOf(input, ctx);
    const task: EditTask = { kind: "edit", prompt, action: input.action, image, aspectRatio, seed: seedOf(input.seed) };
    checkTask(task, model);
    return { task, model, responseFormat: input.responseFormat, permit: await admitModelWork(task, model, ctx) };
  },
  release: ({ permit }: Prepared) => permit?.release(),
  workBudget: ({ task }: Prepared) => modelWorkBudget(task),
  price: ({ task, model }: Prepared) => (task.action === "edit" ? modelCost(model) : FIXED_PRICES[task.action]),
  summarize: (input: EditInput, prepared?: Prepared) => ({
    model: prepared?.model.modelId ?? input.model ?? "",
    prompt: prepared?.task.prompt ?? input.prompt ?? "",
  }),
  async run({ task, model, responseFormat, permit }, ctx) {
    const image = expectImage(await holdingPermit(permit, () => runModel(ctx, model, task)), model);
    const stored = await storeImage(ctx, image, responseFormat);
    return {
      message: `Edited the image with ${model.name} (${task.action}); the result is ${image.width}x${image.height}.${servedNote(model)}`,
      result: {
        ...stored,
        prompt: task.prompt,
        action: task.action,
        model: model.modelId,
        ...seedUsed(model, task),
        // The result's shape: a model may keep the input's instead of the one asked for.
        aspectRatio: aspectLabelOf(image.width, image.height, task.aspectRatio),
        hasInputImage: true as const,
        referenceImagesCount: 1,
        ...timing(ctx, image.costUsd),
      },
    };
  },
});
