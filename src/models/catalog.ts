import type { Env } from "../env";
import { PixelgateError } from "../errors";
import { MODEL_TASKS, toModel, type Model, type ModelRow, type ModelTask } from "./model-row.ts";

// The model table, with `isLive` computed from configuration and the clock: a row is live only
// when it is enabled, its provider can actually run here and its retirement date (`retiresAt`, a
// UTC day) has not come, so /v1/models never offers a model that fails. A retired row names the
// model that serves in its place (`replacedBy`; resolve.ts follows it). The row and its rules are
// model-row.ts's.

export {
  DEFAULT_MODEL_COST, MODEL_PROVIDERS, MODEL_TASKS, TOOLS_OF_TASK, isRetired, providerConfigured, toModel,
  type Model, type ModelProvider, type ModelRow, type ModelTask,
} from "./model-row.ts";

/** Live models of one task, highest priority first. `image` rows are what `model` may name. */
export async function listLiveModels(env: Env, task: ModelTask, now = new Date()): Promise<Model[]> {
  const { results } = await env.DB.prepare(
    "SELECT * FROM models WHERE task = ? AND enabled = 1 ORDER BY priority DESC, model_id",
  ).bind(task).all<ModelRow>();
  return results.map((row) => toModel(env, row, now)).filter((model) => model.isLive);
}

export function listLiveImageModels(env: Env): Promise<Model[]> {
  return listLiveModels(env, "image");
}

/** One task's live models, or every task's (`all`: grouped in MODEL_TASKS order, each by priority). */
export async function listLiveModelsFor(env: Env, task: ModelTask | "all"): Promise<Model[]> {
  if (task !== "all") return listLiveModels(env, task);
  return (await Promise.all(MODEL_TASKS.map((each) => listLiveModels(env, each)))).flat();
}

export async function findModel(env: Env, modelId: string, now = new Date()): Promise<Model | null> {
  const row = await env.DB.prepare("SELECT * FROM models WHERE model_id = ?").bind(modelId).first<ModelRow>();
  return row ? toModel(env, row, now) : null;
}

export interface ModelChanges {
  isLive?: boolean;
  costPerReq?: number | null;
  priority?: number;
  retiresAt?: string | null;
  replacedBy?: string | null;
}

/**
 * Operator changes. `isLive` sets the row's enabled flag; the provider must still be configured.
 * `replacedBy` must name another model of the same task (checked here, before anything is written).
 */
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
  if (changes.retiresAt !== undefined) {
    sets.push("retires_at = ?");
    values.push(changes.retiresAt);
  }
  if (changes.replacedBy !== undefined) {
    if (changes.replacedBy !== null) await checkReplacement(env, modelId, changes.replacedBy);
    sets.push("replaced_by = ?");
    values.push(changes.replacedBy);
  }
  if (sets.length === 0) return findModel(env, modelId);
  const row = await env.DB.prepare(`UPDATE models SET ${sets.join(", ")} WHERE model_id = ? RETURNING *`)
    .bind(...values, modelId)
    .first<ModelRow>();
  return row ? toModel(env, row, new Date()) : null;
}

async function checkReplacement(env: Env, modelId: string, replacedBy: string): Promise<void> {
  const [model, replacement] = await Promise.all([findModel(env, modelId), findModel(env, replacedBy)]);
  const refuse = (message: string) => {
    throw new PixelgateError("invalid_parameter", message, { param: "replacedBy" });
  };
  if (!model) return; // the caller answers 404 for the missing row
  if (replacedBy === modelId) refuse("replacedBy must name another model.");
  if (!replacement) refuse(`replacedBy names no model ("${replacedBy}").`);
  if (replacement!.task !== model.task) refuse(`replacedBy must serve the same task (${model.task}); "${replacedBy}" serves ${replacement!.task}.`);
}
