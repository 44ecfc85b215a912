import { z } from "@hono/zod-openapi";
import { resolveTaskModel, servedNote, type ServingModel } from "../models/resolve";
import { checkTask, runModel, seedUsed, type SvgTask } from "../providers";
import { PixelgateError } from "../errors";
import { INLINE_FILE_KEYWORD } from "../http/base64-bytes";
import { screenRequest } from "../safety";
import { svgDataUrl } from "../svg/sanitize";
import { promptField, seedField, seedOf, taskModelField } from "./model-fields";
import { timing } from "./model-output";
import { requestBody } from "./request-body";
import { defineTool } from "./types";

// text_to_svg: a prompt to sanitised SVG markup, 5 credits. The markup comes back
// inline (`svgCode`, and `dataUrl`/`imageUrl` as a data URL); providers' SVG is sanitised in
// runModel before anything sees it.

export const SVG_CREDITS = 5;

const SvgInput = requestBody(
  "TextToSvgRequest",
  z.object({
    prompt: promptField("What the graphic shows."),
    style: z.string().trim().max(200).default("icon").openapi({ description: "Default `icon`; recorded and echoed (the local composer also knows flat, outline, line, duotone and badge)." }),
    model: taskModelField("SVG"),
    seed: seedField,
  }),
);
type SvgInput = z.infer<typeof SvgInput>;

interface Prepared {
  task: SvgTask;
  model: ServingModel;
}

const SvgResult = z
  .object({
    svgCode: z.string().openapi({ description: "Sanitised SVG markup: no scripts, event handlers, foreignObject or external references." }),
    dataUrl: z.string().openapi({ description: "The graphic as a data: URL usable in `src`.", [INLINE_FILE_KEYWORD]: true }),
    imageUrl: z.string().openapi({ description: "Alias of `dataUrl`.", [INLINE_FILE_KEYWORD]: true }),
    prompt: z.string(),
    style: z.string(),
    model: z.string(),
    seed: z.number().int().optional().openapi({ description: "The seed the model used; absent when the model takes none." }),
    latency: z.string(),
    cost: z.string(),
  })
  .openapi("TextToSvgResult");

export const textToSvg = defineTool({
  name: "text_to_svg",
  paths: { v1: "/v1/text-to-svg", playground: "/playground/text-to-svg" },
  summary: "Write an SVG graphic from a prompt (5 credits)",
  description: "Draws a vector graphic from `prompt` in the given `style`. Always 5 credits. The SVG is sanitised before it is returned.",
  errors: ["content_policy_violation", "upstream_error", "upstream_timeout"],
  input: () => SvgInput,
  result: () => SvgResult,
  async prepare(input: SvgInput, ctx): Promise<Prepared> {
    await screenRequest(ctx.env, [
      { param: "prompt", text: input.prompt },
      { param: "style", text: input.style },
    ]);
    const model = await resolveTaskModel(ctx.env, "svg", input.model ?? undefined);
    const task: SvgTask = { kind: "svg", prompt: input.prompt, style: input.style, seed: seedOf(input.seed) };
    checkTask(task, model);
    return { task, model };
  },
  price: () => SVG_CREDITS,
  summarize: (input: SvgInput, prepared?: Prepared) => ({ model: prepared?.model.modelId ?? input.model ?? "", prompt: input.prompt ?? "" }),
  async run({ task, model }, ctx) {
    const output = await runModel(ctx, model, task);
    if (output.kind !== "svg") throw new PixelgateError("upstream_error", `${model.name} returned an image where SVG was expected.`);
    const dataUrl = svgDataUrl(output.markup);
    return {
      message: `Drew an SVG graphic (${output.markup.length} characters) with ${model.name}.${servedNote(model)}`,
      result: {
        svgCode: output.markup,
        dataUrl,
        imageUrl: dataUrl,
        prompt: task.prompt,
        style: task.style,
        model: model.modelId,
        ...seedUsed(model, task),
        ...timing(ctx, output.costUsd),
      },
    };
  },
});
