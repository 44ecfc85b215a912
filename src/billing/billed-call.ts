import type { WindowState } from "../../durable-objects/account-ledger";
import { ledgerOf } from "../accounts/ledger";
import { isAuthRefusal } from "../auth/refusals";
import type { ApiKeyRecord } from "../accounts/repository";
import { ERROR_CATALOG, PixelgateError } from "../errors";
import { refusalOf } from "../http/rate-limit";
import type { AnyTool, CallSummary, ToolContext } from "../tools/types";
import { recordUsage } from "../usage/log";

// The one path every billed call walks, whatever the surface (architecture.md):
//   prepare (validate input, load images, safety) -> reserve (window + credits, atomic)
//   -> run -> refund if the failure was not ours to charge for -> log -> result.
// Nothing is taken before the reservation; every call that passed authentication is logged.

export interface BilledCall {
  tool: AnyTool;
  /** The request body, already checked against tool.input(family). */
  input: unknown;
  ctx: ToolContext;
  key: ApiKeyRecord;
  /** Surfaces that send rate-limit headers learn the key's window here. */
  onWindow?: (window: WindowState) => void;
}

export interface BilledResult {
  message: string;
  deductedCredits: number;
  userCredits: number;
  result: Record<string, unknown>;
}

/**
 * Failures after the charge that are refunded: the provider's (502) and the input's (4xx, e.g.
 * an image that only fails at full decode). A 500 is ours and, as the spec states, not refunded.
 */
export function isRefundable(error: unknown): boolean {
  return error instanceof PixelgateError && ERROR_CATALOG[error.code].status !== 500;
}

export function statusOf(error: unknown): number {
  return error instanceof PixelgateError ? ERROR_CATALOG[error.code].status : 500;
}

function summaryOf(tool: AnyTool, input: unknown, prepared?: unknown): CallSummary {
  try {
    return tool.summarize(input, prepared);
  } catch {
    return { model: "", prompt: "" }; // input too broken to describe; the log entry still counts
  }
}

interface Settlement {
  statusCode: number;
  summary: CallSummary;
  charged: number;
  refunded: number;
  startedAt: number;
}

async function logCall(call: BilledCall, settled: Settlement): Promise<void> {
  await recordUsage(call.ctx.env.DB, {
    accountId: call.ctx.account.id,
    keyPrefix: call.key.prefix,
    requestId: call.ctx.requestId,
    tool: call.tool.name,
    source: call.ctx.source,
    model: settled.summary.model,
    prompt: settled.summary.prompt,
    statusCode: settled.statusCode,
    latencyMs: Date.now() - settled.startedAt,
    creditsDeducted: settled.charged,
    creditsRefunded: settled.refunded,
  });
}

/**
 * A call refused before it could reserve (bad body, failed validation): it still counts toward
 * the key's window and is logged, at no charge. Returns the error to answer with: the original
 * one, or a 429 when the window was already full.
 */
export async function rejectCall(call: BilledCall, error: unknown, startedAt = Date.now()): Promise<unknown> {
  const outcome = await ledgerOf(call.ctx.env, call.ctx.account.id).reserve({ keyId: call.key.id, slots: 1, credits: 0 });
  call.onWindow?.(outcome.window);
  const answer = refusalOf(outcome) ?? error;
  if (!isAuthRefusal(answer)) {
    await logCall(call, { statusCode: statusOf(answer), summary: summaryOf(call.tool, call.input), charged: 0, refunded: 0, startedAt });
  }
  return answer;
}

export async function runBilledCall(call: BilledCall): Promise<BilledResult> {
  const { tool, input, ctx } = call;
  const startedAt = Date.now();
  let prepared: unknown;
  try {
    prepared = await tool.prepare(input, ctx);
  } catch (error) {
    throw await rejectCall(call, error, startedAt);
  }

  const summary = summaryOf(tool, input, prepared);
  const price = tool.price(prepared);
  const ledger = ledgerOf(ctx.env, ctx.account.id);
  const outcome = await ledger.reserve({ keyId: call.key.id, slots: 1, credits: price });
  call.onWindow?.(outcome.window);
  const refusal = refusalOf(outcome);
  if (refusal) {
    // A key revoked (or an account deleted) since it was cached never passed authentication.
    if (!isAuthRefusal(refusal)) await logCall(call, { statusCode: statusOf(refusal), summary, charged: 0, refunded: 0, startedAt });
    throw refusal;
  }

  try {
    const output = await tool.run(prepared, ctx);
    const refunded = Math.min(price, Math.max(0, output.refundCredits ?? 0));
    const balance = refunded > 0 ? await ledger.refund(refunded) : outcome.balance;
    await logCall(call, { statusCode: 200, summary, charged: price, refunded, startedAt });
    return { message: output.message, deductedCredits: price - refunded, userCredits: balance, result: output.result };
  } catch (error) {
    const refunded = isRefundable(error) && price > 0 ? price : 0;
    if (refunded > 0) await ledger.refund(refunded);
    await logCall(call, { statusCode: statusOf(error), summary, charged: price, refunded, startedAt });
    throw error;
  }
}
