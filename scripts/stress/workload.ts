// The mix `npm run stress` drives: closed-loop lanes, each picking an operation, running it to
// the end, and picking the next, until the deadline. Every operation is bounded (a fixed number
// of requests); nothing retries on its own except where the retry is the point (idempotency).
import { randomUUID } from "node:crypto";
import { takeKey, type Account, type AccountKind, type Key } from "./accounts.ts";
import { invalidCall, pathOf, pick, TOOL_NAMES, validCall, type Family, type Rng, type ToolCall } from "./calls.ts";
import { send, type Draft, type Exchange } from "./client.ts";
import type { Pictures } from "./inputs.ts";

export interface Features {
  /** POST /v1/batch and /playground/multicall answer. */
  batch: boolean;
  /** Idempotency-Key is honoured (a retry is replayed). */
  idempotency: boolean;
}

export interface Workload {
  baseUrl: string;
  accounts: Account[];
  pictures: Pictures;
  rng: Rng;
  features: Features;
  exchanges: Exchange[];
  /** performance.now() after which no new operation starts. */
  stopAt: number;
  lanes: number;
  /** Rate-limit bursts to run, spread over the run. */
  bursts: number;
  log: (line: string) => void;
}

const BATCH_PATHS = { v1: "/v1/batch", playground: "/playground/multicall" } as const;

async function record(w: Workload, draft: Draft): Promise<Exchange> {
  const exchange = await send(w.baseUrl, draft);
  w.exchanges.push(exchange);
  return exchange;
}

const family = (w: Workload): Family => (w.rng() < 0.5 ? "v1" : "playground");
/** Most traffic on well-funded accounts, some on accounts that run dry. */
const spenderKind = (w: Workload): AccountKind => (w.rng() < 0.15 ? "poor" : "normal");

function singleDraft(w: Workload, kind: string, key: Key, call: ToolCall, extra: Partial<Draft> = {}): Draft {
  return { kind, key, path: pathOf(call.tool, family(w)), batch: false, tools: [call.tool], body: JSON.stringify(call.args), ...extra };
}

function batchItems(w: Workload, count: number): ToolCall[] {
  return Array.from({ length: count }, () => {
    const tool = pick(w.rng, TOOL_NAMES);
    return w.rng() < 0.1 ? invalidCall(tool, w.rng, w.pictures) : validCall(tool, w.rng, w.pictures);
  });
}

function batchDraft(w: Workload, kind: string, key: Key, items: ToolCall[], extra: Partial<Draft> = {}): Draft {
  return { kind, key, path: BATCH_PATHS[family(w)], batch: true, tools: items.map((item) => item.tool), body: JSON.stringify({ requests: items }), ...extra };
}

