import type { JsonSchema } from "./input-schemas";

// MCP hosts forward our tool schemas to whichever model they run, and a model API that rejects
// one schema fails the whole request, for every tool. So the input schemas are written in the
// form OpenAI's strict function calling accepts as is (Structured Outputs, "Supported schemas"):
//   - every object has `additionalProperties: false` and lists every property in `required`;
//   - an optional argument is a union with null (`type: ["string", "null"]`): the model sends
//     null for "not given", which every tool takes as absent;
//   - only the supported keywords: no `default` (defaults are stated in the descriptions), no
//     string length limits (stated in the descriptions too), no `$ref`, `oneOf`, `allOf`, `not`,
//     `propertyNames` or `patternProperties`.
// Gemini's function declarations take an OpenAPI 3.0 subset instead (no `additionalProperties`,
// `nullable: true` where JSON Schema writes a type array). No single schema satisfies both, so
// Gemini hosts rewrite those two spellings; `geminiParameters` below is that rewrite, and the
// test checks that it leaves nothing Gemini refuses.

/** Keywords some supported model API refuses; the facts they carry are in the descriptions. */
const DROPPED_KEYWORDS = new Set(["default", "minLength", "maxLength", "propertyNames", "patternProperties", "examples", "example", "title", "$schema"]);

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.enum)) return [...new Set((schema.enum as unknown[]).map((value) => (value === null ? "null" : typeof value)))];
  return [];
}

/** `schema`, also accepting null. */
function nullable(schema: JsonSchema): JsonSchema {
  const types = typesOf(schema);
  if (types.includes("null")) return schema;
  const result: JsonSchema = { ...schema, type: [...types, "null"] };
  if (Array.isArray(schema.enum)) result.enum = [...(schema.enum as unknown[]), null];
  return result;
}

/** One schema in the strict form, recursively. `required` lists what the caller must give. */
export function strictSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key) || key === "properties" || key === "required" || key === "additionalProperties") continue;
    out[key] = key === "items" && value && typeof value === "object" ? strictSchema(value as JsonSchema) : value;
  }
  if (typesOf(schema).includes("object") || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    out.type = "object";
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, required.has(name) ? strictSchema(property) : nullable(strictSchema(property))]),
    );
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

/** The Gemini function-declaration form of a strict schema: `nullable` and no `additionalProperties`. */
export function geminiParameters(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "additionalProperties") continue;
    if (key === "properties") {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, property]) => [name, geminiParameters(property)]));
    } else if (key === "items") {
      out.items = geminiParameters(value as JsonSchema);
    } else if (key === "type" && Array.isArray(value)) {
      const types = (value as string[]).filter((type) => type !== "null");
      out.type = types[0];
      if (types.length < value.length) out.nullable = true;
    } else if (key === "enum") {
      out.enum = (value as unknown[]).filter((item) => item !== null);
    } else {
      out[key] = value;
    }
  }
  // In the strict form every property is listed in `required`; the nullable ones are optional.
  if (Array.isArray(out.required) && out.properties) {
    const properties = out.properties as Record<string, JsonSchema>;
    out.required = (out.required as string[]).filter((name) => !properties[name]?.nullable);
  }
  return out;
}
