import { settingsOf } from "../config/settings";
import type { Env } from "../env";
import { DEFAULT_MODEL_COST, findModel, isRetired, listLiveModels, type Model, type ModelTask } from "./catalog";
import { PixelgateError } from "../errors";

// Which model serves a call. Image tools: the default model serves when `model`
// is omitted or names no image model. Naming an image model that exists but cannot run here
// (disabled, provider not configured) is refused instead: silently serving another model
// would charge a different price for a different picture. The one exception is a retired row
// (its `retiresAt` day has come): its `replacedBy` serves, at the replacement's price, and the
// answer says so (`model` names the replacement; servedNote words the message).

/** A model chosen for a call; `replaces` is the retired row the call named, when one was. */
export type ServingModel = Model & { replaces?: Model };

/** Retired rows followed at most this many times (a chain of replacements, never a loop). */
const MAX_REPLACEMENTS = 4;

export async function resolveImageModel(env: Env, requested: string | undefined, now = new Date()): Promise<ServingModel> {
  if (requested) {
    const model = await findModel(env, requested.trim(), now);
    if (model?.task === "image") return liveOrReplacement(env, model, now);
  }
  return defaultImageModel(env, now);
}

async function defaultImageModel(env: Env, now: Date): Promise<ServingModel> {
  const configured = await findModel(env, settingsOf(env).defaultModel ?? "", now);
  if (configured?.task === "image") {
    // A DEFAULT_MODEL that has retired keeps working through its replacement.
    const serving = await liveOrReplacement(env, configured, now).catch(() => null);
    if (serving) return serving;
  }
  // A misconfigured DEFAULT_MODEL must not take the service down: the best live model serves.
  const [best] = await listLiveModels(env, "image", now);
  if (!best) throw new PixelgateError("internal_error", "No image model is live on this deployment.");
  return best;
}

/**
 * The dedicated models (cut-out, upscaler, SVG): the named one when it serves this task (or its
 * replacement, once it has retired), otherwise the live one with the highest priority.
 */
export async function resolveTaskModel(env: Env, task: Exclude<ModelTask, "image">, requested: string | undefined, now = new Date()): Promise<ServingModel> {
  const live = await listLiveModels(env, task, now);
  if (requested) {
    const named = await findModel(env, requested.trim(), now);
    if (named?.task === task && isRetired(named, now)) return liveOrReplacement(env, named, now);
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

/** The named row when it is live; its replacement (followed through retired rows) when it has retired. */
async function liveOrReplacement(env: Env, named: Model, now: Date): Promise<ServingModel> {
  let model = named;
  for (let hop = 0; hop < MAX_REPLACEMENTS && isRetired(model, now) && model.replacedBy; hop++) {
    const next = await findModel(env, model.replacedBy, now);
    if (!next || next.task !== named.task) break;
    model = next;
  }
  if (model.isLive) return model === named ? model : { ...model, replaces: named };
  if (isRetired(named, now)) {
    const instead = model === named ? "and names no replacement that is live here" : `and its replacement "${model.modelId}" is not live on this deployment`;
    throw new PixelgateError("invalid_parameter", `model "${named.modelId}" was retired on ${named.retiresAt} ${instead} (see GET /v1/models).`, { param: "model" });
  }
  throw notLive(model, "model");
}

/** The sentence a tool's message adds when a replacement served (empty otherwise). */
export function servedNote(model: ServingModel): string {
  const retired = model.replaces;
  return retired ? ` ${retired.modelId} was retired on ${retired.retiresAt}, so ${model.modelId} (its replacement) served this call.` : "";
}

/** Credits for a model-priced call: the row's cost, 15 when none is recorded. */
export function modelCost(model: Model): number {
  return model.costPerReq ?? DEFAULT_MODEL_COST;
}

function notLive(model: Model, param: string): PixelgateError {
  return new PixelgateError("invalid_parameter", `model "${model.modelId}" is not live on this deployment (see GET /v1/models).`, { param });
}
