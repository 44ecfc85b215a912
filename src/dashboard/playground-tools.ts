import type { ModelTask } from "../models/catalog";
import { TOOLS } from "../tools/registry";
import type { AnyTool } from "../tools/types";
import { fieldFacts, priceOf } from "./tool-facts";

// The playground's form for each tool of the registry: which request fields it offers and how.
// Prices, the choices of enumerated fields and the prompt's length limit are read from the
// tool's definition (tool-facts.ts); the tool's schema still validates what the form sends (a
// test checks every field named here against /v1/openapi.json), so this file decides
// presentation only.

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
  /** Options (and limits) to be read from the tool's schema when the form is built. */
  fromSchema?: boolean;
  /** For prompts: the most characters the tool takes (from its schema). */
  maxLength?: number;
}

export interface PlaygroundTool {
  tool: AnyTool;
  /** The URL segment and tab label. */
  slug: string;
  label: string;
  /** What a call costs, in words (from the tool's summary). */
  price: string;
  fields: PlaygroundField[];
}

/** Common choices offered for the free-form aspect ratio (any W:H up to 4:1 is accepted). */
const ASPECT_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4", "21:9"] as const;

/** A select whose options are the enum of the tool's field of that name. */
const choice = (name: string, label: string): PlaygroundField => ({ name, label, kind: "select", fromSchema: true });

const prompt = (hint: string, required = true): PlaygroundField => ({ name: "prompt", label: "Prompt", kind: "prompt", required, hint });
const image: PlaygroundField = { name: "image", label: "Input image", kind: "image", required: true };
const modelOf = (task: ModelTask): PlaygroundField => ({ name: "model", label: "Model", kind: "model", task, hint: "Default: the service's default model for this tool." });
const imageModel = modelOf("image");
const aspect: PlaygroundField = { name: "aspectRatio", label: "Aspect ratio", kind: "select", options: ASPECT_RATIOS };
const style: PlaygroundField = { name: "style", label: "Style", kind: "text", placeholder: "e.g. watercolor", hint: "Recorded and echoed; steers the local renderer." };
const seed: PlaygroundField = { name: "seed", label: "Seed", kind: "number", min: 0, max: 4_294_967_295, hint: "The same seed reproduces a result." };
/** Compress's and convert's resize fields (src/tools/resize-fields.ts). */
const resize: PlaygroundField[] = [
  { name: "width", label: "Width", kind: "number", min: 1, max: 65_535, hint: "Resize: at most this many pixels wide. Never enlarges." },
  { name: "height", label: "Height", kind: "number", min: 1, max: 65_535, hint: "Resize: at most this many pixels high." },
  { ...choice("fit", "Fit"), hint: "inside (default) keeps the whole picture; cover fills width x height, cropping the centre." },
];

const FORMS: Record<string, Omit<PlaygroundTool, "tool" | "price">> = {
  generate_image: { slug: "generate", label: "Generate", fields: [prompt("What to draw."), imageModel, aspect, style, seed] },
  generate_transparent_image: {
    slug: "generate-transparent", label: "Transparent",
    fields: [prompt("One clear subject works best."), imageModel, aspect, style, seed],
  },
  edit_image: {
    slug: "edit", label: "Edit",
    fields: [image, prompt("The edit to make, e.g. “grayscale and rotate”. Optional for remove_bg and upscale.", false),
      choice("action", "Action"), imageModel, seed],
  },
  remove_background: { slug: "remove-background", label: "Remove background", fields: [image, modelOf("remove_bg")] },
  upscale_image: {
    slug: "upscale", label: "Upscale",
    fields: [image, choice("scaleFactor", "Scale factor"), modelOf("upscale")],
  },
  text_to_svg: {
    slug: "text-to-svg", label: "Text to SVG",
    fields: [prompt("What the graphic shows."), { name: "style", label: "Style", kind: "select", options: ["icon", "flat", "outline", "line", "duotone", "badge"] }, modelOf("svg"), seed],
  },
  compress_image: {
    slug: "compress", label: "Compress",
    fields: [image, { name: "quality", label: "Quality", kind: "number", min: 1, max: 100, hint: "1 to 100, default 70." }, choice("targetFormat", "Format"), ...resize],
  },
  convert_format: {
    slug: "convert-format", label: "Convert",
    fields: [image, { ...choice("targetFormat", "Format"), required: true }, ...resize],
  },
};

/** A form field completed with what the tool's schema says about it. */
function withFacts(tool: AnyTool, field: PlaygroundField): PlaygroundField {
  const facts = fieldFacts(tool, field.name);
  if (field.fromSchema) {
    if (!facts.options) throw new Error(`${tool.name}.${field.name} has no enum to offer`);
    return { ...field, options: facts.options };
  }
  if (field.kind === "prompt") return { ...field, maxLength: facts.maxLength };
  return field;
}

/** Every registry tool with its form, in the registry's order. */
export const PLAYGROUND_TOOLS: PlaygroundTool[] = TOOLS.map((tool) => {
  const form = FORMS[tool.name];
  if (!form) throw new Error(`the playground has no form for ${tool.name}`);
  return { tool, ...form, price: priceOf(tool), fields: form.fields.map((field) => withFacts(tool, field)) };
});

export function playgroundTool(slug: string | undefined): PlaygroundTool | undefined {
  return PLAYGROUND_TOOLS.find((entry) => entry.slug === slug);
}
