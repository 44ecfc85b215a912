import type { CommandSpec } from "../command.ts";
import { choiceOption, integerOption } from "../command.ts";
import { UsageError } from "../exit-codes.ts";
import { choicesOf, describeChoices, factsOf, priced } from "../facts.ts";
import { resolveImageArgument } from "../image-input.ts";
import { runTool } from "./run-tool.ts";
import { IMAGE_HELP } from "./tools.ts";

// The two model-free commands: compress and convert run on the service's codecs. Formats,
// defaults and prices come from the service's own description (facts.ts).

const COMPRESS_FORMATS = choicesOf("/v1/compress", "targetFormat");
const CONVERT_TARGETS = choicesOf("/v1/convert-format", "targetFormat");

export const compress: CommandSpec = {
  name: "compress",
  summary: priced(`Re-encode an image smaller as ${describeChoices("/v1/compress", "targetFormat")}`, "/v1/compress"),
  usage: `pixelgate compress IMAGE [--quality N] [--format ${COMPRESS_FORMATS.join("|")}] [options]`,
  details: `The result comes back inline (no hosted copy): without -o it is saved into the current folder under a generated name, and the path is printed. ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    quality: { type: "string", value: "N", description: "1 to 100 (default 70)." },
    format: { type: "string", value: "F", description: `${describeChoices("/v1/compress", "targetFormat")} (jpg is read as jpeg).` },
  },
  output: "file",
  inlineResult: factsOf("/v1/compress").inlineResult,
  billed: true,
  examples: ["pixelgate compress photo.png -o photo.webp", "pixelgate compress photo.png --format jpeg --quality 60 -o photo.jpg"],
  async run(ctx) {
    return runTool(ctx, "Compressing", "/v1/compress", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      quality: integerOption(ctx, "quality", { min: 1, max: 100 }),
      targetFormat: choiceOption(ctx, "format", [...COMPRESS_FORMATS, "jpg"])?.replace(/^jpg$/, "jpeg"),
    });
  },
};

export const convert: CommandSpec = {
  name: "convert",
  summary: priced(`Convert an image to ${CONVERT_TARGETS.join(", ")}`, "/v1/convert-format"),
  usage: "pixelgate convert IMAGE --to FORMAT [options]",
  details: `Settings are fixed (WebP/JPEG quality 80, AVIF 50, PNG lossless). ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    to: { type: "string", value: "FORMAT", description: `Required: ${CONVERT_TARGETS.join(", ")}.` },
    format: { type: "string", value: "FORMAT", description: "Same as --to." },
  },
  output: "file",
  billed: true,
  examples: ["pixelgate convert photo.png --to webp -o photo.webp", "pixelgate convert https://example.com/a.gif --to png --json"],
  async run(ctx) {
    // The format is what the call is for: without one nothing is sent (not a paid PNG by default).
    const to = choiceOption(ctx, "to", CONVERT_TARGETS) ?? choiceOption(ctx, "format", CONVERT_TARGETS);
    if (to === undefined) throw new UsageError(`convert: --to FORMAT is required (${CONVERT_TARGETS.join(", ")}).`);
    return runTool(ctx, "Converting", "/v1/convert-format", { image: await resolveImageArgument(ctx.args.IMAGE!), targetFormat: to });
  },
};
