import { z } from "@hono/zod-openapi";
import type { Model } from "../models/catalog";
import { modelCost, resolveTaskModel, servedNote } from "../models/resolve";
import { runModel, type ImageOutput } from "../providers";
import { admitModelWork, modelWorkBudget } from "./model-work";
import { holdingPermit } from "./codec-work";
import { GenerateFields, generationFields, prepareGeneration, type PreparedGeneration } from "./generate-image";
import { expectImage, imageResultFields, storeImage } from "./model-output";
import { requestBody } from "./request-body";
import { IMAGE_INPUT_ERRORS } from "./source-image";
import { defineTool, type ToolContext } from "./types";

// generate_transparent_image: render, then cut the subject out. Both
// stages are paid together (model cost + 8). When the cut-out stage fails the call still
// succeeds with the render and `isTransparent: false`, and the 8 credits of the stage that did
// not deliver are given back: a user should not pay for a cut-out they did not get.

export const CUTOUT_STAGE_CREDITS = 8;

const TransparentInput = requestBody("GenerateTransparentRequest", GenerateFields.omit({ image: true, imageBase64: true, referenceImages: true }));
type TransparentInput = z.infer<typeof TransparentInput>;

interface Prepared extends PreparedGeneration {
  cutoutModel: Model;
}

const TransparentResult = z
  .object({
    ...imageResultFields,
    imageUrl: z.string().openapi({ description: "The transparent PNG cut-out; the original render when `isTransparent` is false." }),
    originalImageUrl: z.string().openapi({ description: "The render before the cut-out." }),
    isTransparent: z.boolean().openapi({ description: "False when the cut-out stage failed (its 8 credits are refunded)." }),
    prompt: z.string(),
    action: z.literal("generate_transparent"),
    aspectRatio: z.string(),
    style: z.string(),
    hasInputImage: z.boolean(),
    referenceImagesCount: z.number().int(),
  })
  .openapi("GenerateTransparentResult");

/**
 * The cut-out stage, priced from the render it reads (known only now): admitted by the memory
 * gate and run on a work budget of its own. A full gate or a spent budget is a failed stage like
 * any other, its credits refunded.
 */
async function cutOut(render: ImageOutput, prepared: Prepared, ctx: ToolContext): Promise<ImageOutput | null> {
  const task = { kind: "remove_bg" as const, image: render };
  try {
    const permit = await admitModelWork(task, prepared.cutoutModel, ctx);
    const output = await holdingPermit(permit, () => modelWorkBudget(task).run(() => runModel(ctx, prepared.cutoutModel, task)));
    return expectImage(output, prepared.cutoutModel);
  } catch {
    return null; // the call still succeeds, with the render
  }
}

export const generateTransparentImage = defineTool({
  name: "generate_transparent_image",
  paths: { v1: "/v1/generate-transparent", playground: "/playground/generate-transparent" },
  summary: "Generate an image and cut out its subject (model cost + 8)",
  description:
    "Two stages: the image model draws the prompt (one clear subject works best), then the background-removal model makes the background transparent. `isTransparent` is false, `imageUrl` the plain render and the 8 cut-out credits are refunded when the second stage fails.",
  errors: [...IMAGE_INPUT_ERRORS, "content_policy_violation", "upstream_error", "upstream_timeout"],
  input: () => TransparentInput,
  result: () => TransparentResult,
  async prepare(input: TransparentInput, ctx): Promise<Prepared> {
    const generation = await prepareGeneration(input, ctx);
    return { ...generation, cutoutModel: await resolveTaskModel(ctx.env, "remove_bg", undefined) };
  },
  price: (prepared: Prepared) => modelCost(prepared.model) + CUTOUT_STAGE_CREDITS,
  release: ({ permit }: Prepared) => permit?.release(),
  workBudget: ({ task }: Prepared) => modelWorkBudget(task),
  summarize: (input: TransparentInput, prepared?: Prepared) => ({
    model: prepared ? `${prepared.model.modelId}+${prepared.cutoutModel.modelId}` : (input.model ?? ""),
    prompt: input.prompt ?? "",
  }),
  async run(prepared, ctx) {
    const render = expectImage(await holdingPermit(prepared.permit, () => runModel(ctx, prepared.model, prepared.task)), prepared.model);
    const cut = await cutOut(render, prepared, ctx);
    // Without a cut-out the render is the result, so it carries the inline copy when asked for.
    const original = await storeImage(ctx, render, cut ? "url" : prepared.responseFormat);
    const final = cut ? await storeImage(ctx, cut, prepared.responseFormat) : original;
    const costUsd = (render.costUsd ?? 0) + (cut?.costUsd ?? 0);
    return {
      message:
        (cut
          ? `Generated a ${render.width}x${render.height} image and cut out its subject.`
          : `Generated a ${render.width}x${render.height} image; the cut-out failed, so the render is returned and ${CUTOUT_STAGE_CREDITS} credits were refunded.`) + servedNote(prepared.model),
      result: {
        ...final,
        originalImageUrl: original.imageUrl,
        isTransparent: cut !== null,
        action: "generate_transparent" as const,
        ...generationFields(prepared, ctx, { ...render, costUsd }),
      },
      refundCredits: cut ? 0 : CUTOUT_STAGE_CREDITS,
    };
  },
});

