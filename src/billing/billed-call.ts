import type { HoldRequest, ReserveOutcome, SettleOutcome, WindowState } from "../../durable-objects/account-ledger";
import { ledgerOf } from "../accounts/ledger";
import { WorkBudget } from "../codecs/fuel";
import type { ApiKeyRecord } from "../accounts/repository";
import { ERROR_CATALOG, PixelgateError } from "../errors";
import { refusalOf } from "../http/rate-limit";
import { getCreditsLink } from "../payments/links";
import type { AnyTool, CallSummary, ToolContext } from "../tools/types";
import { newEntryId, type EntryDraft } from "../usage/log";

// The one path every billed call walks, whatever the surface:
//   prepare (validate input, load images, safety) -> reserve (window + credits + hold, one
//   ledger step) -> run, on the tool's work budget -> settle (refund if the failure was not
//   ours to charge for + log entry, one ledger step) -> result.
// Nothing is taken before the reservation. Every call that passed authentication gets exactly
// one usage-log entry, and the ledger writes it: when it refuses the reservation, when the call
// settles, or, for a call refused before the charge, in the step that counts its request.
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
  /** Its usage-log entry, as far as it is known before the call runs. */
  entry: EntryDraft;
}

/** How a call that ran after its reservation ended. */
export type Settled =
  | { ok: true; output: BilledResult; charged: number; refunded: number }
  | { ok: false; error: unknown; charged: number; refunded: number };

/**
 * Failures after the charge that are refunded: the provider's (502) and the input's (4xx, e.g.
 * an image that only fails at full decode). A 500 is ours and is not refunded.
 */
export function isRefundable(error: unknown): boolean {
  return error instanceof PixelgateError && ERROR_CATALOG[error.code].status !== 500;
}

export function statusOf(error: unknown): number {
  return error instanceof PixelgateError ? ERROR_CATALOG[error.code].status : 500;
}

/** The error code a failure is answered with (anything unexpected is internal_error). */
export function errorCodeOf(error: unknown): string {
  return error instanceof PixelgateError ? error.code : "internal_error";
}

export function summaryOf(tool: AnyTool, input: unknown, prepared?: unknown): CallSummary {
  try {
    return tool.summarize(input, prepared);
  } catch {
    return { model: "", prompt: "" }; // input too broken to describe; the log entry still counts
  }
}

/** The usage-log entry of a request (or of one batch item), before its outcome is known. */
export function entryDraftOf(
  call: Pick<BilledCall, "ctx" | "key">,
  tool: string,
  summary: CallSummary,
): EntryDraft {
  const { ctx } = call;
  return {
    id: newEntryId(),
    requestId: ctx.requestId,
    keyPrefix: call.key.prefix,
    tool,
    source: ctx.source,
    model: summary.model,
    prompt: summary.prompt,
    startedAt: ctx.startedAt,
  };
}

export function holdOf(ready: PreparedCall): HoldRequest {
  return { ...ready.entry, credits: ready.price, idempotency: ready.call.ctx.idempotency ?? null };
}

/**
 * The ledger's answer as the surface sees it: the window noted, a refusal thrown. A refused
 * reservation means the calls never run, so what their prepare() holds (a memory-gate permit)
 * is given back here.
 */
export function acceptedOrThrow(call: Pick<BilledCall, "onWindow" | "ctx">, outcome: ReserveOutcome, ready: PreparedCall[]): number {
  call.onWindow?.(outcome.window);
  const refusal = refusalOf(outcome, outcome.ok ? null : getCreditsLink(call.ctx.env, call.ctx.baseUrl));
  if (refusal) {
    for (const item of ready) item.call.tool.release?.(item.prepared);
    throw refusal;
  }
  return outcome.balance;
}

/**
 * A request refused before it could reserve (bad body, failed validation): it still counts
 * toward the key's window and the ledger logs it, at no charge, in the same step. Returns the
 * error to answer with: the original one, or a 429 when the window was already full.
 */
