import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";

// MCP input schemas come from the same zod definitions as REST, through the same OpenAPI
// generator, so a field's type, limits and description read identically on both surfaces.
// The document is built once per isolate, on the first MCP request.

export type JsonSchema = Record<string, unknown>;

let document: { paths: Record<string, unknown>; components: { schemas: Record<string, JsonSchema> } } | undefined;

function openApiOf(app: OpenAPIHono<AppEnv>) {
  document ??= app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Pixelgate", version: "1.0.0" } }) as unknown as typeof document;
  return document!;
}

/** Replaces every `$ref` to a component by the component itself (MCP schemas stand alone). */
function inline(schema: unknown, components: Record<string, JsonSchema>, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(item, components, seen));
  if (!schema || typeof schema !== "object") return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "");
    if (seen.includes(name)) return {}; // a cycle; none of the request bodies has one
    return inline(components[name], components, [...seen, name]);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inline(value, components, seen)]));
}

/** The JSON schema of the POST body at `path`, as /v1/openapi.json describes it. */
export function requestSchemaOf(app: OpenAPIHono<AppEnv>, path: string): JsonSchema {
  const doc = openApiOf(app);
  const operation = (doc.paths[path] as { post?: { requestBody?: { content?: Record<string, { schema?: unknown }> } } } | undefined)?.post;
  const schema = operation?.requestBody?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`no request body schema for POST ${path}`);
  return inline(schema, doc.components.schemas) as JsonSchema;
}

/** `allOf` of object schemas (what a zod intersection becomes) folded into one object schema. */
function merged(schema: JsonSchema): JsonSchema {
  const parts = schema.allOf as JsonSchema[] | undefined;
  if (!parts) return schema;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of parts.map(merged)) {
    Object.assign(properties, part.properties);
    required.push(...((part.required as string[] | undefined) ?? []));
  }
  return { type: "object", properties, required: [...new Set(required)] };
}

/** The JSON schema of the 200 answer of POST `path`, as /v1/openapi.json describes it. */
export function responseSchemaOf(app: OpenAPIHono<AppEnv>, path: string): JsonSchema {
  const doc = openApiOf(app);
  type Operation = { post?: { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> } };
  const schema = (doc.paths[path] as Operation | undefined)?.post?.responses?.["200"]?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`no 200 response schema for POST ${path}`);
  const inlined = inline(schema, doc.components.schemas) as JsonSchema;
  const properties = inlined.properties as Record<string, JsonSchema>;
  return { ...inlined, properties: Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, merged(property)])) };
}
