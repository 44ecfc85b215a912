import { createRoute, z } from "@hono/zod-openapi";
import { optionalKey, requireKey } from "../auth/authenticate";
import { newRouter } from "../http/router";
import { listLiveModelsFor } from "../models/catalog";
import { API_KEY_SECURITY, AUTH_ERRORS, errorResponses, jsonOk } from "../schemas/common";
import { ModelList, ModelTaskFilter, modelEntryOf } from "../schemas/resources";

const description =
  "Models live for image output (generate and edit), highest priority first. `?task=remove_bg`, `upscale` or `svg` lists the models of the dedicated tools instead, `?task=all` every task's, grouped by task; each entry's `task` and `tools` say where its `modelId` may be passed. A model is live only when it is enabled and its provider is configured on this deployment.";

function modelsRoute(path: "/v1/models" | "/playground/models", keyOptional: boolean) {
  return createRoute({
    method: "get",
    path,
    tags: ["Models"],
    summary: keyOptional ? "Selectable image models (key optional)" : "Selectable image models",
    description,
    security: keyOptional ? [{}, ...API_KEY_SECURITY] : API_KEY_SECURITY,
    middleware: [keyOptional ? optionalKey() : requireKey()],
    request: { query: z.object({ task: ModelTaskFilter }) },
    responses: {
      200: jsonOk(ModelList, "The model list."),
      ...errorResponses(...AUTH_ERRORS, "invalid_parameter"),
    },
  });
}

export const modelRoutes = newRouter();
for (const [path, keyOptional] of [["/v1/models", false], ["/playground/models", true]] as const) {
  modelRoutes.openapi(modelsRoute(path, keyOptional), async (c) => {
    const models = (await listLiveModelsFor(c.env, c.req.valid("query").task)).map(modelEntryOf);
    return c.json({ success: true as const, count: models.length, models }, 200);
  });
}
