import { z } from "@hono/zod-openapi";

// Every tool's request body, on every surface (REST, batch items, MCP): exactly the fields the
// tool documents. An unknown field is refused, never ignored, so a typo or another API's field
// (`size`, `n`, `negative_prompt`) cannot be charged as if it had been applied. A field sent as
// null counts as not sent: strict tool-calling clients (OpenAI strict mode) send null for every
// optional argument they leave out.

/** Top-level fields whose value is null, removed: "not given". */
export function dropNullFields(value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null));
}

/** A strict request body registered in the OpenAPI document under `name`. */
export function requestBody<Shape extends z.ZodRawShape>(name: string, fields: z.ZodObject<Shape>) {
  return z.preprocess(dropNullFields, fields.strict()).openapi(name);
}

/** The field names a request body accepts (for surfaces that build forms or flags from them). */
export function requestFieldsOf(body: z.ZodType): string[] {
  const inner = (body as unknown as { out?: unknown }).out ?? body;
  return Object.keys((inner as { shape?: Record<string, unknown> }).shape ?? {});
}
