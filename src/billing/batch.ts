import type { WindowState } from "../../durable-objects/account-ledger";
import { ledgerOf } from "../accounts/ledger";
import type { ApiKeyRecord } from "../accounts/repository";
import { isAuthRefusal } from "../auth/refusals";
import { PixelgateError } from "../errors";
import { refusalOf } from "../http/rate-limit";
import { validationError } from "../http/validation";
import type { AnyTool, ToolContext } from "../tools/types";
import { formatLatency } from "../usage/log";
import { executeCall, logCall, prepareCall, statusOf, summaryOf, type BilledCall, type BilledResult, type PreparedCall } from "./billed-call";

// A batch (spec 4.15): every item is validated and prepared first, in parallel; the prepared
// items' prices are reserved once, together with one rate-limit slot per item, in one atomic
// ledger step; then the items run in parallel and each settles like a single call (refund on a
// provider failure, its own log entry). One failing item never fails the batch.

export const MAX_BATCH_ITEMS = 20;
/** The usage log's `tool` for a batch refused as a whole. */
export const BATCH_LOG_TOOL = "batch";

export interface BatchItem {
  tool: AnyTool;
  args: unknown;
}

/** One item's outcome: what its single-call endpoint would have answered. */
export interface ItemOutcome {
  tool: string;
  status: number;
  success: boolean;
  /** The tool's success body, or the error to shape into the error envelope. */
  body: BilledResult | PixelgateError | unknown;
}

export interface BatchResult {
  count: number;
  totalLatency: string;
  deductedCredits: number;
  userCredits: number;
  items: ItemOutcome[];
}

export interface BatchCall {
  items: BatchItem[];
  ctx: ToolContext;
  key: ApiKeyRecord;
  onWindow?: (window: WindowState) => void;
  onCharged?: () => void;
}

type Readiness = { ready: PreparedCall } | { failed: ItemOutcome; call: BilledCall };

async function readyItem(batch: BatchCall, item: BatchItem, startedAt: number): Promise<Readiness> {
  const parsed = item.tool.input(batch.ctx.family).safeParse(item.args ?? {});
  const call: BilledCall = { tool: item.tool, input: parsed.success ? parsed.data : item.args, ctx: batch.ctx, key: batch.key };
  try {
    if (!parsed.success) throw validationError({ success: false, error: parsed.error, data: item.args });
    return { ready: await prepareCall(call, startedAt) };
  } catch (error) {
    return { failed: { tool: item.tool.name, status: statusOf(error), success: false, body: error }, call };
  }
}

/** The ledger refused the whole batch (window, balance): nothing charged, one log entry for the request. */
async function refuseBatch(batch: Pick<BatchCall, "ctx" | "key">, error: unknown, startedAt: number): Promise<never> {
  if (!isAuthRefusal(error)) {
    await logCall(batch, { tool: BATCH_LOG_TOOL, statusCode: statusOf(error), summary: { model: "", prompt: "" }, charged: 0, refunded: 0, startedAt });
  }
  throw error;
}

export async function runBatch(batch: BatchCall): Promise<BatchResult> {
  const startedAt = Date.now();
  const readiness = await Promise.all(batch.items.map((item) => readyItem(batch, item, startedAt)));
  const total = readiness.reduce((sum, item) => sum + ("ready" in item ? item.ready.price : 0), 0);

  const ledger = ledgerOf(batch.ctx.env, batch.ctx.account.id);
  const outcome = await ledger.reserve({ keyId: batch.key.id, slots: batch.items.length, credits: total });
  batch.onWindow?.(outcome.window);
  const refusal = refusalOf(outcome);
  if (refusal) {
    for (const item of readiness) if ("ready" in item) item.ready.call.tool.release?.(item.ready.prepared); // memory gate
    return refuseBatch(batch, refusal, startedAt);
  }
  if (total > 0) batch.onCharged?.();

  const settled = await Promise.all(
    readiness.map(async (item): Promise<{ outcome: ItemOutcome; net: number }> => {
      if ("failed" in item) {
        const { call, failed } = item;
        await logCall(call, { tool: call.tool.name, statusCode: failed.status, summary: summaryOf(call.tool, call.input), charged: 0, refunded: 0, startedAt });
        return { outcome: failed, net: 0 };
      }
      const result = await executeCall(item.ready, outcome.balance);
      const tool = item.ready.call.tool.name;
      const net = result.charged - result.refunded;
      if (result.ok) return { outcome: { tool, status: 200, success: true, body: result.output }, net };
      return { outcome: { tool, status: statusOf(result.error), success: false, body: result.error }, net };
    }),
  );
  const deducted = settled.reduce((sum, item) => sum + item.net, 0);
  return {
    count: settled.length,
    totalLatency: formatLatency(Date.now() - startedAt),
    deductedCredits: deducted,
    // The balance this batch left: after its reservation, plus what its items got back.
    userCredits: outcome.balance + (total - deducted),
    items: settled.map((item) => item.outcome),
  };
}
