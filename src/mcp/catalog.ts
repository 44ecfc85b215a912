import type { OpenAPIHono } from "@hono/zod-openapi";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ApiKeyRecord, Account } from "../accounts/repository";
import { MAX_BATCH_ITEMS } from "../billing/batch";
import type { AppEnv } from "../env";
import type { AnyTool, ToolContext } from "../tools/types";
import { TOOLS } from "../tools/registry";
import { requestSchemaOf, responseSchemaOf, type JsonSchema } from "./input-schemas";
import { callAccountTool, callBilledTool, callMulticall } from "./calls";
import { MODEL_TASKS } from "../models/catalog";
import { IDEMPOTENCY_ARGUMENT, IDEMPOTENCY_ARGUMENT_SCHEMA } from "./idempotency";
import { billedOutputSchema, multicallOutputSchema, outputSchemaOf } from "./output-schemas";
import { strictSchema } from "./portable-schema";
import { linkedResultSchema, MCP_INLINE_ARGUMENT_NOTE } from "./structured";

// The MCP tools: every image tool of the registry, plus the account lookups and multicall.
// Nothing here does tool work or restates a tool fact: names, arguments, enums, prices and
// descriptions come from the tool definitions, through the same OpenAPI document REST
// publishes, so MCP cannot drift from /v1/openapi.json.

export interface McpCaller {
  account: Account;
  key: ApiKeyRecord;
  ctx: ToolContext;
  /** The Idempotency-Key header of the /mcp request, for a call that names no key itself. */
  idempotencyKey?: string;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  call(args: Record<string, unknown>, caller: McpCaller): Promise<CallToolResult>;
}

/**
 * Hints, truthfully: every image tool spends credits and writes a new result, so none is
 * read-only or idempotent; they reach outside the service (model providers, image URLs).
 * Nothing is ever deleted.
 */
const BILLED: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
const LOOKUP: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Aliases every tool accepts but MCP does not show: one name per argument. */
const HIDDEN_ALIASES = ["imageBase64"];

const RESULT_NOTE = "Returns a link to the full result, a small preview and the credits spent and left.";

/** A tool's arguments over MCP: its REST body without the hidden aliases, plus the idempotency key. */
export function toolArguments(app: OpenAPIHono<AppEnv>, tool: AnyTool): JsonSchema {
  const rest = requestSchemaOf(app, tool.paths.v1);
  const hidden = new Set([...HIDDEN_ALIASES, ...(tool.mcpHides ?? [])]);
  const properties = Object.entries(rest.properties as Record<string, JsonSchema>).filter(([name]) => !hidden.has(name));
  const required = ((rest.required as string[] | undefined) ?? []).filter((name) => !hidden.has(name));
  return { ...rest, properties: Object.fromEntries(properties.map(([name, property]) => [name, mcpArgument(name, property)])), required };
}

/** REST's description of an argument, unless MCP answers it differently (responseFormat: the inline limit). */
function mcpArgument(name: string, property: JsonSchema): JsonSchema {
  return name === "responseFormat" ? { ...property, description: MCP_INLINE_ARGUMENT_NOTE } : property;
}

/** Every tool's arguments in one object, for multicall items: each item uses those of its tool. */
function unionOfArguments(schemas: JsonSchema[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const schema of schemas) {
    for (const [name, property] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      const known = properties[name];
      const enums = [...new Set([...((known?.enum as unknown[]) ?? []), ...((property.enum as unknown[]) ?? [])])];
      properties[name] = { ...(known ?? property), ...(enums.length > 0 ? { enum: enums } : {}) };
    }
  }
  return {
    type: "object",
    description: "The item's arguments, named as in its tool's own schema; leave out (or send null for) what the tool does not take.",
    properties,
  };
}

function withIdempotency(schema: JsonSchema): JsonSchema {
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), [IDEMPOTENCY_ARGUMENT]: IDEMPOTENCY_ARGUMENT_SCHEMA } };
}

