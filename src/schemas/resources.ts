import { z } from "@hono/zod-openapi";
import { PLANS, PROVIDERS, type Account } from "../accounts/repository";
import { USAGE_SOURCES } from "../usage/log";
import { DEFAULT_MODEL_COST, MODEL_TASKS, TOOLS_OF_TASK, type Model } from "../models/catalog";

const accountFields = {
  name: z.string(),
  email: z.string(),
  provider: z.enum(PROVIDERS),
  credits: z.number().int().openapi({ description: "Credits currently available." }),
  plan: z.enum(PLANS),
  planValidity: z.string().nullable().openapi({ description: "ISO date the paid plan runs until." }),
  billingCycle: z.string().openapi({ example: "monthly" }),
};

export const User = z
  .object({ id: z.string(), _id: z.string(), ...accountFields })
  .openapi("User", { description: "The account behind the key." });

export const UserData = z
  .object({ _id: z.string(), ...accountFields, profilePicture: z.string().nullable(), createdAt: z.string() })
  .openapi("UserData");

export function userOf(account: Account, credits: number): z.infer<typeof User> {
  return {
    id: account.id,
    _id: account.id,
    name: account.name,
    email: account.email,
    provider: account.provider,
    credits,
    plan: account.plan,
    planValidity: account.planValidity,
    billingCycle: account.billingCycle,
  };
}

export function userDataOf(account: Account, credits: number): z.infer<typeof UserData> {
  const { id: _unused, ...user } = userOf(account, credits);
  return { ...user, profilePicture: account.profilePicture, createdAt: account.createdAt };
}

export const ModelEntry = z
  .object({
    modelId: z.string().openapi({ description: "Value to pass as `model`." }),
    name: z.string(),
    description: z.string(),
    provider: z.string(),
    costPerReq: z.number().int().openapi({ description: "Credits deducted per request on model-priced tools." }),
    priority: z.number().int(),
    outputsSupported: z.array(z.string()),
    isLive: z.boolean(),
    retiresAt: z.string().nullable().openapi({ description: "The UTC day (YYYY-MM-DD) from which the model is retired and no longer listed; null when none is set." }),
    replacedBy: z.string().nullable().openapi({ description: "The model that serves calls naming this one once it is retired." }),
    task: z.enum(MODEL_TASKS).openapi({ description: "What the model does: `image` (generate and edit), `remove_bg` (cut-out), `upscale` or `svg`." }),
    tools: z.array(z.string()).openapi({ description: "The tools whose `model` field accepts this model." }),
  })
  .openapi("Model");

/** `?task=` of GET /v1/models and list_models: one task, or `all`; the default is `image`. */
export const ModelTaskFilter = z
  .enum([...MODEL_TASKS, "all"])
  .default("image")
  .openapi({ description: "Which models to list: `image` (default: the generate/edit models, as before), `remove_bg`, `upscale`, `svg`, or `all`." });

export const ModelList = z
  .object({ success: z.literal(true), count: z.number().int(), models: z.array(ModelEntry) })
  .openapi("ModelList");

export const UsageEntrySchema = z
  .object({
    id: z.string(),
    model: z.string(),
    prompt: z.string(),
    status: z.string().openapi({ example: "200 OK" }),
    errorCode: z.string().nullable().openapi({ description: "The error code a failed call was answered with (`insufficient_credits`, `upstream_error`, ...); null for a success.", example: null }),
    latency: z.string().openapi({ example: "1.20s" }),
    creditsDeducted: z.number().int(),
    creditsRefunded: z.number().int(),
    creditsGranted: z.number().int().openapi({ description: "Credits the entry added to the balance: a purchase through Stripe (source `stripe`). 0 for calls." }),
    interrupted: z.boolean().openapi({
      description: "True when the service lost the call before answering it (status 500): the credits were given back in full and an Idempotency-Key it carried was released.",
    }),
    tool: z.string(),
    source: z.enum(USAGE_SOURCES),
    keyPrefix: z.string(),
    requestId: z.string(),
    createdAt: z.string(),
  })
  .openapi("UsageEntry");

export function modelEntryOf(model: Model): z.infer<typeof ModelEntry> {
  return {
    modelId: model.modelId,
    name: model.name,
    description: model.description,
    provider: model.provider,
    costPerReq: model.costPerReq ?? DEFAULT_MODEL_COST,
    priority: model.priority,
    outputsSupported: model.outputsSupported,
    isLive: model.isLive,
    retiresAt: model.retiresAt,
    replacedBy: model.replacedBy,
    task: model.task,
    tools: TOOLS_OF_TASK[model.task],
  };
}
