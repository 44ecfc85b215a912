import { env } from "cloudflare:workers";
import type { ModelProvider, ModelTask } from "../../src/models/catalog";

// Model rows made by a test for itself (unique ids), so tests can pick providers, prices and
// upstream behaviours without touching the seeded catalogue other tests rely on.

let counter = 0;

export interface TestModel {
  provider: ModelProvider;
  upstreamModel: string;
  task?: ModelTask;
  costPerReq?: number | null;
  priority?: number;
  enabled?: boolean;
}

export async function insertModel(model: TestModel): Promise<string> {
  const modelId = `test-${model.provider}-${Date.now().toString(36)}-${++counter}`;
  await env.DB.prepare(
    `INSERT INTO models (model_id, name, description, provider, upstream_model, task, cost_per_req, priority, enabled)
     VALUES (?, ?, 'made by a test', ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      modelId,
      `Test ${model.provider} ${model.upstreamModel}`,
      model.provider,
      model.upstreamModel,
      model.task ?? "image",
      model.costPerReq === undefined ? 10 : model.costPerReq,
      model.priority ?? -100,
      model.enabled === false ? 0 : 1,
    )
    .run();
  return modelId;
}

export async function deleteModel(modelId: string): Promise<void> {
  await env.DB.prepare("DELETE FROM models WHERE model_id = ?").bind(modelId).run();
}
