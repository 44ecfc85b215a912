import { createRoute } from "@hono/zod-openapi";
import { optionalKey, requireKey } from "../auth/authenticate";
import { newRouter } from "../http/router";
import { listLiveImageModels } from "../models/catalog";
import { API_KEY_SECURITY, AUTH_ERRORS, errorResponses, jsonOk } from "../schemas/common";
import { ModelList, modelEntryOf } from "../schemas/resources";

const description =
  "Models live for image output, highest priority first. A model is live only when it is enabled and its provider is configured on this deployment.";

function modelsRoute(path: "/v1/models" | "/playground/models", keyOptional: boolean) {
  return createRoute({
    method: "get",
    path,
    tags: ["Models"],
    summary: keyOptional ? "Selectable image models (key optional)" : "Selectable image models",
    description,
    security: keyOptional ? [{}, ...API_KEY_SECURITY] : API_KEY_SECURITY,
    middleware: [keyOptional ? optionalKey() : requireKey()],
    responses: {
      200: jsonOk(ModelList, "The model list."),
      ...errorResponses(...AUTH_ERRORS),
    },
  });
}

export const modelRoutes = newRouter();
for (const [path, keyOptional] of [["/v1/models", false], ["/playground/models", true]] as const) {
  modelRoutes.openapi(modelsRoute(path, keyOptional), async (c) => {
    const models = (await listLiveImageModels(c.env)).map(modelEntryOf);
    return c.json({ success: true as const, count: models.length, models }, 200);
  });
}
