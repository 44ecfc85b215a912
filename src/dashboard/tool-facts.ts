import type { AnyTool } from "../tools/types";

// What the dashboard says about a tool (its price, the choices a field offers, a prompt's
// length limit) read from the tool's own definition, so the pages cannot drift from what the
// API accepts and charges (a test compares them with /v1/openapi.json).

export interface FieldFacts {
  options?: string[];
  maxLength?: number;
  min?: number;
  max?: number;
  default?: unknown;
}

interface SchemaNode {
  def: { type: string; innerType?: SchemaNode; in?: SchemaNode; out?: SchemaNode; defaultValue?: unknown };
  options?: unknown[];
  maxLength?: number | null;
  minValue?: number | null;
  maxValue?: number | null;
  shape?: Record<string, SchemaNode>;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** The facts of one schema node, looking through defaults, optionality and preprocessing. */
function factsOf(node: SchemaNode | undefined, facts: FieldFacts = {}): FieldFacts {
  if (!node) return facts;
  const { def } = node;
  if (def.type === "default" && facts.default === undefined) facts.default = typeof def.defaultValue === "function" ? undefined : def.defaultValue;
  if (WRAPPERS.has(def.type)) return factsOf(def.innerType, facts);
  // A pipe is a preprocess (transform, then the real schema) or a transform after the schema.
  if (def.type === "pipe") return factsOf(def.out?.def.type === "transform" ? def.in : def.out, facts);
  if (def.type === "enum" && node.options) facts.options = node.options.map(String);
  if (def.type === "string" && typeof node.maxLength === "number") facts.maxLength = node.maxLength;
  if (def.type === "number") {
    if (typeof node.minValue === "number" && Number.isFinite(node.minValue)) facts.min = node.minValue;
    if (typeof node.maxValue === "number" && Number.isFinite(node.maxValue)) facts.max = node.maxValue;
  }
  return facts;
}

/** The request fields a tool's /v1 body takes, by name. */
export function fieldsOf(tool: AnyTool): Record<string, SchemaNode> {
  let node: SchemaNode | undefined = tool.input("v1") as unknown as SchemaNode;
  // Through wrappers and pipes (a preprocess runs a transform into the object; a transform runs after it).
  while (node && !node.shape) {
    const def: SchemaNode["def"] = node.def;
    node = def.innerType ?? (def.out && def.out.def.type !== "transform" ? def.out : def.in);
  }
  return node?.shape ?? {};
}

export function fieldFacts(tool: AnyTool, name: string): FieldFacts {
  return factsOf(fieldsOf(tool)[name]);
}

/** The price, in the words of the tool's summary: "Compress an image (1 credit)" gives "1 credit". */
export function priceOf(tool: AnyTool): string {
  return /\(([^()]*)\)\s*$/.exec(tool.summary)?.[1] ?? "see the price list";
}