function imageTool(app: OpenAPIHono<AppEnv>, tool: AnyTool): McpTool {
  const response = responseSchemaOf(app, tool.paths.v1);
  const result = (response.properties as Record<string, JsonSchema>).result!;
  return {
    name: tool.name,
    title: tool.summary,
    description: `${tool.mcpDescription ?? tool.description}\n\n${RESULT_NOTE}`,
    inputSchema: strictSchema(withIdempotency(toolArguments(app, tool))),
    outputSchema: billedOutputSchema(linkedResultSchema(result)),
    annotations: { title: tool.summary, ...BILLED },
    call: (args, caller) => callBilledTool(tool, args, caller),
  };
}

function multicallTool(app: OpenAPIHono<AppEnv>): McpTool {
  const items = {
    type: "object",
    properties: {
      tool: { type: "string", enum: TOOLS.map((tool) => tool.name), description: "The image tool this item calls." },
      args: unionOfArguments(TOOLS.map((tool) => toolArguments(app, tool))),
    },
    required: ["tool", "args"],
  };
  const requests = { type: "array", items, minItems: 1, maxItems: MAX_BATCH_ITEMS, description: `1 to ${MAX_BATCH_ITEMS} calls, run in parallel; results come back in this order.` };
  return {
    name: "multicall",
    title: "Run several tool calls at once (sum of the items)",
    description: `Runs up to ${MAX_BATCH_ITEMS} image-tool calls in parallel and returns every outcome in order, each with a link and a small preview. Items are priced by their own tool and paid together before anything runs; an invalid item fails alone and costs nothing; an item whose provider fails is refunded. Retry only the items whose \`success\` is false.`,
    inputSchema: strictSchema(withIdempotency({ type: "object", properties: { requests }, required: ["requests"] })),
    outputSchema: multicallOutputSchema(responseSchemaOf(app, "/playground/multicall")),
    annotations: { title: "Multicall", ...BILLED },
    call: (args, caller) => callMulticall(args, caller),
  };
}

const NO_ARGUMENTS = strictSchema({ type: "object", properties: {} });

let catalog: McpTool[] | undefined;

/** Built once per isolate: the schemas come from the OpenAPI generator. */
export function mcpTools(app: OpenAPIHono<AppEnv>): McpTool[] {
  catalog ??= [
    ...TOOLS.map((tool) => imageTool(app, tool)),
    {
      name: "get_user_info",
      title: "The account behind the key (free)",
      description: "The account the API key belongs to: name, email, plan, plan validity and the credit balance. Free.",
      inputSchema: NO_ARGUMENTS,
      outputSchema: outputSchemaOf({ type: "object", properties: { user: { type: "object" }, authMethod: { type: "string" } }, required: ["user", "authMethod"] }),
      annotations: { title: "Account and balance", ...LOOKUP },
      call: (args, caller) => callAccountTool("get_user_info", caller, args),
    },
    {
      name: "list_models",
      title: "Selectable models (free)",
      description:
        "The models live on this deployment, highest priority first, with `costPerReq` (credits per call). By default the image models: pass a `modelId` as `model` to generate_image or edit_image. `task` lists another tool's models instead (`remove_bg`, `upscale`, `svg`) or every task's (`all`); each entry's `tools` names where its id goes. Free.",
      inputSchema: strictSchema({
        type: "object",
        properties: { task: { type: "string", enum: [...MODEL_TASKS, "all"], description: "Which models: `image` (default), `remove_bg`, `upscale`, `svg` or `all`." } },
      }),
      outputSchema: outputSchemaOf({ type: "object", properties: { count: { type: "integer" }, models: { type: "array", items: { type: "object" } } }, required: ["count", "models"] }),
      annotations: { title: "Model list", ...LOOKUP },
      call: (args, caller) => callAccountTool("list_models", caller, args),
    },
    multicallTool(app),
  ];
  return catalog;
}
