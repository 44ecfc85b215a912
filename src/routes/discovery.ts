import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ERROR_CATALOG } from "../errors";
import { publicBaseUrl } from "../http/envelope";

// GET /v1 (an index of the endpoints), GET /v1/openapi.json and GET /v1/errors. Both listings
// are read from the registered route definitions, so a route added anywhere shows up here.

export const API_VERSION = "1.0.0";

interface Endpoint {
  method: string;
  path: string;
  summary: string;
  auth: "api_key" | "optional" | "admin" | "none";
}

function authOf(security: Array<Record<string, unknown>> | undefined): Endpoint["auth"] {
  if (!security || security.length === 0) return "none";
  if (security.some((entry) => "adminToken" in entry)) return "admin";
  if (security.some((entry) => Object.keys(entry).length === 0)) return "optional";
  return "api_key";
}

export function mountDiscovery(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "Authorization: Bearer <API_KEY> (the Bearer prefix is optional).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyHeader", { type: "apiKey", in: "header", name: "x-api-key" });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "Operator token (ADMIN_TOKEN).",
  });

  let endpoints: Endpoint[] | undefined;
  const listEndpoints = () =>
    (endpoints ??= app.openAPIRegistry.definitions.flatMap((definition) =>
      definition.type === "route"
        ? [{
            method: definition.route.method.toUpperCase(),
            path: definition.route.path,
            summary: definition.route.summary ?? "",
            auth: authOf(definition.route.security),
          }]
        : [],
    ));

  app.get("/v1", (c) =>
    c.json({
      success: true,
      name: "Pixelgate",
      version: API_VERSION,
      openapi: `${publicBaseUrl(c)}/v1/openapi.json`,
      errors: `${publicBaseUrl(c)}/v1/errors`,
      endpoints: listEndpoints(),
    }),
  );

  app.get("/v1/errors", (c) =>
    c.json({
      success: true,
      errors: Object.entries(ERROR_CATALOG).map(([code, entry]) => ({ code, status: entry.status, type: entry.type, description: entry.hint })),
    }),
  );

  app.doc31("/v1/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Pixelgate API",
      version: API_VERSION,
      description: "Image generation and processing on the edge, paid for in credits. One API key for REST, MCP and the CLI.",
    },
    servers: [{ url: publicBaseUrl(c) }],
  }));
}
