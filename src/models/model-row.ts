import { settingsOf, type SettingStrings } from "../config/settings.ts";

// A model row and the rules that decide whether it serves: its provider configured, enabled,
// not retired (`retiresAt`, a UTC day, has not come). Pure, with no binding in sight, so both the
// catalogue (catalog.ts, over D1) and `npm run deploy -- --dry-run` (scripts/served-models.ts, in
// Node) judge rows the same way; imports carry ".ts" for Node.

/** What makes a provider's rows live: the settings (src/config/settings.ts) and the AI binding. */
export interface ProviderSettings extends SettingStrings {
  AI?: unknown;
}

export const MODEL_PROVIDERS = ["local", "workers-ai", "openai", "replicate"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];
export const MODEL_TASKS = ["image", "remove_bg", "upscale", "svg"] as const;
export type ModelTask = (typeof MODEL_TASKS)[number];

/** The tools whose `model` field takes a model of each task. */
export const TOOLS_OF_TASK: Record<ModelTask, string[]> = {
  image: ["generate_image", "edit_image", "generate_transparent_image"],
  remove_bg: ["remove_background"],
  upscale: ["upscale_image"],
  svg: ["text_to_svg"],
};

/** Credits charged by a model-priced tool when the model row has no cost recorded. */
export const DEFAULT_MODEL_COST = 15;

export interface Model {
  modelId: string;
  name: string;
  description: string;
  provider: ModelProvider;
  upstreamModel: string;
  task: ModelTask;
  costPerReq: number | null;
  priority: number;
  outputsSupported: string[];
  enabled: boolean;
  /** The UTC day (YYYY-MM-DD) from which the row is retired, or null. */
  retiresAt: string | null;
  /** The model id that serves a call naming this row once it is retired, or null. */
  replacedBy: string | null;
  isLive: boolean;
}

export interface ModelRow {
  model_id: string;
  name: string;
  description: string;
  provider: ModelProvider;
  upstream_model: string;
  task: ModelTask;
  cost_per_req: number | null;
  priority: number;
  outputs_supported: string;
  enabled: number;
  retires_at: string | null;
  replaced_by: string | null;
}

export function providerConfigured(env: ProviderSettings, provider: ModelProvider): boolean {
  switch (provider) {
    case "local":
      return true;
    case "workers-ai":
      return env.AI !== undefined;
    case "openai":
      return settingsOf(env).openai.apiKey !== undefined;
    case "replicate":
      return settingsOf(env).replicate.apiToken !== undefined;
  }
}

/** Whether the row's retirement day has begun at `now` (retired from 00:00 UTC of that day). */
export function isRetired(model: Pick<Model, "retiresAt">, now: Date): boolean {
  return model.retiresAt !== null && now.toISOString().slice(0, 10) >= model.retiresAt;
}

/** A `models` row as the catalogue serves it under this configuration at `now`. */
export function toModel(env: ProviderSettings, row: ModelRow, now: Date): Model {
  const enabled = row.enabled === 1;
  const retiresAt = row.retires_at;
  return {
    modelId: row.model_id,
    name: row.name,
    description: row.description,
    provider: row.provider,
    upstreamModel: row.upstream_model,
    task: row.task,
    costPerReq: row.cost_per_req,
    priority: row.priority,
    outputsSupported: JSON.parse(row.outputs_supported) as string[],
    enabled,
    retiresAt,
    replacedBy: row.replaced_by,
    isLive: enabled && providerConfigured(env, row.provider) && !isRetired({ retiresAt }, now),
  };
}
