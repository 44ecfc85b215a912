import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ledgerOf } from "../accounts/ledger";
import { batchEntryDraft, runBatch } from "../billing/batch";
import { BatchRequest, batchResponseBody, toolsOf } from "../billing/batch-request";
import { rejectCall, rejectRequest, runBilledCall, type BilledCall } from "../billing/billed-call";
import { refusalOf } from "../http/rate-limit";
import { PixelgateError } from "../errors";
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

/** The free lookups: they take a rate-limit slot like GET /v1/me and /v1/models. */
export async function callAccountTool(name: "get_user_info" | "list_models", caller: McpCaller, args: Record<string, unknown> = {}): Promise<CallToolResult> {
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
  const task = ModelTaskFilter.safeParse(args.task ?? undefined); // null means not given
  if (!task.success) return errorToolResult(session(caller), new PixelgateError("invalid_parameter", "task must be image, remove_bg, upscale, svg or all.", { param: "task" }));
  const models = (await listLiveModelsFor(caller.ctx.env, task.data)).map(modelEntryOf);
  const lines = models.map((model) => `- ${model.modelId} (${model.task}): ${model.name}, ${model.costPerReq} credits`);
  const which = task.data === "all" ? "models of every task" : `${task.data} models`;
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
