import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ledgerOf } from "../accounts/ledger";
import { batchEntryDraft, runBatch } from "../billing/batch";
import { BatchRequest, batchResponseBody, toolsOf } from "../billing/batch-request";
import { rejectCall, rejectRequest, runBilledCall, type BilledCall } from "../billing/billed-call";
import { refusalOf } from "../http/rate-limit";
import { z } from "@hono/zod-openapi";
import { validationError } from "../http/validation";
import { listLiveModelsFor } from "../models/catalog";
import { ModelTaskFilter, modelEntryOf, userOf } from "../schemas/resources";
import type { AnyTool } from "../tools/types";
import type { McpCaller } from "./catalog";
import { idempotentTool } from "./idempotency";
import { errorToolResult, imageToolResult, multicallToolResult } from "./results";

// An MCP tools/call walks exactly the REST paths: the same validation, the same billed call
// (source `mcp`), the same rate-limit window; only the answer's shape differs.

function session(caller: McpCaller) {
  return { env: caller.ctx.env, baseUrl: caller.ctx.baseUrl };
}

export function callBilledTool(tool: AnyTool, args: Record<string, unknown>, caller: McpCaller): Promise<CallToolResult> {
  return idempotentTool(caller, tool.name, args, async (toolArgs, markCharged, claimed) => {
    const parsed = tool.input("v1").safeParse(toolArgs);
    const ctx = { ...caller.ctx, startedAt: Date.now(), idempotency: claimed };
    const call: BilledCall = { tool, input: parsed.success ? parsed.data : toolArgs, ctx, key: caller.key, onCharged: markCharged };
    try {
      if (!parsed.success) throw await rejectCall(call, validationError({ success: false, error: parsed.error, data: toolArgs }));
      return await imageToolResult(session(caller), await runBilledCall(call));
    } catch (error) {
      return errorToolResult(session(caller), error);
    }
  });
}

/** The lookups' arguments, strict like every tool's: an unknown argument is refused, not ignored. */
const LOOKUP_ARGUMENTS = {
  get_user_info: z.object({}).strict(),
  // null means "not given", as in every strict MCP schema.
  list_models: z.object({ task: z.preprocess((value) => value ?? undefined, ModelTaskFilter) }).strict(),
};

/** The free lookups: they take a rate-limit slot like GET /v1/me and /v1/models. */
export async function callAccountTool(name: keyof typeof LOOKUP_ARGUMENTS, caller: McpCaller, args: Record<string, unknown>): Promise<CallToolResult> {
  const outcome = await ledgerOf(caller.ctx.env, caller.account.id).reserve({ keyId: caller.key.id, slots: 1, credits: 0 });
  const refusal = refusalOf(outcome);
  if (refusal) return errorToolResult(session(caller), refusal);
  const parsed = LOOKUP_ARGUMENTS[name].safeParse(args);
  if (!parsed.success) return errorToolResult(session(caller), validationError({ success: false, error: parsed.error, data: args }));
  if (name === "get_user_info") {
    const user = userOf(caller.account, outcome.balance);
    return {
      content: [{ type: "text", text: `${user.name} <${user.email}>, plan ${user.plan}, ${user.credits} credits.` }],
      structuredContent: { user, authMethod: "api_key" },
    };
  }
  const task = (parsed.data as { task: z.infer<typeof ModelTaskFilter> }).task;
  const models = (await listLiveModelsFor(caller.ctx.env, task)).map(modelEntryOf);
  const lines = models.map((model) => `- ${model.modelId} (${model.task}): ${model.name}, ${model.costPerReq} credits`);
  const which = task === "all" ? "models of every task" : `${task} models`;
  return {
    content: [{ type: "text", text: `${models.length} live ${which}, highest priority first:\n${lines.join("\n")}` }],
    structuredContent: { count: models.length, models },
  };
}

export function callMulticall(args: Record<string, unknown>, caller: McpCaller): Promise<CallToolResult> {
  return idempotentTool(caller, "multicall", args, async (batchArgs, markCharged, claimed) => {
    const batch = { ctx: { ...caller.ctx, startedAt: Date.now(), idempotency: claimed }, key: caller.key, onCharged: markCharged };
    const refuse = async (error: unknown) => errorToolResult(session(caller), await rejectRequest(batch, error, batchEntryDraft(batch)));
    const parsed = BatchRequest.safeParse(batchArgs);
    if (!parsed.success) return refuse(validationError({ success: false, error: parsed.error, data: batchArgs }));
    let tools: AnyTool[];
    try {
      tools = toolsOf(parsed.data);
    } catch (error) {
      return refuse(error);
    }
    try {
      const outcome = await runBatch({ ...batch, items: parsed.data.requests.map((item, index) => ({ tool: tools[index]!, args: item.args })) });
      return await multicallToolResult(session(caller), batchResponseBody(caller.ctx.baseUrl, outcome));
    } catch (error) {
      return errorToolResult(session(caller), error);
    }
  });
}
