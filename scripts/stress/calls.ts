// What `npm run stress` sends: a valid or a broken body for each of the eight tools, on the
// built-in local models and on fake upstream models that fail at a set rate (test/upstream/chaos.ts).
import { chaosModel } from "../../test/upstream/chaos.ts";
import type { Pictures } from "./inputs.ts";
import type { ModelRow } from "./worker.ts";

export const TOOL_PATHS = {
  generate_image: "generate",
  generate_transparent_image: "generate-transparent",
  edit_image: "edit",
  remove_background: "remove-background",
  upscale_image: "upscale",
  text_to_svg: "text-to-svg",
  compress_image: "compress",
  convert_format: "convert-format",
} as const;
export type ToolName = keyof typeof TOOL_PATHS;
export const TOOL_NAMES = Object.keys(TOOL_PATHS) as ToolName[];

export type Family = "v1" | "playground";

export interface ToolCall {
  tool: ToolName;
  args: Record<string, unknown>;
}

export type Rng = () => number;
export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

/** The fake upstream rows, each failing `percent` of its requests (seeds keep their sequences apart). */
export function chaosRows(percent: number): ModelRow[] {
  return [
    { modelId: "stress-openai-image", provider: "openai", upstreamModel: chaosModel(percent, 11), task: "image", costPerReq: 10 },
    { modelId: "stress-replicate-image", provider: "replicate", upstreamModel: chaosModel(percent, 12), task: "image", costPerReq: null },
    { modelId: "stress-openai-cutout", provider: "openai", upstreamModel: chaosModel(percent, 13), task: "remove_bg", costPerReq: 8 },
    { modelId: "stress-replicate-cutout", provider: "replicate", upstreamModel: chaosModel(percent, 14), task: "remove_bg", costPerReq: 8 },
    { modelId: "stress-replicate-upscale", provider: "replicate", upstreamModel: chaosModel(percent, 15), task: "upscale", costPerReq: 15 },
    { modelId: "stress-replicate-svg", provider: "replicate", upstreamModel: chaosModel(percent, 16), task: "svg", costPerReq: 5 },
  ];
}

const PROMPTS = ["a red hot-air balloon over green hills", "a lighthouse at night, flat style", "a yellow star on blue", "a tree beside a small house", "a smiling sun over the sea"];
const IMAGE_MODELS = ["local-draw-v1", "stress-openai-image", "stress-replicate-image"];

/** A valid call of `tool` (it may still fail upstream, or for want of credits). */
export function validCall(tool: ToolName, rng: Rng, pictures: Pictures): ToolCall {
  const prompt = pick(rng, PROMPTS);
  const seed = Math.floor(rng() * 1000);
  switch (tool) {
    case "generate_image":
      return { tool, args: { prompt, model: pick(rng, IMAGE_MODELS), aspectRatio: pick(rng, ["1:1", "16:9", "3:4"]), seed } };
    case "generate_transparent_image":
      return { tool, args: { prompt, model: pick(rng, IMAGE_MODELS), seed } };
    case "edit_image": {
      const model = pick(rng, IMAGE_MODELS);
      const action = pick(rng, ["edit", "edit", "remove_bg", "upscale"]);
      if (action !== "edit") return { tool, args: { image: pictures.png64, action, model } };
      return { tool, args: { image: pictures.png128, prompt: model === "local-draw-v1" ? "grayscale and sharpen" : prompt, model } };
    }
    case "remove_background":
      return { tool, args: { image: pick(rng, [pictures.png128, pictures.jpeg96]), model: pick(rng, ["local-cutout-v1", "stress-openai-cutout", "stress-replicate-cutout"]) } };
    case "upscale_image":
      return { tool, args: { image: pictures.png64, scaleFactor: pick(rng, ["2x", "4x"]), model: pick(rng, ["local-lanczos-v1", "stress-replicate-upscale"]) } };
    case "text_to_svg":
      return { tool, args: { prompt, model: pick(rng, ["local-svg-v1", "stress-replicate-svg"]), seed } };
    case "compress_image":
      return { tool, args: { image: pick(rng, [pictures.png128, pictures.jpeg96]), quality: pick(rng, [40, 70, 90]), targetFormat: pick(rng, ["webp", "jpeg", "png"]) } };
    case "convert_format":
      return { tool, args: { image: pick(rng, [pictures.png128, pictures.jpeg96]), targetFormat: pick(rng, ["png", "webp", "jpeg", "gif"]) } };
  }
}

/** A call refused before any charge: missing or wrong fields, an unreadable image, an unsafe prompt. */
export function invalidCall(tool: ToolName, rng: Rng, pictures: Pictures): ToolCall {
  switch (tool) {
    case "generate_image":
    case "generate_transparent_image":
      return { tool, args: pick(rng, [{}, { prompt: "" }, { prompt: "x".repeat(4001) }, { prompt: "a cat", aspectRatio: "99:1" }]) };
    case "edit_image":
      return { tool, args: pick(rng, [{ prompt: "grayscale" }, { image: "data:image/png;base64,AAAA", prompt: "grayscale" }, { image: pictures.png128, prompt: "paint it like a dream" }]) };
    case "remove_background":
      return { tool, args: pick(rng, [{}, { image: "not an image at all" }]) };
    case "upscale_image":
      return { tool, args: pick(rng, [{ image: pictures.png512, scaleFactor: "8x" }, { image: pictures.png64, scaleFactor: "3x" }]) };
    case "text_to_svg":
      return { tool, args: pick(rng, [{}, { prompt: 42 }]) };
    case "compress_image":
      return { tool, args: pick(rng, [{}, { image: pictures.png128, targetFormat: "bmp" }]) };
    case "convert_format":
      return { tool, args: pick(rng, [{ targetFormat: "png" }, { image: pictures.png128, targetFormat: "svg" }]) };
  }
}

export const pathOf = (tool: ToolName, family: Family) => `/${family}/${TOOL_PATHS[tool]}`;
