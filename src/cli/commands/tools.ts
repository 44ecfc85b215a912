import type { CommandContext, CommandSpec, OptionSpec } from "../command.ts";
import { choiceOption, integerOption, stringOption } from "../command.ts";
import { UsageError } from "../exit-codes.ts";
import { resolveImageArgument } from "../image-input.ts";
import { runTool } from "./run-tool.ts";

// One command per model tool (compress and convert are in codec-tools.ts). Each builds the REST body of its /v1 endpoint (docs/api.md "Image
// tools", "Model tools") from the command line; the service validates and prices it.

export const IMAGE_HELP = "IMAGE is a file path, an https URL, a data URI, or - to read stdin.";

const model: OptionSpec = { type: "string", value: "ID", description: "A modelId from `pixelgate models` (default: the service's default)." };
const aspectRatio: OptionSpec = { type: "string", value: "W:H", description: "Aspect ratio, e.g. 1:1 (default), 16:9, 9:16, 4:3." };
const style: OptionSpec = { type: "string", value: "TEXT", description: "Style note, recorded and echoed." };
const seed: OptionSpec = { type: "string", value: "N", description: "Seed for a reproducible result." };

const seedOf = (ctx: CommandContext) => integerOption(ctx, "seed", { min: 0, max: 4_294_967_295 });

/** A prompt given as "" is still a usage error here rather than a paid round trip to a 400. */
function prompt(ctx: CommandContext, name = "PROMPT"): string | undefined {
  const text = ctx.args[name];
  if (text !== undefined && text.trim() === "") throw new UsageError(`${name} is empty.`);
  return text;
}

export const generate: CommandSpec = {
  name: "generate",
  summary: "Generate an image from a prompt (model cost).",
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
      prompt: prompt(ctx),
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
  summary: "Generate an image and cut its subject out: a transparent PNG (model cost + 8).",
  usage: "pixelgate transparent PROMPT [options]",
  details: "One clear subject works best.",
  positionals: ["PROMPT"],
  options: { model, "aspect-ratio": aspectRatio, style, seed },
  output: "file",
  billed: true,
  examples: ['pixelgate transparent "a yellow star sticker" -o star.png'],
  async run(ctx) {
    return runTool(ctx, "Generating and cutting out", "/v1/generate-transparent", {
      prompt: prompt(ctx),
      model: stringOption(ctx, "model"),
      aspectRatio: stringOption(ctx, "aspect-ratio"),
      style: stringOption(ctx, "style"),
      seed: seedOf(ctx),
    });
  },
};

export const edit: CommandSpec = {
  name: "edit",
  summary: "Edit an image as a prompt says (model cost; 8 for --action remove_bg, 15 for upscale).",
  usage: "pixelgate edit IMAGE PROMPT [options]",
  details: `PROMPT may be left out with --action remove_bg or upscale. ${IMAGE_HELP}`,
  positionals: ["IMAGE", "PROMPT?"],
  options: {
    action: { type: "string", value: "A", description: "edit (default), remove_bg or upscale." },
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
    const action = choiceOption(ctx, "action", ["edit", "remove_bg", "upscale"]);
    return runTool(ctx, "Editing", "/v1/edit", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      prompt: prompt(ctx),
      action,
      model: stringOption(ctx, "model"),
      aspectRatio: stringOption(ctx, "aspect-ratio"),
      seed: seedOf(ctx),
    });
  },
};

export const removeBg: CommandSpec = {
  name: "remove-bg",
  summary: "Remove the background: a transparent PNG of the subject (8 credits).",
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
  summary: "Upscale an image exactly 2x, 4x (default) or 8x (15 credits).",
  usage: "pixelgate upscale IMAGE [--scale 2x|4x|8x] [options]",
  details: `The result may be at most 2048 x 2048 pixels. ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    scale: { type: "string", value: "F", description: "2x, 4x (default) or 8x." },
    model: { type: "string", value: "ID", description: "An upscaler model id (default: the best live one)." },
  },
  output: "file",
  billed: true,
  examples: ["pixelgate upscale icon.png --scale 2x -o icon@2x.png", "pixelgate upscale https://example.com/small.png --scale 8x --json"],
  async run(ctx) {
    const given = stringOption(ctx, "scale");
    // "2" is accepted for "2x": the factor is what people type first.
    const scale = given === undefined ? undefined : /^[248]$/.test(given) ? `${given}x` : given.toLowerCase();
    if (scale !== undefined && !["2x", "4x", "8x"].includes(scale)) throw new UsageError(`--scale must be 2x, 4x or 8x, got "${given}".`);
    return runTool(ctx, "Upscaling", "/v1/upscale", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      scaleFactor: scale,
      model: stringOption(ctx, "model"),
    });
  },
};

export const svg: CommandSpec = {
  name: "svg",
  summary: "Write an SVG graphic from a prompt (5 credits).",
  usage: "pixelgate svg PROMPT [options]",
  details: "With -o the markup is written as is (an .svg extension is added when the path has none).",
  positionals: ["PROMPT"],
  options: {
    style: { type: "string", value: "S", description: "icon (default), flat, outline, line, duotone, badge, ..." },
    model: { type: "string", value: "ID", description: "An SVG model id (default: the best live one)." },
    seed,
  },
  output: "file",
  billed: true,
  examples: ['pixelgate svg "a green leaf" -o leaf.svg', 'pixelgate svg "a rocket" --style outline -o - > rocket.svg'],
  async run(ctx) {
    return runTool(ctx, "Drawing SVG", "/v1/text-to-svg", {
      prompt: prompt(ctx),
      style: stringOption(ctx, "style"),
      model: stringOption(ctx, "model"),
      seed: seedOf(ctx),
    });
  },
};
