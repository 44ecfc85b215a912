import type { ModelTask } from "../models/catalog";
import { EDIT_ACTIONS } from "../tools/edit-image";
import { TOOLS } from "../tools/registry";
import type { AnyTool } from "../tools/types";
import { SCALE_FACTORS } from "../tools/upscale-image";

// The playground's form for each tool of the registry: which request fields it offers and how.
// The tool's own schema still validates what the form sends (a test checks that every field
// named here is one the schema knows), so this file decides presentation only.

export type FieldKind = "prompt" | "text" | "select" | "number" | "image" | "model";

export interface PlaygroundField {
  name: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: readonly string[];
  placeholder?: string;
  hint?: string;
  min?: number;
  max?: number;
  /** For `model` fields: which task's live models to offer. */
  task?: ModelTask;
}

export interface PlaygroundTool {
  tool: AnyTool;
  /** The URL segment and tab label. */
  slug: string;
  label: string;
  /** What a call costs, in words. */
  price: string;
  fields: PlaygroundField[];
}

const ASPECT_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4", "21:9"] as const;
/** convert-format's /v1 targets (its schema holds the authoritative list). */
const CONVERT_TARGETS = ["png", "jpeg", "webp", "gif", "tiff", "avif"] as const;

const prompt = (hint: string, required = true): PlaygroundField => ({ name: "prompt", label: "Prompt", kind: "prompt", required, hint });
const image: PlaygroundField = { name: "image", label: "Input image", kind: "image", required: true };
const modelOf = (task: ModelTask): PlaygroundField => ({ name: "model", label: "Model", kind: "model", task, hint: "Default: the service's default model for this tool." });
const imageModel = modelOf("image");
const aspect: PlaygroundField = { name: "aspectRatio", label: "Aspect ratio", kind: "select", options: ASPECT_RATIOS };
const style: PlaygroundField = { name: "style", label: "Style", kind: "text", placeholder: "e.g. watercolor", hint: "Recorded and echoed; steers the local renderer." };
const seed: PlaygroundField = { name: "seed", label: "Seed", kind: "number", min: 0, max: 4_294_967_295, hint: "Optional: the same seed reproduces a result." };

const FORMS: Record<string, Omit<PlaygroundTool, "tool">> = {
  generate_image: { slug: "generate", label: "Generate", price: "the model's price", fields: [prompt("What to draw."), imageModel, aspect, style, seed] },
  generate_transparent_image: {
    slug: "generate-transparent", label: "Transparent", price: "the model's price + 8 credits",
    fields: [prompt("One clear subject works best."), imageModel, aspect, style, seed],
  },
  edit_image: {
    slug: "edit", label: "Edit", price: "the model's price; 8 credits for remove_bg, 15 for upscale",
    fields: [image, prompt("The edit to make, e.g. “grayscale and rotate”. Optional for remove_bg and upscale.", false),
      { name: "action", label: "Action", kind: "select", options: EDIT_ACTIONS }, imageModel, seed],
  },
  remove_background: { slug: "remove-background", label: "Remove background", price: "8 credits", fields: [image, modelOf("remove_bg")] },
  upscale_image: {
    slug: "upscale", label: "Upscale", price: "15 credits",
    fields: [image, { name: "scaleFactor", label: "Scale factor", kind: "select", options: SCALE_FACTORS }, modelOf("upscale")],
  },
  text_to_svg: {
    slug: "text-to-svg", label: "Text to SVG", price: "5 credits",
    fields: [prompt("What the graphic shows."), { name: "style", label: "Style", kind: "select", options: ["icon", "flat", "outline", "line", "duotone", "badge"] }, modelOf("svg"), seed],
  },
  compress_image: {
    slug: "compress", label: "Compress", price: "1 credit",
    fields: [image, { name: "quality", label: "Quality", kind: "number", min: 1, max: 100, hint: "1 to 100, default 70." },
      { name: "targetFormat", label: "Format", kind: "select", options: ["webp", "jpeg", "png"] }],
  },
  convert_format: {
    slug: "convert-format", label: "Convert", price: "1 credit",
    fields: [image, { name: "targetFormat", label: "Format", kind: "select", options: CONVERT_TARGETS }],
  },
};

/** Every registry tool with its form, in the registry's order. */
export const PLAYGROUND_TOOLS: PlaygroundTool[] = TOOLS.map((tool) => {
  const form = FORMS[tool.name];
  if (!form) throw new Error(`the playground has no form for ${tool.name}`);
  return { tool, ...form };
});

export function playgroundTool(slug: string | undefined): PlaygroundTool | undefined {
  return PLAYGROUND_TOOLS.find((entry) => entry.slug === slug);
}
