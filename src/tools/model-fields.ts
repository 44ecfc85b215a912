import { z } from "@hono/zod-openapi";
import { randomSeed } from "../providers/seed";

// Request fields the model tools share, each described once so REST, batch and
// MCP document them the same way.

export const MAX_PROMPT_CHARS = 4_000;
export const MAX_REFERENCE_IMAGES = 8;

/** Blank counts as absent: "prompt is required" whether it was left out or sent empty. */
const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

function promptText() {
  return z.string().trim().max(MAX_PROMPT_CHARS, `at most ${MAX_PROMPT_CHARS} characters`);
}

export function promptField(description: string) {
  return z.preprocess(blankToUndefined, promptText()).openapi({ description: `${description} At most ${MAX_PROMPT_CHARS} characters.` });
}

/** A prompt some calls may leave out (edit's fixed actions, remove-background's note). */
export function optionalPromptField(description: string) {
  return z.preprocess(blankToUndefined, promptText().optional()).openapi({ description: `${description} At most ${MAX_PROMPT_CHARS} characters.` });
}

export const modelField = z
  .string()
  .max(200)
  .nullish()
  .openapi({ description: "A `modelId` from the model list (list_models; GET /v1/models over REST). Omitted, or naming no image model: the default model serves." });

/** `model` on the tools served by a dedicated model (cut-out, upscaler, SVG). */
export function taskModelField(what: string) {
  return z
    .string()
    .max(200)
    .nullish()
    .openapi({ description: `A ${what} model id from the catalogue; default: the live one with the highest priority.` });
}

export const aspectRatioField = z
  .string()
  .max(16)
  .default("1:1")
  .openapi({ description: "Width:height, default `1:1` (common: 1:1, 16:9, 9:16, 4:3, 3:4, 21:9; anything up to 4:1 either way)." });

export const styleField = z
  .string()
  .max(200)
  .nullish()
  .openapi({ description: "Recorded and echoed in `result.style`; not sent to the model." });

export const seedField = z
  .number()
  .int()
  .min(0)
  .max(4_294_967_295)
  .nullish()
  .openapi({ description: "Makes a result reproducible on models that take a seed. Omitted: a random one. The answer reports the seed when the model used one." });

export const responseFormatField = z
  .enum(["url", "b64_json"])
  .default("url")
  .openapi({ description: "`b64_json` adds `b64_json` and `imageBase64` (the same base64 payload) beside the hosted `imageUrl`." });

export const imageField = z
  .string()
  .nullish()
  .openapi({ description: "An https URL or a base64 data URI (bare base64 works too). `imageBase64` is an alias." });

export const imageAliasField = z.string().nullish().openapi({ description: "Alias of `image`." });

export const referenceImagesField = z
  .array(z.string())
  .nullish()
  .openapi({ description: `Reference images (https URLs or data URIs), merged with \`image\`; at most ${MAX_REFERENCE_IMAGES} in all.` });

export type ResponseFormat = "url" | "b64_json";

/** The seed a call uses: the client's, or a fresh random one. */
export function seedOf(requested: number | null | undefined): number {
  return requested ?? randomSeed();
}
