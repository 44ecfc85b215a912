import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ledgerOf } from "../accounts/ledger";
import { BATCH_LOG_TOOL, runBatch } from "../billing/batch";
import { BatchRequest, batchResponseBody, toolsOf } from "../billing/batch-request";
import { rejectCall, rejectRequest, runBilledCall, type BilledCall } from "../billing/billed-call";
import { refusalOf } from "../http/rate-limit";
import { validationError } from "../http/validation";
import { listLiveImageModels } from "../models/catalog";
import { modelEntryOf, userOf } from "../schemas/resources";
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
  return idempotentTool(caller, tool.name, args, async (toolArgs, markCharged) => {
    const parsed = tool.input("v1").safeParse(toolArgs);
    const ctx = { ...caller.ctx, startedAt: Date.now() };
    const call: BilledCall = { tool, input: parsed.success ? parsed.data : toolArgs, ctx, key: caller.key, onCharged: markCharged };
    try {
      if (!parsed.success) throw await rejectCall(call, validationError({ success: false, error: parsed.error, data: toolArgs }));
      return await imageToolResult(session(caller), await runBilledCall(call));
    } catch (error) {
      return errorToolResult(session(caller), error);
    }
  });
}

/** The free lookups: they take a rate-limit slot like GET /v1/me and /v1/models. */
export async function callAccountTool(name: "get_user_info" | "list_models", caller: McpCaller): Promise<CallToolResult> {
  const outcome = await ledgerOf(caller.ctx.env, caller.account.id).reserve({ keyId: caller.key.id, slots: 1, credits: 0 });
  const refusal = refusalOf(outcome);
  if (refusal) return errorToolResult(session(caller), refusal);
  if (name === "get_user_info") {
    const user = userOf(caller.account, outcome.balance);
    return {
      content: [{ type: "text", text: `${user.name} <${user.email}>, plan ${user.plan}, ${user.credits} credits.` }],
      structuredContent: { user, authMethod: "api_key" },
    };
  }
  const models = (await listLiveImageModels(caller.ctx.env)).map(modelEntryOf);
  const lines = models.map((model) => `- ${model.modelId}: ${model.name}, ${model.costPerReq} credits`);
  return {
    content: [{ type: "text", text: `${models.length} live image models, highest priority first:\n${lines.join("\n")}` }],
    structuredContent: { count: models.length, models },
  };
}

export function callMulticall(args: Record<string, unknown>, caller: McpCaller): Promise<CallToolResult> {
  return idempotentTool(caller, "multicall", args, async (batchArgs, markCharged) => {
    const batch = { ctx: { ...caller.ctx, startedAt: Date.now() }, key: caller.key, onCharged: markCharged };
    const refuse = async (error: unknown) => errorToolResult(session(caller), await rejectRequest(batch, error, { tool: BATCH_LOG_TOOL, summary: { model: "", prompt: "" } }));
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
