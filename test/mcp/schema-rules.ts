// What two model APIs accept as a tool's parameters, written from their documentation, so a test
// can fail before a host forwarding our MCP tools gets a whole request refused.
//
// OpenAI, function calling with `strict: true` (Structured Outputs guide, "Supported schemas"
// and "Limitations on schemas"): the root is an object; every object sets
// `additionalProperties: false` and lists every property in `required` (an optional field is a
// union with null); supported types are string, number, integer, boolean, object, array, null
// and enums of them; `$ref`/`$defs` and `anyOf` are allowed, `allOf`, `oneOf`, `not`, `if`,
// `patternProperties`, `propertyNames` and the length keywords are not; an enum that admits null
// lists null. Tool descriptions longer than 1,024 characters are refused.
//
// Gemini, `functionDeclarations[].parameters` (Gemini API reference, "Schema"): "a select subset
// of an OpenAPI 3.0 schema object". Fields: type (a single string), format, title, description,
// nullable, enum, maxItems, minItems, properties, required, minProperties, maxProperties,
// minimum, maximum, items, anyOf, propertyOrdering, default, example, pattern, minLength,
// maxLength. No `$ref`, no `additionalProperties`, no type arrays (nullable says null), and
// required names must be properties.

type Schema = Record<string, unknown>;

const OPENAI_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const OPENAI_REFUSED = new Set(["allOf", "oneOf", "not", "if", "then", "else", "patternProperties", "propertyNames", "minLength", "maxLength", "unevaluatedProperties", "dependentSchemas", "default"]);

export function openAiStrictProblems(schema: Schema, at = "$"): string[] {
  const problems: string[] = [];
  const types = [schema.type].flat().filter((type) => type !== undefined) as string[];
  if (at === "$" && types[0] !== "object") problems.push(`${at}: the root must be an object`);
  for (const type of types) if (!OPENAI_TYPES.has(type)) problems.push(`${at}: type ${type} is not supported`);
  for (const key of Object.keys(schema)) if (OPENAI_REFUSED.has(key)) problems.push(`${at}: keyword ${key} is not supported`);
  if (Array.isArray(schema.enum) && types.includes("null") && !schema.enum.includes(null)) problems.push(`${at}: a nullable enum must list null`);
  if (types.includes("object")) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (schema.additionalProperties !== false) problems.push(`${at}: additionalProperties must be false`);
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const name of Object.keys(properties)) if (!required.has(name)) problems.push(`${at}.${name}: every property must be required (optional = union with null)`);
    for (const [name, property] of Object.entries(properties)) problems.push(...openAiStrictProblems(property, `${at}.${name}`));
  }
  if (schema.items) problems.push(...openAiStrictProblems(schema.items as Schema, `${at}[]`));
  for (const [index, branch] of ((schema.anyOf as Schema[] | undefined) ?? []).entries()) problems.push(...openAiStrictProblems(branch, `${at}|${index}`));
  return problems;
}

const GEMINI_FIELDS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required", "minProperties",
  "maxProperties", "minimum", "maximum", "items", "anyOf", "propertyOrdering", "default", "example", "pattern", "minLength", "maxLength",
]);
const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array"]);

export function geminiProblems(schema: Schema, at = "$"): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(schema)) if (!GEMINI_FIELDS.has(key)) problems.push(`${at}: field ${key} is not in Gemini's Schema`);
  if (typeof schema.type !== "string" || !GEMINI_TYPES.has(schema.type)) problems.push(`${at}: type must be one string, got ${JSON.stringify(schema.type)}`);
  if (Array.isArray(schema.enum) && schema.enum.some((value) => typeof value !== "string")) problems.push(`${at}: enum values must be strings`);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of (schema.required as string[] | undefined) ?? []) if (!(name in properties)) problems.push(`${at}: required ${name} is not a property`);
  for (const [name, property] of Object.entries(properties)) problems.push(...geminiProblems(property, `${at}.${name}`));
  if (schema.items) problems.push(...geminiProblems(schema.items as Schema, `${at}[]`));
  return problems;
}
