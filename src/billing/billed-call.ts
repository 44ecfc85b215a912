import type { WindowState } from "../../durable-objects/account-ledger";
import { ledgerOf } from "../accounts/ledger";
import type { ApiKeyRecord } from "../accounts/repository";
import { isAuthRefusal } from "../auth/refusals";
import { ERROR_CATALOG, PixelgateError } from "../errors";
import { refusalOf } from "../http/rate-limit";
import type { AnyTool, CallSummary, ToolContext } from "../tools/types";
import { recordUsage } from "../usage/log";

// The one path every billed call walks, whatever the surface (architecture.md):
//   prepare (validate input, load images, safety) -> reserve (window + credits, atomic)
//   -> run -> refund if the failure was not ours to charge for -> log -> result.
// Nothing is taken before the reservation; every call that passed authentication is logged.
// A batch walks the same steps with one reservation for all its items (billing/batch.ts).

export interface BilledCall {
  tool: AnyTool;
  /** The request body, already checked against tool.input(family). */
  input: unknown;
  ctx: ToolContext;
  key: ApiKeyRecord;
  /** Surfaces that send rate-limit headers learn the key's window here. */
  onWindow?: (window: WindowState) => void;
  /** Called once credits were reserved (Idempotency-Key keeps only such answers). */
  onCharged?: () => void;
}

export interface BilledResult {
  message: string;
  deductedCredits: number;
  userCredits: number;
  result: Record<string, unknown>;
}

/** A call that passed prepare(): what it costs and how the log will describe it. */
export interface PreparedCall {
  call: BilledCall;
  prepared: unknown;
  price: number;
  summary: CallSummary;
  startedAt: number;
}

/** How a call that ran after its reservation ended. */
export type Settled =
  | { ok: true; output: BilledResult; charged: number; refunded: number }
  | { ok: false; error: unknown; charged: number; refunded: number };

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

export function summaryOf(tool: AnyTool, input: unknown, prepared?: unknown): CallSummary {
  try {
    return tool.summarize(input, prepared);
  } catch {
    return { model: "", prompt: "" }; // input too broken to describe; the log entry still counts
  }
}

export interface LogEntry {
  tool: string;
  statusCode: number;
  summary: CallSummary;
  charged: number;
  refunded: number;
  startedAt: number;
}

export async function logCall(call: Pick<BilledCall, "ctx" | "key">, entry: LogEntry): Promise<void> {
  await recordUsage(call.ctx.env.DB, {
    accountId: call.ctx.account.id,
    keyPrefix: call.key.prefix,
    requestId: call.ctx.requestId,
    tool: entry.tool,
    source: call.ctx.source,
    model: entry.summary.model,
    prompt: entry.summary.prompt,
    statusCode: entry.statusCode,
    latencyMs: Date.now() - entry.startedAt,
    creditsDeducted: entry.charged,
    creditsRefunded: entry.refunded,
  });
}

/**
 * A request refused before it could reserve (bad body, failed validation): it still counts
 * toward the key's window and is logged, at no charge. Returns the error to answer with: the
 * original one, or a 429 when the window was already full.
 */
export async function rejectRequest(
  call: Pick<BilledCall, "ctx" | "key" | "onWindow">,
  error: unknown,
  entry: { tool: string; summary: CallSummary },
  startedAt = Date.now(),
): Promise<unknown> {
  const outcome = await ledgerOf(call.ctx.env, call.ctx.account.id).reserve({ keyId: call.key.id, slots: 1, credits: 0 });
  call.onWindow?.(outcome.window);
  const answer = refusalOf(outcome) ?? error;
  if (!isAuthRefusal(answer)) await logCall(call, { ...entry, statusCode: statusOf(answer), charged: 0, refunded: 0, startedAt });
  return answer;
}

export function rejectCall(call: BilledCall, error: unknown, startedAt = Date.now()): Promise<unknown> {
  return rejectRequest(call, error, { tool: call.tool.name, summary: summaryOf(call.tool, call.input) }, startedAt);
}

/** Everything before the charge. Throws what prepare() throws; nothing is logged here. */
export async function prepareCall(call: BilledCall, startedAt = Date.now()): Promise<PreparedCall> {
  const prepared = await call.tool.prepare(call.input, call.ctx);
  return { call, prepared, price: call.tool.price(prepared), summary: summaryOf(call.tool, call.input, prepared), startedAt };
}

/**
 * Runs a call whose credits were reserved: the tool's work, the refund its outcome calls for,
 * the log entry. `balance` is the balance right after the reservation.
 */
export async function executeCall(call: PreparedCall, balance: number): Promise<Settled> {
  const { tool, ctx } = call.call;
  const ledger = ledgerOf(ctx.env, ctx.account.id);
  const entry = { tool: tool.name, summary: call.summary, charged: call.price, startedAt: call.startedAt };
  try {
    const output = await tool.run(call.prepared, ctx);
    const refunded = Math.min(call.price, Math.max(0, output.refundCredits ?? 0));
    const after = refunded > 0 ? await ledger.refund(refunded) : balance;
    await logCall(call.call, { ...entry, statusCode: 200, refunded });
    const result = { message: output.message, deductedCredits: call.price - refunded, userCredits: after, result: output.result };
    return { ok: true, output: result, charged: call.price, refunded };
  } catch (error) {
    const refunded = isRefundable(error) && call.price > 0 ? call.price : 0;
    if (refunded > 0) await ledger.refund(refunded);
    await logCall(call.call, { ...entry, statusCode: statusOf(error), refunded });
    return { ok: false, error, charged: call.price, refunded };
  }
}

export async function runBilledCall(call: BilledCall): Promise<BilledResult> {
  const startedAt = Date.now();
  let ready: PreparedCall;
  try {
    ready = await prepareCall(call, startedAt);
  } catch (error) {
    throw await rejectCall(call, error, startedAt);
  }

  const outcome = await ledgerOf(call.ctx.env, call.ctx.account.id).reserve({ keyId: call.key.id, slots: 1, credits: ready.price });
  call.onWindow?.(outcome.window);
  const refusal = refusalOf(outcome);
  if (refusal) {
    call.tool.release?.(ready.prepared); // run never starts: free what prepare holds (memory gate)
    // A key revoked (or an account deleted) since it was cached never passed authentication.
    if (!isAuthRefusal(refusal)) {
      await logCall(call, { tool: call.tool.name, statusCode: statusOf(refusal), summary: ready.summary, charged: 0, refunded: 0, startedAt });
    }
    throw refusal;
  }
  call.onCharged?.();
  const settled = await executeCall(ready, outcome.balance);
  if (!settled.ok) throw settled.error;
  return settled.output;
}