export async function rejectRequest(call: Pick<BilledCall, "ctx" | "key" | "onWindow">, error: unknown, entry: EntryDraft): Promise<unknown> {
  const outcome = await ledgerOf(call.ctx.env, call.ctx.account.id).reserve({
    keyId: call.key.id,
    slots: 1,
    credits: 0,
    usage: { holds: [], refused: [{ ...entry, statusCode: statusOf(error), errorCode: errorCodeOf(error) }], onRefusal: entry },
  });
  call.onWindow?.(outcome.window);
  return refusalOf(outcome) ?? error;
}

export function rejectCall(call: BilledCall, error: unknown): Promise<unknown> {
  return rejectRequest(call, error, entryDraftOf(call, call.tool.name, summaryOf(call.tool, call.input)));
}

/** Everything before the charge. Throws what prepare() throws; nothing is logged here. */
export async function prepareCall(call: BilledCall): Promise<PreparedCall> {
  const prepared = await call.tool.prepare(call.input, call.ctx);
  const entry = entryDraftOf(call, call.tool.name, summaryOf(call.tool, call.input, prepared));
  return { call, prepared, price: call.tool.price(prepared), entry };
}

/**
 * Runs a call whose credits were reserved and settles its hold: the refund its outcome calls
 * for and its log entry, in one ledger step. `balance` is the balance right after the reservation.
 */
export async function executeCall(ready: PreparedCall, balance: number): Promise<Settled> {
  const { tool, ctx } = ready.call;
  const ledger = ledgerOf(ctx.env, ctx.account.id);
  const settle = (statusCode: number, refundCredits: number, errorCode: string | null = null) =>
    ledger.settle(ready.entry.id, { statusCode, errorCode, refundCredits, latencyMs: Date.now() - ready.entry.startedAt });
  try {
    const output = await workBudgetOf(tool, ready.prepared).run(() => tool.run(ready.prepared, ctx));
    if (!output.refundCredits) {
      // Nothing goes back, so the answer need not wait for the settlement's commit: the RPC is
      // sent now (the account's next request reaches the ledger after it, so it sees the entry)
      // and the worker stays alive until it lands. Should it never land, the hold's deadline
      // settles the call as interrupted, refunded: never a charge without its entry.
      ctx.waitUntil(settle(200, 0));
      const result = { message: output.message, deductedCredits: ready.price, userCredits: balance, result: output.result };
      return { ok: true, output: result, charged: ready.price, refunded: 0 };
    }
    const { refunded, balance: after } = refundedBy(await settle(200, output.refundCredits), ready.price);
    const userCredits = refunded > 0 ? after : balance;
    const result = { message: output.message, deductedCredits: ready.price - refunded, userCredits, result: output.result };
    return { ok: true, output: result, charged: ready.price, refunded };
  } catch (error) {
    const { refunded } = refundedBy(await settle(statusOf(error), isRefundable(error) ? ready.price : 0, errorCodeOf(error)), ready.price);
    return { ok: false, error, charged: ready.price, refunded };
  }
}

/**
 * The budget a call's run() draws on: its tool's (codecs/fuel.ts), or the floor alone for a tool
 * that does no codec work of its own. Spent, the call fails with image_too_large, refunded.
 */
export function workBudgetOf(tool: AnyTool, prepared: unknown): WorkBudget {
  return tool.workBudget?.(prepared) ?? WorkBudget.forWork("codec", 0);
}

/**
 * A hold already settled when the call came to settle it was taken by the ledger's alarm: the
 * call outlived its deadline, was logged as interrupted and given back whole. Say so truthfully.
 */
function refundedBy(outcome: SettleOutcome, price: number): { refunded: number; balance: number } {
  return { refunded: outcome.settled ? outcome.refunded : price, balance: outcome.balance };
}

export async function runBilledCall(call: BilledCall): Promise<BilledResult> {
  let ready: PreparedCall;
  try {
    ready = await prepareCall(call);
  } catch (error) {
    throw await rejectCall(call, error);
  }
  const outcome = await ledgerOf(call.ctx.env, call.ctx.account.id).reserve({
    keyId: call.key.id,
    slots: 1,
    credits: ready.price,
    usage: { holds: [holdOf(ready)], refused: [], onRefusal: ready.entry },
  });
  const balance = acceptedOrThrow(call, outcome, [ready]);
  call.onCharged?.();
  const settled = await executeCall(ready, balance);
  if (!settled.ok) throw settled.error;
  return settled.output;
}
