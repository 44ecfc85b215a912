import { settingsOf } from "../config/settings";
import type { Env } from "../env";
import { DEFAULT_MODEL_COST, findModel, listLiveModels, type Model, type ModelTask } from "./catalog";
import { PixelgateError } from "../errors";

// Which model serves a call. Image tools: the default model serves when `model`
// is omitted or names no image model. Naming an image model that exists but cannot run here
// (disabled, provider not configured) is refused instead: silently serving another model
// would charge a different price for a different picture.

export async function resolveImageModel(env: Env, requested: string | undefined): Promise<Model> {
  if (requested) {
    const model = await findModel(env, requested.trim());
    if (model?.task === "image") {
      if (!model.isLive) throw notLive(model, "model");
      return model;
    }
  }
  return defaultImageModel(env);
}

async function defaultImageModel(env: Env): Promise<Model> {
  const configured = await findModel(env, settingsOf(env).defaultModel ?? "");
  if (configured?.task === "image" && configured.isLive) return configured;
  // A misconfigured DEFAULT_MODEL must not take the service down: the best live model serves.
  const [best] = await listLiveModels(env, "image");
  if (!best) throw new PixelgateError("internal_error", "No image model is live on this deployment.");
  return best;
}

/**
 * The dedicated models (cut-out, upscaler, SVG): the named one when it serves this task,
 * otherwise the live one with the highest priority.
 */
export async function resolveTaskModel(env: Env, task: Exclude<ModelTask, "image">, requested: string | undefined): Promise<Model> {
  const live = await listLiveModels(env, task);
  if (requested) {
    const model = live.find((candidate) => candidate.modelId === requested.trim());
    if (!model) {
      throw new PixelgateError(
        "invalid_parameter",
        `model "${requested}" does not serve this operation here; live choices: ${live.map((m) => m.modelId).join(", ") || "none"}.`,
        { param: "model" },
      );
    }
    return model;
  }
  const [best] = live;
  if (!best) throw new PixelgateError("internal_error", `No ${task} model is live on this deployment.`);
  return best;
}

/** Credits for a model-priced call: the row's cost, 15 when none is recorded. */
export function modelCost(model: Model): number {
  return model.costPerReq ?? DEFAULT_MODEL_COST;
}

function notLive(model: Model, param: string): PixelgateError {
  return new PixelgateError("invalid_parameter", `model "${model.modelId}" is not live on this deployment (see GET /v1/models).`, { param });
}
