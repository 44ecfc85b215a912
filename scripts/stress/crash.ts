// The crash fault of `npm run stress`: calls are sent to a slow fake model; once the ledger holds
// them all (they are charged and waiting on the upstream), the worker's whole process group is
// killed with SIGKILL and started again on the same state. The reconciliation then expects each
// of those calls, which never got an answer, to have exactly one entry: interrupted, status 500,
// its credits given back (or, if it settled in the instant before the kill, an ordinary entry).
// One call carries an Idempotency-Key and is retried after the restart: the key must have been
// released, so the retry runs instead of answering 409 or replaying.
import { randomUUID } from "node:crypto";
import { delayModel } from "../../test/upstream/chaos.ts";
import { sleep } from "../bench/processes.ts";
import { newKey, type Account } from "./accounts.ts";
import type { Rng } from "./calls.ts";
import { send, type Draft, type Exchange } from "./client.ts";
import type { ModelRow, StressWorker } from "./worker.ts";

/** Slower than nothing, faster than the stress worker's upstream limit: the call is surely in flight. */
export const SLOW_MODEL: ModelRow = { modelId: "stress-openai-slow", provider: "openai", upstreamModel: delayModel(1_300), task: "image", costPerReq: 10 };
const CALLS_PER_CRASH = 4;
const HOLDS_TIMEOUT_MS = 10_000;

export interface CrashPlan {
  worker: StressWorker;
  accounts: Account[];
  adminToken: string;
  rng: Rng;
  exchanges: Exchange[];
  log: (line: string) => void;
}

export interface Backlog {
  openHolds: number;
  undeliveredEntries: number;
}

export async function backlogOf(baseUrl: string, adminToken: string, accountId: string): Promise<Backlog> {
  const response = await fetch(`${baseUrl}/admin/v1/accounts/${accountId}`, { headers: { Authorization: `Bearer ${adminToken}` }, signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`GET /admin/v1/accounts/${accountId} answered ${response.status}`);
  return ((await response.json()) as { account: { ledger: Backlog } }).account.ledger;
}

/** Waits until every account's ledger has settled its holds and delivered its entries to D1. */
export async function waitForSettlement(baseUrl: string, adminToken: string, accounts: Array<Pick<Account, "id">>, timeoutMs: number): Promise<Backlog> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const backlogs = await Promise.all(accounts.map((account) => backlogOf(baseUrl, adminToken, account.id)));
    const total = backlogs.reduce((sum, b) => ({ openHolds: sum.openHolds + b.openHolds, undeliveredEntries: sum.undeliveredEntries + b.undeliveredEntries }), { openHolds: 0, undeliveredEntries: 0 });
    if ((total.openHolds === 0 && total.undeliveredEntries === 0) || Date.now() > deadline) return total;
    await sleep(250);
  }
}

function crashDraft(key: Account["keys"][number], idempotencyKey?: string): Draft {
  // The prompt is unique: it is how an entry finds its call, which got no X-Request-Id.
  const probe = `crash probe ${randomUUID()}`;
  const body = JSON.stringify({ prompt: probe, model: SLOW_MODEL.modelId });
  return { kind: "crash", key, path: "/v1/generate", batch: false, tools: ["generate_image"], body, probe, idempotencyKey, group: idempotencyKey };
}

export async function crashDuringCalls(plan: CrashPlan): Promise<void> {
  const { worker, adminToken, log } = plan;
  // A key of its own on a well-funded account: after the traffic every window may be nearly
  // full, and the crash calls must all reach the ledger.
  const normal = plan.accounts.filter((account) => account.kind === "normal");
  const account = normal[Math.floor(plan.rng() * normal.length)]!;
  const key = await newKey(worker.baseUrl, adminToken, account.id, `crash ${randomUUID().slice(0, 8)}`);
  account.keys.push(key);
  for (let i = 0; i < CALLS_PER_CRASH + 1; i++) key.slots.push(Date.now()); // the calls and the retry
  const drafts = Array.from({ length: CALLS_PER_CRASH }, (_, i) => crashDraft(key, i === 0 ? `crash-${randomUUID()}` : undefined));
  const inFlight = drafts.map((draft) => send(worker.baseUrl, draft));
  const held = [account.id];
  const deadline = Date.now() + HOLDS_TIMEOUT_MS;
  let holds = 0;
  while (Date.now() < deadline) {
    holds = (await Promise.all(held.map((id) => backlogOf(worker.baseUrl, adminToken, id)))).reduce((sum, b) => sum + b.openHolds, 0);
    if (holds >= drafts.length) break;
    await sleep(20);
  }
  log(`crash: ${holds} of ${drafts.length} slow calls held by the ledger of ${account.id}; killing the worker's process group`);
  await worker.crash();
  plan.exchanges.push(...(await Promise.all(inFlight)));
  await worker.restart();

  // The call with the Idempotency-Key, sent again with the same key and body once its hold settled.
  const first = drafts[0]!;
  await waitForSettlement(worker.baseUrl, adminToken, [account], 60_000);
  plan.exchanges.push(await send(worker.baseUrl, { ...first, kind: "crash-retry", probe: undefined }));
}
