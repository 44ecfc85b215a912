import type { CommandContext, CommandSpec, OptionSpec } from "../command.ts";
import { choiceOption, integerOption, stringOption } from "../command.ts";
import { UsageError } from "../exit-codes.ts";
import { choicesOf, describeChoices, factsOf, fieldOf, priced } from "../facts.ts";
import { resolveImageArgument } from "../image-input.ts";
import { runTool } from "./run-tool.ts";

// One command per model tool (compress and convert are in codec-tools.ts). Each builds the REST
// body of its /v1 endpoint from the command line; the service validates and prices it. Prices,
// choices, defaults and limits come from the service's own description (facts.ts).

export const IMAGE_HELP = "IMAGE is a file path, an https URL, a data URI, or - to read stdin.";

const model: OptionSpec = { type: "string", value: "ID", description: "A modelId from `pixelgate models` (default: the service's default)." };
const aspectRatio: OptionSpec = { type: "string", value: "W:H", description: `Aspect ratio, e.g. ${fieldOf("/v1/generate", "aspectRatio").default} (default), 16:9, 9:16, 4:3.` };
const style: OptionSpec = { type: "string", value: "TEXT", description: "Style note, recorded and echoed." };
const seed: OptionSpec = { type: "string", value: "N", description: "Seed for a reproducible result." };

const seedRange = fieldOf("/v1/generate", "seed");
const seedOf = (ctx: CommandContext) => integerOption(ctx, "seed", { min: seedRange.minimum ?? 0, max: seedRange.maximum ?? Number.MAX_SAFE_INTEGER });

/**
 * An empty or over-long prompt is a usage error here, before any call: never a paid round trip
 * to a 400, and never cut to fit.
 */
function prompt(ctx: CommandContext, path: string, name = "PROMPT"): string | undefined {
  const text = ctx.args[name];
  if (text !== undefined && text.trim() === "") throw new UsageError(`${name} is empty.`);
  const limit = fieldOf(path, "prompt").maxLength;
  if (text !== undefined && limit !== undefined && text.trim().length > limit) {
    throw new UsageError(`${name} has ${text.trim().length} characters; the service takes at most ${limit}. Nothing was sent.`);
  }
  return text;
}

export const generate: CommandSpec = {
  name: "generate",
  summary: priced("Generate an image from a prompt", "/v1/generate"),
  usage: "pixelgate generate PROMPT [options]",
  details: `Optional reference images guide the render. ${IMAGE_HELP}`,
  positionals: ["PROMPT"],
  options: {
    model,
    "aspect-ratio": aspectRatio,
    style,
    seed,
    image: { type: "string", value: "IMAGE", description: "A reference image." },
    reference: { type: "string", multiple: true, value: "IMAGE", description: "Another reference image (repeatable; 8 images at most in all)." },
  },
  output: "file",
  billed: true,
  examples: [
    'pixelgate generate "a red hot-air balloon over green hills" -o balloon.png',
    'pixelgate generate "a lighthouse at dusk" --aspect-ratio 16:9 --seed 7 --json',
    'pixelgate generate "the same scene in autumn" --image scene.png -o autumn.png',
  ],
  async run(ctx) {
    const references = (ctx.values.reference as string[] | undefined) ?? [];
    const image = stringOption(ctx, "image");
    return runTool(ctx, "Generating", "/v1/generate", {
      prompt: prompt(ctx, "/v1/generate"),
      model: stringOption(ctx, "model"),
      aspectRatio: stringOption(ctx, "aspect-ratio"),
      style: stringOption(ctx, "style"),
      seed: seedOf(ctx),
      image: image === undefined ? undefined : await resolveImageArgument(image),
      referenceImages: await Promise.all(references.map((reference) => resolveImageArgument(reference))),
    });
  },
};

export const transparent: CommandSpec = {
  name: "transparent",
  summary: priced("Generate an image and cut its subject out: a transparent PNG", "/v1/generate-transparent"),
  usage: "pixelgate transparent PROMPT [options]",
  details: "One clear subject works best.",
  positionals: ["PROMPT"],
  options: { model, "aspect-ratio": aspectRatio, style, seed },
  output: "file",
  billed: true,
  examples: ['pixelgate transparent "a yellow star sticker" -o star.png'],
  async run(ctx) {
    return runTool(ctx, "Generating and cutting out", "/v1/generate-transparent", {
      prompt: prompt(ctx, "/v1/generate-transparent"),
      model: stringOption(ctx, "model"),
      aspectRatio: stringOption(ctx, "aspect-ratio"),
      style: stringOption(ctx, "style"),
      seed: seedOf(ctx),
    });
  },
};