/** A key with room for `slots`, waiting (bounded by the deadline) while every window is full. */
async function spenderKey(w: Workload, slots: number): Promise<Key | undefined> {
  for (;;) {
    const key = takeKey(w.accounts, spenderKind(w), slots, w.rng) ?? takeKey(w.accounts, "normal", slots, w.rng);
    if (key || performance.now() > w.stopAt) return key;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function singleOp(w: Workload): Promise<void> {
  const key = await spenderKey(w, 1);
  if (key) await record(w, singleDraft(w, "single", key, validCall(pick(w.rng, TOOL_NAMES), w.rng, w.pictures)));
}

/** Refused before any charge: a bad field, a body that is not JSON, the wrong Content-Type. */
async function invalidOp(w: Workload): Promise<void> {
  const key = await spenderKey(w, 1);
  if (!key) return;
  const tool = pick(w.rng, TOOL_NAMES);
  const roll = w.rng();
  if (roll < 0.15) return void (await record(w, { ...singleDraft(w, "invalid", key, { tool, args: {} }), body: '{"prompt": "unterminated' }));
  if (roll < 0.25) return void (await record(w, { ...singleDraft(w, "invalid", key, { tool, args: { prompt: "a cat" } }), contentType: "text/plain" }));
  if (roll < 0.35 && w.features.idempotency) {
    // An Idempotency-Key over 255 characters: a validation failure like any other (logged, free).
    const call = validCall(tool, w.rng, w.pictures);
    return void (await record(w, singleDraft(w, "invalid-idempotency-key", key, call, { idempotencyKey: "k".repeat(256 + Math.floor(w.rng() * 50)) })));
  }
  await record(w, singleDraft(w, "invalid", key, invalidCall(tool, w.rng, w.pictures)));
}

async function batchOp(w: Workload): Promise<void> {
  const count = w.rng() < 0.08 ? 20 : 2 + Math.floor(w.rng() * 7);
  const key = await spenderKey(w, count);
  if (key) await record(w, batchDraft(w, "batch", key, batchItems(w, count)));
}

/** Whole-batch refusals: nothing charged, one log entry. */
async function batchRefusalOp(w: Workload): Promise<void> {
  const key = await spenderKey(w, 1);
  if (!key) return;
  const shape = pick(w.rng, ["empty", "missing", "too-many", "unknown-tool", "not-a-list"] as const);
  const draft = batchDraft(w, `batch-refusal:${shape}`, key, []);
  switch (shape) {
    case "empty":
      return void (await record(w, draft));
    case "missing":
      return void (await record(w, { ...draft, body: "{}" }));
    case "too-many": {
      const items = batchItems(w, 21);
      return void (await record(w, { ...draft, tools: items.map((item) => item.tool), body: JSON.stringify({ requests: items }) }));
    }
    case "unknown-tool":
      return void (await record(w, { ...draft, body: JSON.stringify({ requests: [{ tool: "paint_masterpiece", args: {} }, validCall("compress_image", w.rng, w.pictures)] }) }));
    case "not-a-list":
      return void (await record(w, { ...draft, body: JSON.stringify({ requests: { tool: "compress_image" } }) }));
  }
}

/**
 * One logical call with an Idempotency-Key: `copies` identical requests at once, then (after all
 * answered) one more retry, then the same key with a different body. Expected: one execution,
 * the others 409 or replays identical to it, the retry a replay, the last a 422.
 */
async function idempotentOp(w: Workload, copies: number): Promise<void> {
  const useBatch = w.features.batch && w.rng() < 0.3;
  const items = useBatch ? batchItems(w, 2 + Math.floor(w.rng() * 3)) : [];
  const key = await spenderKey(w, Math.max(1, items.length) * (copies + 2));
  if (!key) return;
  const group = randomUUID();
  const extra = { idempotencyKey: `stress-${group}`, group };
  const kind = copies > 1 ? "idem-concurrent" : "idem-sequential";
  const first = useBatch ? batchDraft(w, kind, key, items, extra) : singleDraft(w, kind, key, validCall(pick(w.rng, TOOL_NAMES), w.rng, w.pictures), extra);
  await Promise.all(Array.from({ length: copies }, () => record(w, first)));
  await record(w, { ...first, kind: "idem-retry" });
  const changed = batchItems(w, 2);
  const other = useBatch
    ? { ...first, kind: "idem-conflict", tools: changed.map((item) => item.tool), body: JSON.stringify({ requests: changed }) }
    : { ...first, kind: "idem-conflict", body: JSON.stringify({ ...JSON.parse(first.body), note: "changed" }) };
  await record(w, other);
}

/** A burst key never used before: a burst must start from an empty window to be judged. */
function freshBurstKey(w: Workload): Key | undefined {
  const keys = w.accounts.filter((account) => account.kind === "burst").flatMap((account) => account.keys);
  const key = keys.find((candidate) => candidate.slots.length === 0);
  // Marked for good, so ordinary traffic never takes it and no later burst reuses it.
  if (key) for (let i = 0; i < 1000; i++) key.slots.push(Number.POSITIVE_INFINITY);
  return key;
}

/**
 * Past the limit on one key: 72 cheap requests (compress and invalid bodies), 12 at a time.
 * With batches, a second key is brought to 45 and then sent a 20-item batch, refused whole.
 */
async function burstOp(w: Workload): Promise<void> {
  const key = freshBurstKey(w);
  if (!key) return w.log("no unused burst key left: burst skipped");
  w.log(`burst on ${key.prefix}`);
  let next = 0;
  const lane = async () => {
    while (next < 72) {
      next++;
      const call = w.rng() < 0.5 ? validCall("compress_image", w.rng, w.pictures) : invalidCall(pick(w.rng, TOOL_NAMES), w.rng, w.pictures);
      await record(w, singleDraft(w, "burst", key, call));
    }
  };
  await Promise.all(Array.from({ length: 12 }, lane));
  if (!w.features.batch) return;
  const second = freshBurstKey(w);
  if (!second) return w.log("no unused burst key left: batch burst skipped");
  for (let i = 0; i < 45; i++) await record(w, singleDraft(w, "burst-fill", second, invalidCall("text_to_svg", w.rng, w.pictures)));
  const items = Array.from({ length: 20 }, () => validCall("compress_image", w.rng, w.pictures));
  await record(w, batchDraft(w, "burst-batch", second, items));
}

type Op = [weight: number, run: (w: Workload) => Promise<void>];

function operations(w: Workload): Op[] {
  const ops: Op[] = [
    [45, singleOp],
    [10, invalidOp],
  ];
  if (w.features.batch) ops.push([18, batchOp], [5, batchRefusalOp]);
  if (w.features.idempotency) ops.push([10, (x) => idempotentOp(x, 3)], [5, (x) => idempotentOp(x, 1)]);
  return ops;
}

export async function runWorkload(w: Workload): Promise<void> {
  const ops = operations(w);
  const total = ops.reduce((sum, [weight]) => sum + weight, 0);
  const started = performance.now();
  const span = w.stopAt - started;
  let burstsDone = 0;
  const lane = async () => {
    while (performance.now() < w.stopAt) {
      // Bursts spread evenly over the run, each taken by whichever lane gets there first.
      if (burstsDone < w.bursts && performance.now() - started >= (burstsDone * span) / w.bursts) {
        burstsDone++;
        await burstOp(w);
        continue;
      }
      let roll = w.rng() * total;
      const [, run] = ops.find(([weight]) => (roll -= weight) < 0) ?? ops[0]!;
      await run(w);
    }
  };
  await Promise.all(Array.from({ length: w.lanes }, lane));
}
