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
import { errorToolResult, imageToolResult } from "./results";

// An MCP tools/call walks exactly the REST paths: the same validation, the same billed call
// (source `mcp`), the same rate-limit window; only the answer's shape differs.

function session(caller: McpCaller) {
  return { env: caller.ctx.env, baseUrl: caller.ctx.baseUrl };
}

export async function callBilledTool(tool: AnyTool, args: Record<string, unknown>, caller: McpCaller): Promise<CallToolResult> {
  const parsed = tool.input("v1").safeParse(args);
  const call: BilledCall = { tool, input: parsed.success ? parsed.data : args, ctx: { ...caller.ctx, startedAt: Date.now() }, key: caller.key };
  try {
    if (!parsed.success) throw await rejectCall(call, validationError({ success: false, error: parsed.error, data: args }));
    return await imageToolResult(session(caller), await runBilledCall(call));
  } catch (error) {
    return errorToolResult(session(caller), error);
  }
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
  const task = ModelTaskFilter.safeParse(args.task);
  if (!task.success) return errorToolResult(session(caller), new PixelgateError("invalid_parameter", "task must be image, remove_bg, upscale, svg or all.", { param: "task" }));
  const models = (await listLiveModelsFor(caller.ctx.env, task.data)).map(modelEntryOf);
  const lines = models.map((model) => `- ${model.modelId} (${model.task}): ${model.name}, ${model.costPerReq} credits`);
  const which = task.data === "all" ? "models of every task" : `${task.data} models`;
  return {
    content: [{ type: "text", text: `${models.length} live ${which}, highest priority first:\n${lines.join("\n")}` }],
    structuredContent: { count: models.length, models },
  };
}

export async function callMulticall(args: Record<string, unknown>, caller: McpCaller): Promise<CallToolResult> {
  const batch = { ctx: { ...caller.ctx, startedAt: Date.now() }, key: caller.key };
  const refuse = async (error: unknown) => errorToolResult(session(caller), await rejectRequest(batch, error, batchEntryDraft(batch)));
  const parsed = BatchRequest.safeParse(args);
  if (!parsed.success) return refuse(validationError({ success: false, error: parsed.error, data: args }));
  let tools: AnyTool[];
  try {
    tools = toolsOf(parsed.data);
  } catch (error) {
    return refuse(error);
  }
  try {
    const outcome = await runBatch({ ...batch, items: parsed.data.requests.map((item, index) => ({ tool: tools[index]!, args: item.args })) });
    const body = batchResponseBody(caller.ctx.baseUrl, outcome);
    const lines = body.results.map((item, index) => {
      const data = item.data as { result?: { imageUrl?: string }; error?: { code?: string; message?: string } };
      const detail = item.success ? (data.result?.imageUrl ?? "done") : `${data.error?.code}: ${data.error?.message}`;
      return `${index + 1}. ${item.tool}: ${item.status} ${detail}`;
    });
    return {
      content: [{ type: "text", text: `${body.message} Spent ${body.deductedCredits} credits; ${body.userCredits} left.\n${lines.join("\n")}` }],
      structuredContent: body,
    };
  } catch (error) {
    return errorToolResult(session(caller), error);
  }
}