export const edit: CommandSpec = {
  name: "edit",
  summary: priced("Edit an image as a prompt says", "/v1/edit"),
  usage: "pixelgate edit IMAGE PROMPT [options]",
  details: `PROMPT may be left out with --action remove_bg or upscale. ${IMAGE_HELP}`,
  positionals: ["IMAGE", "PROMPT?"],
  options: {
    action: { type: "string", value: "A", description: `${describeChoices("/v1/edit", "action")}.` },
    model,
    "aspect-ratio": aspectRatio,
    seed,
  },
  output: "file",
  billed: true,
  examples: [
    'pixelgate edit photo.jpg "make it sepia" -o sepia.png',
    "cat photo.png | pixelgate edit - \"rotate 90 degrees and mirror\" -o turned.png",
    "pixelgate edit https://example.com/cat.jpg --action remove_bg -o cat.png",
  ],
  async run(ctx) {
    const action = choiceOption(ctx, "action", choicesOf("/v1/edit", "action"));
    const text = prompt(ctx, "/v1/edit");
    return runTool(ctx, "Editing", "/v1/edit", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      prompt: text,
      action,
      model: stringOption(ctx, "model"),
      aspectRatio: stringOption(ctx, "aspect-ratio"),
      seed: seedOf(ctx),
    });
  },
};

export const removeBg: CommandSpec = {
  name: "remove-bg",
  summary: priced("Remove the background: the subject on transparency (PNG; WebP for a large photo)", "/v1/remove-background"),
  usage: "pixelgate remove-bg IMAGE [options]",
  details: IMAGE_HELP,
  positionals: ["IMAGE"],
  options: { model: { type: "string", value: "ID", description: "A background-removal model id (default: the best live one)." } },
  output: "file",
  billed: true,
  examples: ["pixelgate remove-bg product.jpg -o product.png", "curl -s https://example.com/a.png | pixelgate remove-bg - -o a-cut.png"],
  async run(ctx) {
    return runTool(ctx, "Removing the background", "/v1/remove-background", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      model: stringOption(ctx, "model"),
    });
  },
};

export const upscale: CommandSpec = {
  name: "upscale",
  summary: priced(`Upscale an image exactly ${describeChoices("/v1/upscale", "scaleFactor")}`, "/v1/upscale"),
  usage: `pixelgate upscale IMAGE [--scale ${choicesOf("/v1/upscale", "scaleFactor").join("|")}] [options]`,
  details: `The result may be at most 8192 x 8192 pixels (4x of a 2048 x 2048 image); it is saved from its hosted link. ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    scale: { type: "string", value: "F", description: `${describeChoices("/v1/upscale", "scaleFactor")}.` },
    model: { type: "string", value: "ID", description: "An upscaler model id (default: the best live one)." },
  },
  output: "file",
  billed: true,
  examples: ["pixelgate upscale icon.png --scale 2x -o icon@2x.png", "pixelgate upscale https://example.com/small.png --scale 8x --json"],
  async run(ctx) {
    const given = stringOption(ctx, "scale");
    // "2" is accepted for "2x": the factor is what people type first.
    const scale = given === undefined ? undefined : /^\d+$/.test(given) ? `${given}x` : given.toLowerCase();
    const factors = choicesOf("/v1/upscale", "scaleFactor");
    if (scale !== undefined && !factors.includes(scale)) throw new UsageError(`--scale must be one of ${factors.join(", ")}, got "${given}".`);
    return runTool(ctx, "Upscaling", "/v1/upscale", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      scaleFactor: scale,
      model: stringOption(ctx, "model"),
    });
  },
};

export const svg: CommandSpec = {
  name: "svg",
  summary: priced("Write an SVG graphic from a prompt", "/v1/text-to-svg"),
  usage: "pixelgate svg PROMPT [options]",
  details: "With -o the markup is written as is (an .svg extension is added when the path has none); without -o it is saved into the current folder under a generated name, and the path is printed.",
  positionals: ["PROMPT"],
  options: {
    style: { type: "string", value: "S", description: "icon (default), flat, outline, line, duotone, badge, ..." },
    model: { type: "string", value: "ID", description: "An SVG model id (default: the best live one)." },
    seed,
  },
  output: "file",
  inlineResult: factsOf("/v1/text-to-svg").inlineResult,
  billed: true,
  examples: ['pixelgate svg "a green leaf" -o leaf.svg', 'pixelgate svg "a rocket" --style outline -o - > rocket.svg'],
  async run(ctx) {
    return runTool(ctx, "Drawing SVG", "/v1/text-to-svg", {
      prompt: prompt(ctx, "/v1/text-to-svg"),
      style: stringOption(ctx, "style"),
      model: stringOption(ctx, "model"),
      seed: seedOf(ctx),
    });
  },
};
