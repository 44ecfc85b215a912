import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";

// The providers' published input schemas (test/fixtures/provider-schemas/, each with its source
// and the day it was read) as the fake providers hold every request to them. A request passes
// when it is valid against the schema AND names only fields the schema documents: a provider that
// silently drops an unknown field would otherwise let a misspelt or undocumented input through
// without any test noticing. Runs in Node (the fake upstream server), never in workerd.

const ROOT = path.join(import.meta.dirname, "../fixtures/provider-schemas");
// Formats (uri) are documentation here: a multi-megabyte data URI is not worth a regex.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });

interface JsonSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

export interface PublishedSchema {
  schema: JsonSchema;
  validate: ValidateFunction;
}

function compiled(schema: JsonSchema): PublishedSchema {
  return { schema, validate: ajv.compile(schema) };
}

function readJson<T>(...parts: string[]): T {
  return JSON.parse(readFileSync(path.join(ROOT, ...parts), "utf8")) as T;
}

/** Cloudflare's model JSON (cloudflare-docs src/content/workers-ai-models/), keyed by "@cf/..." name. */
const WORKERS_AI = new Map(
  readdirSync(path.join(ROOT, "workers-ai")).filter((file) => file.endsWith(".json")).map((file) => {
    const model = readJson<{ name: string; schema: { input: JsonSchema } }>("workers-ai", file);
    return [model.name, model.schema.input] as const;
  }),
);

/** The published input schema of a Workers AI model, or undefined when the fixtures lack it. */
export function workersAiInput(name: string): JsonSchema | undefined {
  return WORKERS_AI.get(name);
}

const workersAiCompiled = new Map<string, PublishedSchema>();
/** Problems of a JSON input for a Workers AI model, in the platform's wording; null when it passes. */
export function workersAiProblem(name: string, inputs: Record<string, unknown>): string | null {
  const schema = WORKERS_AI.get(name);
  if (!schema) return null;
  let entry = workersAiCompiled.get(name);
  if (!entry) workersAiCompiled.set(name, (entry = compiled(schema)));
  return problemsOf(entry, inputs, (field) => `additional property '${field}' is not allowed`)?.map((problem) => `Error: ${problem}`).join("; ") ?? null;
}

interface ReplicateFixture {
  model: string;
  version?: string;
  input: JsonSchema;
}

const REPLICATE = readdirSync(path.join(ROOT, "replicate"))
  .filter((file) => file.endsWith(".json"))
  .map((file) => readJson<ReplicateFixture>("replicate", file))
  .map((fixture) => ({ ...fixture, compiled: compiled(fixture.input) }));

/** A Replicate model's fixture by "owner/name". */
export function replicateModel(model: string): (ReplicateFixture & { compiled: PublishedSchema }) | undefined {
  return REPLICATE.find((fixture) => fixture.model === model);
}

/** The community model a version id belongs to, if the fixtures know it. */
export function communityModelOfVersion(version: string): string | undefined {
  return REPLICATE.find((fixture) => fixture.version === version)?.model;
}

/** Replicate's 422 detail for an input that breaks the model's schema, or null. */
export function replicateProblem(model: string, input: Record<string, unknown>): string | null {
  const fixture = replicateModel(model);
  if (!fixture) return null;
  return problemsOf(fixture.compiled, input, (field) => `input: Additional property ${field} is not allowed`)?.map((problem) => `- ${problem}`).join("\n") ?? null;
}

export interface OpenAiModelRules {
  sizes: string[];
  transparentBackground: boolean;
  responseFormat: boolean;
  shutDown?: string;
}

interface OpenAiFixture {
  generations: JsonSchema;
  edits: JsonSchema & { files: { fields: string[]; imageTypes: string[]; maxImages: number; maxImageBytes: number } };
  /** The JSON form of edits: `images` as `{ image_url }` or `{ file_id }` references (GPT Image models only). */
  editsJson: JsonSchema;
  models: Record<string, OpenAiModelRules>;
}

const OPENAI = readJson<OpenAiFixture>("openai", "images.json");
const OPENAI_COMPILED = { generations: compiled(OPENAI.generations), edits: compiled(OPENAI.edits), editsJson: compiled(OPENAI.editsJson) };

/** The per-model rules OpenAI documents (sizes, transparent backgrounds, response_format, shutdown). */
export function openAiModel(model: string): OpenAiModelRules | undefined {
  return OPENAI.models[model];
}

export const OPENAI_EDIT_FILES = OPENAI.edits.files;

/**
 * The first problem of an Images API request against the published parameters, with the
 * parameter it names; null when it passes. Multipart fields arrive as text: numbers are read back.
 */
export function openAiProblem(endpoint: keyof typeof OPENAI_COMPILED, fields: Record<string, unknown>): { message: string; param: string } | null {
  const typed = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, typeof value === "string" && /^(n|output_compression|partial_images)$/.test(key) && /^\d+$/.test(value) ? Number(value) : value]));
  const entry = OPENAI_COMPILED[endpoint];
  const unknown = Object.keys(typed).find((field) => !(field in (entry.schema.properties ?? {})));
  if (unknown) return { message: `Unknown parameter: '${unknown}'.`, param: unknown };
  if (entry.validate(typed)) return null;
  const [error] = entry.validate.errors ?? [];
  const param = error?.instancePath.replace(/^\//, "") || String(error?.params && "missingProperty" in error.params ? error.params.missingProperty : "");
  return { message: `Invalid value for '${param}': ${error?.message ?? "invalid"}.`, param };
}

/** Undocumented fields first (named one by one), then the schema's own errors; null when valid. */
function problemsOf({ schema, validate }: PublishedSchema, input: Record<string, unknown>, undocumented: (field: string) => string): string[] | null {
  const documented = new Set(Object.keys(schema.properties ?? {}));
  const problems = Object.keys(input).filter((field) => !documented.has(field)).map(undocumented);
  if (!validate(input)) problems.push(...(validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`));
  return problems.length ? [...new Set(problems)] : null;
}
