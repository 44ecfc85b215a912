import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ERROR_CATALOG } from "../errors";
import { publicBaseUrl } from "../http/envelope";
import { jsonOk } from "../schemas/common";

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

/** Not an OpenAPI route (it speaks MCP), so listed by hand. */
const MCP_ENDPOINT: Endpoint = { method: "POST", path: "/mcp", summary: "Remote MCP server (streamable HTTP, stateless): every image tool", auth: "api_key" };

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

  const EndpointSchema = z.object({
    method: z.string(),
    path: z.string(),
    summary: z.string(),
    auth: z.enum(["api_key", "optional", "admin", "none"]),
  });
  const index = createRoute({
    method: "get",
    path: "/v1",
    tags: ["Discovery"],
    summary: "Index of the endpoints",
    responses: {
      200: jsonOk(
        z
          .object({
            success: z.literal(true),
            name: z.string(),
            version: z.string(),
            openapi: z.string(),
            errors: z.string(),
            endpoints: z.array(EndpointSchema),
          })
          .openapi("Index"),
        "Every endpoint with its method, path and what authenticates it.",
        false,
      ),
    },
  });
  const errors = createRoute({
    method: "get",
    path: "/v1/errors",
    tags: ["Discovery"],
    summary: "The error codes, their statuses and what to do",
    responses: {
      200: jsonOk(
        z
          .object({
            success: z.literal(true),
            errors: z.array(z.object({ code: z.string(), status: z.number().int(), type: z.string(), description: z.string() })),
          })
          .openapi("ErrorCatalog"),
        "The error catalog.",
        false,
      ),
    },
  });

  app.openapi(index, (c) =>
    c.json(
      {
        success: true as const,
        name: "Pixelgate",
        version: API_VERSION,
        openapi: `${publicBaseUrl(c)}/v1/openapi.json`,
        errors: `${publicBaseUrl(c)}/v1/errors`,
        endpoints: [MCP_ENDPOINT, ...listEndpoints()],
      },
      200,
    ),
  );

  app.openapi(errors, (c) =>
    c.json(
      {
        success: true as const,
        errors: Object.entries(ERROR_CATALOG).map(([code, entry]) => ({ code, status: entry.status, type: entry.type, description: entry.hint })),
      },
      200,
    ),
  );

  // The document describes itself: registered as a path (no handler of its own; doc31 serves it).
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/openapi.json",
    tags: ["Discovery"],
    summary: "OpenAPI 3.1 description of this API",
    responses: {
      200: {
        description: "This document: every path, its schemas, errors and authentication.",
        content: { "application/json": { schema: z.object({ openapi: z.literal("3.1.0") }).catchall(z.unknown()).openapi("OpenApiDocument") } },
      },
    },
  });

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
