import type { CommandContext, CommandSpec } from "../command.ts";
import { choiceOption, integerOption } from "../command.ts";
import { UsageError } from "../exit-codes.ts";
import { choicesOf, describeChoices, factsOf, fieldOf, priced } from "../facts.ts";
import { resolveImageArgument } from "../image-input.ts";
import { runTool } from "./run-tool.ts";
import { IMAGE_HELP } from "./tools.ts";

// The two model-free commands: compress and convert run on the service's codecs. Formats,
// defaults and prices come from the service's own description (facts.ts).

const COMPRESS_FORMATS = choicesOf("/v1/compress", "targetFormat");
const CONVERT_TARGETS = choicesOf("/v1/convert-format", "targetFormat");
const FITS = choicesOf("/v1/compress", "fit");

/** The resize flags both commands take, sent as the tools' `width`, `height` and `fit`. */
const RESIZE_OPTIONS = {
  width: { type: "string", value: "PX", description: "Resize: at most this many pixels wide, aspect ratio kept (never enlarges)." },
  height: { type: "string", value: "PX", description: "Resize: at most this many pixels high." },
  fit: { type: "string", value: "FIT", description: `${FITS.join(" or ")}: inside (default) keeps the whole picture within --width x --height; cover fills that box, cropping the centre.` },
} as const;
const RESIZE_USAGE = `[--width PX] [--height PX] [--fit ${FITS.join("|")}]`;

/** A side's range, as the service states it. */
const sideRange = (field: "width" | "height") => {
  const { minimum, maximum } = fieldOf("/v1/compress", field);
  if (minimum === undefined || maximum === undefined) throw new Error(`/v1/compress ${field} has no range (run npm run cli:facts)`);
  return { min: minimum, max: maximum };
};

function resizeArgs(ctx: CommandContext) {
  return {
    width: integerOption(ctx, "width", sideRange("width")),
    height: integerOption(ctx, "height", sideRange("height")),
    fit: choiceOption(ctx, "fit", FITS),
  };
}

export const compress: CommandSpec = {
  name: "compress",
  summary: priced(`Re-encode an image smaller as ${describeChoices("/v1/compress", "targetFormat")}`, "/v1/compress"),
  usage: `pixelgate compress IMAGE [--quality N] [--format ${COMPRESS_FORMATS.join("|")}] ${RESIZE_USAGE} [options]`,
  details: `The result comes back inline (no hosted copy): without -o it is saved into the current folder under a generated name, and the path is printed. ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    quality: { type: "string", value: "N", description: "1 to 100 (default 70)." },
    format: { type: "string", value: "F", description: `${describeChoices("/v1/compress", "targetFormat")} (jpg is read as jpeg).` },
    ...RESIZE_OPTIONS,
  },
  output: "file",
  inlineResult: factsOf("/v1/compress").inlineResult,
  billed: true,
  examples: ["pixelgate compress photo.png -o photo.webp", "pixelgate compress photo.png --format jpeg --quality 60 -o photo.jpg", "pixelgate compress photo.jpg --width 800 --height 800 -o thumb.webp"],
  async run(ctx) {
    return runTool(ctx, "Compressing", "/v1/compress", {
      image: await resolveImageArgument(ctx.args.IMAGE!),
      quality: integerOption(ctx, "quality", { min: 1, max: 100 }),
      targetFormat: choiceOption(ctx, "format", [...COMPRESS_FORMATS, "jpg"])?.replace(/^jpg$/, "jpeg"),
      ...resizeArgs(ctx),
    });
  },
};

export const convert: CommandSpec = {
  name: "convert",
  summary: priced(`Convert an image to ${CONVERT_TARGETS.join(", ")}`, "/v1/convert-format"),
  usage: `pixelgate convert IMAGE --to FORMAT ${RESIZE_USAGE} [options]`,
  details: `Settings are fixed (WebP/JPEG quality 80, AVIF 50, PNG lossless). ${IMAGE_HELP}`,
  positionals: ["IMAGE"],
  options: {
    to: { type: "string", value: "FORMAT", description: `Required: ${CONVERT_TARGETS.join(", ")}.` },
    format: { type: "string", value: "FORMAT", description: "Same as --to." },
    ...RESIZE_OPTIONS,
  },
  output: "file",
  billed: true,
  examples: ["pixelgate convert photo.png --to webp -o photo.webp", "pixelgate convert https://example.com/a.gif --to png --json", "pixelgate convert photo.heic --to jpeg --width 1600 -o photo.jpg"],
  async run(ctx) {
    // The format is what the call is for: without one nothing is sent (not a paid PNG by default).
    const to = choiceOption(ctx, "to", CONVERT_TARGETS) ?? choiceOption(ctx, "format", CONVERT_TARGETS);
    if (to === undefined) throw new UsageError(`convert: --to FORMAT is required (${CONVERT_TARGETS.join(", ")}).`);
    return runTool(ctx, "Converting", "/v1/convert-format", { image: await resolveImageArgument(ctx.args.IMAGE!), targetFormat: to, ...resizeArgs(ctx) });
  },
};
