import type { WindowState } from "../../durable-objects/account-ledger";
import { ledgerOf } from "../accounts/ledger";
import type { ApiKeyRecord } from "../accounts/repository";
import { PixelgateError } from "../errors";
import { validationError } from "../http/validation";
import type { AnyTool, ToolContext } from "../tools/types";
import { formatLatency, type EntryDraft } from "../usage/log";
import { acceptedOrThrow, entryDraftOf, errorCodeOf, executeCall, holdOf, prepareCall, statusOf, summaryOf, type BilledCall, type BilledResult, type PreparedCall } from "./billed-call";

// A batch: every item is validated and prepared first, in parallel; the prepared
// items' prices are reserved once, together with one rate-limit slot per item, in one atomic
// ledger step with a hold per item; then the items run in parallel and each settles its own hold
// like a single call (refund on a provider failure, its own log entry). One failing item never
// fails the batch.

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

type Readiness = { ready: PreparedCall } | { failed: ItemOutcome; entry: EntryDraft };

async function readyItem(batch: BatchCall, item: BatchItem): Promise<Readiness> {
  const parsed = item.tool.input(batch.ctx.family).safeParse(item.args ?? {});
  const call: BilledCall = { tool: item.tool, input: parsed.success ? parsed.data : item.args, ctx: batch.ctx, key: batch.key };
  try {
    if (!parsed.success) throw validationError({ success: false, error: parsed.error, data: item.args });
    return { ready: await prepareCall(call) };
  } catch (error) {
    const entry = entryDraftOf(call, item.tool.name, summaryOf(call.tool, call.input));
    return { failed: { tool: item.tool.name, status: statusOf(error), success: false, body: error }, entry };
  }
}

/** The usage-log entry of a batch refused as a whole (bad body, window, balance). */
export function batchEntryDraft(batch: Pick<BatchCall, "ctx" | "key">): EntryDraft {
  return entryDraftOf(batch, BATCH_LOG_TOOL, { model: "", prompt: "" });
}

export async function runBatch(batch: BatchCall): Promise<BatchResult> {
  const readiness = await Promise.all(batch.items.map((item) => readyItem(batch, item)));
  const ready = readiness.flatMap((item) => ("ready" in item ? [item.ready] : []));
  const total = ready.reduce((sum, item) => sum + item.price, 0);

  // One step: every item's slot, the total's credits, a hold per item that will run, and the
  // entries of the items refused before the charge (or, when the ledger refuses, one entry for
  // the whole batch).
  const outcome = await ledgerOf(batch.ctx.env, batch.ctx.account.id).reserve({
    keyId: batch.key.id,
    slots: batch.items.length,
    credits: total,
    usage: {
      holds: ready.map(holdOf),
      refused: readiness.flatMap((item) => ("failed" in item ? [{ ...item.entry, statusCode: item.failed.status, errorCode: errorCodeOf(item.failed.body) }] : [])),
      onRefusal: batchEntryDraft(batch),
    },
  });
  const balance = acceptedOrThrow(batch, outcome, ready);
  if (total > 0) batch.onCharged?.();

  const settled = await Promise.all(
    readiness.map(async (item): Promise<{ outcome: ItemOutcome; net: number }> => {
      if ("failed" in item) return { outcome: item.failed, net: 0 };
      const result = await executeCall(item.ready, balance);
      const tool = item.ready.call.tool.name;
      const net = result.charged - result.refunded;
      if (result.ok) return { outcome: { tool, status: 200, success: true, body: result.output }, net };
      return { outcome: { tool, status: statusOf(result.error), success: false, body: result.error }, net };
    }),
  );
  const deducted = settled.reduce((sum, item) => sum + item.net, 0);
  return {
    count: settled.length,
    totalLatency: formatLatency(Date.now() - batch.ctx.startedAt),
    deductedCredits: deducted,
    // The balance this batch left: after its reservation, plus what its items got back.
    userCredits: balance + (total - deducted),
    items: settled.map((item) => item.outcome),
  };
}
