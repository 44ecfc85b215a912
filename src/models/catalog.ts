import { settingsOf } from "../config/settings";
import type { Env } from "../env";

// The model table, with `isLive` computed from configuration: a row is live only when it is
// enabled and its provider can actually run here, so /v1/models never offers a model that fails.

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
  isLive: boolean;
}

interface ModelRow {
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
}

export function providerConfigured(env: Env, provider: ModelProvider): boolean {
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

function toModel(env: Env, row: ModelRow): Model {
  const enabled = row.enabled === 1;
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
    isLive: enabled && providerConfigured(env, row.provider),
  };
}

/** Live models of one task, highest priority first. `image` rows are what `model` may name. */
export async function listLiveModels(env: Env, task: ModelTask): Promise<Model[]> {
  const { results } = await env.DB.prepare(
    "SELECT * FROM models WHERE task = ? AND enabled = 1 ORDER BY priority DESC, model_id",
  ).bind(task).all<ModelRow>();
  return results.map((row) => toModel(env, row)).filter((model) => model.isLive);
}

export function listLiveImageModels(env: Env): Promise<Model[]> {
  return listLiveModels(env, "image");
}

/** One task's live models, or every task's (`all`: grouped in MODEL_TASKS order, each by priority). */
export async function listLiveModelsFor(env: Env, task: ModelTask | "all"): Promise<Model[]> {
  if (task !== "all") return listLiveModels(env, task);
  return (await Promise.all(MODEL_TASKS.map((each) => listLiveModels(env, each)))).flat();
}

export async function findModel(env: Env, modelId: string): Promise<Model | null> {
  const row = await env.DB.prepare("SELECT * FROM models WHERE model_id = ?").bind(modelId).first<ModelRow>();
  return row ? toModel(env, row) : null;
}

export interface ModelChanges {
  isLive?: boolean;
  costPerReq?: number | null;
  priority?: number;
}

/** Operator changes. `isLive` sets the row's enabled flag; the provider must still be configured. */
export async function updateModel(env: Env, modelId: string, changes: ModelChanges): Promise<Model | null> {
  const sets: string[] = [];
  const values: unknown[] = [];
  if (changes.isLive !== undefined) {
    sets.push("enabled = ?");
    values.push(changes.isLive ? 1 : 0);
  }
  if (changes.costPerReq !== undefined) {
    sets.push("cost_per_req = ?");
    values.push(changes.costPerReq);
  }
  if (changes.priority !== undefined) {
    sets.push("priority = ?");
    values.push(changes.priority);
  }
  if (sets.length === 0) return findModel(env, modelId);
  const row = await env.DB.prepare(`UPDATE models SET ${sets.join(", ")} WHERE model_id = ? RETURNING *`)
    .bind(...values, modelId)
    .first<ModelRow>();
  return row ? toModel(env, row) : null;
}
