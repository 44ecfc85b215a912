import type { CommandSpec } from "../command.ts";
import { choiceOption, integerOption } from "../command.ts";
import { resolveImageArgument } from "../image-input.ts";
import { runTool } from "./run-tool.ts";
import { IMAGE_HELP } from "./tools.ts";

// The two model-free commands: compress and convert run on the service's codecs, 1 credit each.

export const compress: CommandSpec = {
  name: "compress",
  summary: "Re-encode an image smaller as WebP (default), JPEG or PNG (1 credit).",
  usage: "pixelgate compress IMAGE [--quality N] [--format webp|jpeg|png] [options]",
  details: `The result comes back inline (no hosted copy); save it with -o. ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    quality: { type: "string", value: "N", description: "1 to 100 (default 70)." },
    format: { type: "string", value: "F", description: "webp (default), jpeg or png." },
  },
  output: "file",
  billed: true,
  examples: ["pixelgate compress photo.png -o photo.webp", "pixelgate compress photo.png --format jpeg --quality 60 -o photo.jpg"],
  async run(ctx) {
    return runTool(ctx, "Compressing", "/v1/compress", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      quality: integerOption(ctx, "quality", { min: 1, max: 100 }),
      targetFormat: choiceOption(ctx, "format", ["webp", "jpeg", "jpg", "png"])?.replace("jpg", "jpeg"),
    });
  },
};

const CONVERT_TARGETS = ["png", "jpeg", "jpg", "webp", "gif", "tiff", "avif"];

export const convert: CommandSpec = {
  name: "convert",
  summary: "Convert an image to png, jpeg, webp, gif, tiff or avif (1 credit).",
  usage: "pixelgate convert IMAGE --to FORMAT [options]",
  details: `Settings are fixed (WebP/JPEG quality 80, AVIF 50, PNG lossless). ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    to: { type: "string", value: "FORMAT", description: "png (default), jpeg, webp, gif, tiff or avif." },
    format: { type: "string", value: "FORMAT", description: "Same as --to." },
  },
  output: "file",
  billed: true,
  examples: ["pixelgate convert photo.png --to webp -o photo.webp", "pixelgate convert https://example.com/a.gif --to png --json"],
  async run(ctx) {
    const to = choiceOption(ctx, "to", CONVERT_TARGETS) ?? choiceOption(ctx, "format", CONVERT_TARGETS);
    return runTool(ctx, "Converting", "/v1/convert-format", { image: await resolveImageArgument(ctx.args.IMAGE!), targetFormat: to });
  },
};
