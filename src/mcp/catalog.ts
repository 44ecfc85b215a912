import type { OpenAPIHono } from "@hono/zod-openapi";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ApiKeyRecord, Account } from "../accounts/repository";
import type { AppEnv } from "../env";
import type { ToolContext } from "../tools/types";
import { TOOLS } from "../tools/registry";
import { requestSchemaOf, type JsonSchema } from "./input-schemas";
import { callAccountTool, callBilledTool, callMulticall } from "./calls";
import { MODEL_TASKS } from "../models/catalog";

// The MCP tools: every image tool of the registry, plus the account
// lookups and multicall. Nothing here does tool work; each entry says how an MCP call maps onto
// the same definitions and billed path as REST.

export interface McpCaller {
  account: Account;
  key: ApiKeyRecord;
  ctx: ToolContext;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
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

/** upscale_image names its factor `scale` over MCP; REST calls it `scaleFactor`. */
const RENAMED_ARGS: Record<string, Record<string, string>> = { upscale_image: { scale: "scaleFactor" } };

function renameProperties(schema: JsonSchema, renames: Record<string, string>): JsonSchema {
  const properties = { ...(schema.properties as Record<string, unknown>) };
  for (const [mcpName, restName] of Object.entries(renames)) {
    properties[mcpName] = properties[restName];
    delete properties[restName];
  }
  const required = (schema.required as string[] | undefined)?.map((name) => Object.entries(renames).find(([, rest]) => rest === name)?.[0] ?? name);
  return { ...schema, properties, ...(required ? { required } : {}) };
}

function restArgs(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const renames = RENAMED_ARGS[name];
  if (!renames) return args;
  const mapped = { ...args };
  for (const [mcpName, restName] of Object.entries(renames)) {
    if (mcpName in mapped) {
      mapped[restName] = mapped[mcpName];
      delete mapped[mcpName];
    }
  }
  return mapped;
}

let catalog: McpTool[] | undefined;

/** Built once per isolate: the schemas come from the OpenAPI generator. */
export function mcpTools(app: OpenAPIHono<AppEnv>): McpTool[] {
  catalog ??= [
    ...TOOLS.map(
      (tool): McpTool => ({
        name: tool.name,
        title: tool.summary,
        description: `${tool.description}\n\n${tool.summary}. The result has a hosted URL (or a data URI for compress_image), an inline preview and the credits spent and left.`,
        inputSchema: renameProperties(requestSchemaOf(app, tool.paths.v1), RENAMED_ARGS[tool.name] ?? {}),
        annotations: { title: tool.summary, ...BILLED },
        call: (args, caller) => callBilledTool(tool, restArgs(tool.name, args), caller),
      }),
    ),
    {
      name: "get_user_info",
      title: "The account behind the key (free)",
      description: "The account the API key belongs to: name, email, plan, plan validity and the credit balance. Free.",
      inputSchema: { type: "object", properties: {} },
      annotations: { title: "Account and balance", ...LOOKUP },
      call: (_, caller) => callAccountTool("get_user_info", caller),
    },
    {
      name: "list_models",
      title: "Selectable models (free)",
      description:
        "The models live on this deployment, highest priority first, with `costPerReq` (credits per call). By default the image models: pass a `modelId` as `model` to generate_image or edit_image. `task` lists another tool's models instead (`remove_bg`, `upscale`, `svg`) or every task's (`all`); each entry's `tools` names where its id goes. Free.",
      inputSchema: {
        type: "object",
        properties: { task: { type: "string", enum: [...MODEL_TASKS, "all"], default: "image", description: "Which models: `image` (default), `remove_bg`, `upscale`, `svg` or `all`." } },
      },
      annotations: { title: "Model list", ...LOOKUP },
      call: (args, caller) => callAccountTool("list_models", caller, args),
    },
    {
      name: "multicall",
      title: "Run several tool calls at once (sum of the items)",
      description:
        "Runs up to 20 image-tool calls in parallel and returns every outcome in order. Items are priced by their own tool and paid together before anything runs; an invalid item fails alone and costs nothing; an item whose provider fails is refunded. Retry only the items whose `success` is false.",
      inputSchema: requestSchemaOf(app, "/playground/multicall"),
      annotations: { title: "Multicall", ...BILLED },
      call: (args, caller) => callMulticall(args, caller),
    },
  ];
  return catalog;
}
