// The input schemas of the Replicate models the catalogue seeds, as their API pages document them
// (replicate.com/<owner>/<name>/api): the names each model declares, which are required, and
// the enums. The fake answers 422 "Input validation failed" for a missing required input, a
// value outside an enum, too many items, or a name the model does not declare. The last is
// stricter than Replicate (which drops unknown inputs silently), on purpose: a misspelt input
// would otherwise be ignored upstream and the model would run without it.

export interface InputSchema {
  /**
   * Community models (not official) run only by version: POST /v1/predictions { version }. Their
   * version-less path answers 404, as Replicate's does.
   */
  version?: string;
  required: string[];
  names: string[];
  enums?: Record<string, (string | number)[]>;
  maxItems?: Record<string, number>;
}

const FLUX_RATIOS = ["1:1", "16:9", "3:2", "2:3", "4:5", "5:4", "9:16", "3:4", "4:3"];

export const REPLICATE_SCHEMAS: Record<string, InputSchema> = {
  "black-forest-labs/flux-2-pro": {
    required: ["prompt"],
    names: ["prompt", "input_images", "aspect_ratio", "resolution", "width", "height", "safety_tolerance", "seed", "output_format", "output_quality"],
    enums: { aspect_ratio: ["match_input_image", "custom", ...FLUX_RATIOS], output_format: ["webp", "jpg", "png"] },
    maxItems: { input_images: 8 },
  },
  "black-forest-labs/flux-kontext-pro": {
    required: ["prompt"],
    names: ["prompt", "input_image", "aspect_ratio", "output_format", "seed", "safety_tolerance", "prompt_upsampling"],
    enums: { aspect_ratio: ["match_input_image", ...FLUX_RATIOS, "21:9", "9:21", "2:1", "1:2"], output_format: ["jpg", "png"] },
  },
  "black-forest-labs/flux-1.1-pro": {
    required: ["prompt"],
    names: ["prompt", "aspect_ratio", "width", "height", "image_prompt", "seed", "output_format", "output_quality", "safety_tolerance", "prompt_upsampling"],
    enums: { aspect_ratio: ["custom", ...FLUX_RATIOS], output_format: ["webp", "jpg", "png"] },
  },
  "bria/remove-background": {
    required: [],
    names: ["image", "image_url", "preserve_alpha", "preserve_partial_alpha", "content_moderation"],
  },
  "topazlabs/image-upscale": {
    required: ["image"],
    names: ["image", "enhance_model", "upscale_factor", "output_format", "subject_detection", "face_enhancement", "face_enhancement_strength", "face_enhancement_creativity"],
    enums: { upscale_factor: ["None", "2x", "4x", "6x"], output_format: ["jpg", "png"] },
  },
  // Community models, pinned (replicate.com/<owner>/<name>/versions).
  "cjwbw/rembg": {
    version: "fb8af171cfa1616ddcf1242c093f9c46bcada5ad4cf6f2fbe8b81b330ec5c003",
    required: ["image"],
    names: ["image"],
  },
  "nightmareai/real-esrgan": {
    version: "f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa",
    required: ["image"],
    names: ["image", "scale", "face_enhance"],
  },
  "recraft-ai/recraft-v3-svg": {
    required: ["prompt"],
    names: ["prompt", "size", "aspect_ratio", "style"],
    enums: { style: ["any", "engraving", "line_art", "line_circuit", "linocut"] },
  },
};

/** Replicate's validation message for an input that breaks the model's schema, or null. */
export function schemaProblem(model: string, input: Record<string, unknown>): string | null {
  const schema = REPLICATE_SCHEMAS[model];
  if (!schema) return null;
  const problems: string[] = [];
  for (const name of schema.required) if (input[name] === undefined) problems.push(`- input: ${name} is required`);
  for (const [name, value] of Object.entries(input)) {
    if (!schema.names.includes(name)) problems.push(`- input: Additional property ${name} is not allowed`);
    const allowed = schema.enums?.[name];
    if (allowed && !allowed.includes(value as string)) problems.push(`- input.${name}: ${name} must be one of the following: ${allowed.map((v) => `"${v}"`).join(", ")}`);
    const max = schema.maxItems?.[name];
    if (max !== undefined && (!Array.isArray(value) || value.length > max)) problems.push(`- input.${name}: Array must have at most ${max} items`);
  }
  return problems.length ? problems.join("\n") : null;
}

/** The community model a version id belongs to, if the fake knows it. */
export function communityModelOfVersion(version: string): string | undefined {
  return Object.entries(REPLICATE_SCHEMAS).find(([, schema]) => schema.version === version)?.[0];
}

/** A community model addressed without its version (Replicate answers 404 for that path). */
export function isCommunityModel(model: string): boolean {
  return REPLICATE_SCHEMAS[model]?.version !== undefined;
}
