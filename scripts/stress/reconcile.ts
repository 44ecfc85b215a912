// The ledger proof: what the service answered, what its usage log holds and what the balances
// say must agree. Every check adds a line to `problems`; an empty list is the proof.
//
// Log entries expected per answer: none for an unauthenticated request, a
// route that does not exist, an idempotent replay, a 409 or a 422 idempotency answer; one per
// item of an accepted batch; one for a whole-batch refusal (tool "batch"); one for any other call.
import type { Account } from "./accounts.ts";
import type { Exchange } from "./client.ts";

export interface UsageRow {
  account_id: string;
  tool: string;
  status_code: number;
  credits_deducted: number;
  credits_refunded: number;
  request_id: string;
  key_prefix: string;
  prompt: string;
  interrupted: number;
}

export interface AccountLine {
  account: Account;
  start: number;
  final: number;
  spent: number;
  deducted: number;
  refunded: number;
  entries: number;
  expectedEntries: number;
}

export interface Reconciliation {
  problems: string[];
  accounts: AccountLine[];
  /** Answers whose entries were matched by request id. */
  matched: number;
  /** Calls cut off by a crash whose entries say interrupted, refunded. */
  interrupted: number;
}

const IDEMPOTENCY_ANSWERS = new Set(["idempotency_in_progress", "idempotency_conflict"]);

/** A crash call the kill cut off: it has an entry, found by its prompt (crash.ts). */
const cutOff = (x: Exchange) => x.kind === "crash" && x.status === 0;

export function expectedEntries(x: Exchange): number {
  if (cutOff(x)) return 1;
  if (x.status === 0 || x.status === 401 || x.replayed) return 0;
  if (x.status === 404) return 0; // no such route, or no such account: never reached a tool
  if (x.code && IDEMPOTENCY_ANSWERS.has(x.code)) return 0;
  if (x.batch && x.status === 200) return x.results?.length ?? 0;
  return 1;
}

/** Rows by the request id they belong to: exact, or a batch item's id that extends it. */
function rowsByExchange(exchanges: Exchange[], rows: UsageRow[]): { byId: Map<string, UsageRow[]>; byProbe: Map<string, UsageRow[]>; orphans: UsageRow[] } {
  const byId = new Map<string, UsageRow[]>();
  for (const x of exchanges) if (x.requestId) byId.set(x.requestId, []);
  const orphans: UsageRow[] = [];
  for (const row of rows) {
    let owner = byId.has(row.request_id) ? row.request_id : undefined;
    for (let length = row.request_id.length - 1; !owner && length >= 8; length--) {
      if (byId.has(row.request_id.slice(0, length))) owner = row.request_id.slice(0, length);
    }
    if (owner) byId.get(owner)!.push(row);
    else orphans.push(row);
  }
  // A cut-off crash call got no X-Request-Id: its entry is the one carrying its unique prompt.
  const byProbe = new Map(exchanges.filter(cutOff).map((x) => [x.probe!, [] as UsageRow[]]));
  const unclaimed = orphans.filter((row) => {
    const mine = byProbe.get(row.prompt);
    mine?.push(row);
    return !mine;
  });
  return { byId, byProbe, orphans: unclaimed };
}

/**
 * A call the crash cut off: one entry, and either interrupted (status 500, every credit given
 * back: the client never got an answer) or, when it settled in the instant before the kill, an
 * ordinary entry. Returns whether it was interrupted.
 */
function checkCutOff(x: Exchange, rows: UsageRow[], problems: string[]): boolean {
  if (rows.length !== 1) {
    problems.push(`${describe(x)}: a call cut off by the crash has ${rows.length} log entries, expected 1`);
    return false;
  }
  const row = rows[0]!;
  if (row.interrupted !== 1) return false;
  if (row.status_code !== 500) problems.push(`${describe(x)}: interrupted entry with status ${row.status_code}, expected 500`);
  if (row.credits_refunded !== row.credits_deducted) problems.push(`${describe(x)}: interrupted, but ${row.credits_deducted - row.credits_refunded} credits kept`);
  return true;
}

const net = (rows: UsageRow[]) => rows.reduce((sum, row) => sum + row.credits_deducted - row.credits_refunded, 0);
const describe = (x: Exchange) => `#${x.n} ${x.kind} POST ${x.path} -> ${x.status || x.failure}${x.code ? ` ${x.code}` : ""} (request ${x.requestId ?? "?"})`;

function checkAnswer(x: Exchange, rows: UsageRow[], problems: string[]): void {
  const expected = expectedEntries(x);
  if (rows.length !== expected) problems.push(`${describe(x)}: ${rows.length} log entries, expected ${expected}`);
  for (const row of rows) {
    if (row.key_prefix !== x.key.prefix) problems.push(`${describe(x)}: entry logged for key ${row.key_prefix}, sent with ${x.key.prefix}`);
    if (row.credits_refunded > row.credits_deducted || row.credits_refunded < 0) problems.push(`${describe(x)}: entry refunds ${row.credits_refunded} of ${row.credits_deducted}`);
  }
  if (x.batch && x.status === 200) {
    const answered = (x.results ?? []).map((item) => item.tool).join();
    if (answered !== x.tools.join()) problems.push(`${describe(x)}: results for [${answered}], sent [${x.tools}] (order matters)`);
  }
  if (rows.length !== expected || expected === 0) return;
  const tools = rows.map((row) => row.tool).sort();
  const wanted = (x.batch ? (x.status === 200 ? (x.results ?? []).map((item) => item.tool) : ["batch"]) : x.tools).slice().sort();
  if (tools.join() !== wanted.join()) problems.push(`${describe(x)}: entries for tools [${tools}], expected [${wanted}]`);
  if (x.status === 200 && x.deducted !== undefined && x.deducted !== net(rows)) {
    problems.push(`${describe(x)}: answered deductedCredits ${x.deducted}, log nets ${net(rows)}`);
  }
  // A failure of the whole call costs nothing, unless it is our 500 after the charge (not refunded).
  if (x.status !== 200 && x.status !== 500 && net(rows) !== 0) problems.push(`${describe(x)}: a ${x.status} kept ${net(rows)} credits`);
}

function checkBursts(exchanges: Exchange[], problems: string[]): void {
  const byKey = new Map<string, Exchange[]>();
  // Each burst has a key of its own, never used before or after (workload.ts freshBurstKey).
  for (const x of exchanges.filter((e) => e.kind === "burst")) byKey.set(x.key.prefix, [...(byKey.get(x.key.prefix) ?? []), x]);
  for (const [prefix, burst] of byKey) {
    const limited = burst.filter((x) => x.status === 429);
    if (burst.length >= 72 && limited.length < burst.length - 60) problems.push(`burst on ${prefix}: ${burst.length - limited.length} of ${burst.length} accepted past the 60-per-60-s window`);
    for (const x of limited) if (!(Number(x.retryAfter) >= 1)) problems.push(`${describe(x)}: 429 without a Retry-After >= 1`);
  }
  for (const x of exchanges.filter((e) => e.kind === "burst-batch")) {
    if (x.status !== 429) problems.push(`${describe(x)}: a 20-item batch on a key with 45 of 60 used was not refused whole with 429`);
  }
}

/** Replays identical to the answer that ran, 409s only while it ran, one charge per key. */
/**
 * The stored answer as its replay must read, byte for byte (docs/api.md, Idempotency-Key):
 * marked `"replayed":true` first, and every `deductedCredits` 0, padded with spaces to the
 * first answer's width.
 */
function asReplay(first: string | undefined): string | undefined {
  if (first === undefined || !first.startsWith("{")) return first;
  return `{"replayed":true,${first.slice(1).replace(/"deductedCredits":(\d+)/g, (_, digits: string) => `"deductedCredits":0${" ".repeat(digits.length - 1)}`)}`;
}

function checkIdempotency(exchanges: Exchange[], byId: Map<string, UsageRow[]>, enabled: boolean, problems: string[]): void {
  if (!enabled) return; // without it every copy runs and is charged, as any request would be
  const groups = new Map<string, Exchange[]>();
  for (const x of exchanges) if (x.group) groups.set(x.group, [...(groups.get(x.group) ?? []), x]);
  for (const group of groups.values()) {
    const same = group.filter((x) => x.kind !== "idem-conflict");
    const ran = same.filter((x) => !x.replayed && !IDEMPOTENCY_ANSWERS.has(x.code ?? "") && x.status !== 0);
    const charged = ran.filter((x) => (byId.get(x.requestId ?? "") ?? []).some((row) => row.credits_deducted > 0));
    if (charged.length > 1) problems.push(`idempotency key ${group[0]!.idempotencyKey}: charged ${charged.length} times`);
    // What the first response stored: a success or a failure after the charge (not one before it).
    // A batch whose every item was refused before the charge answers 200 but took nothing, so
    // nothing is stored and a retry runs again.
    const unchargedBatch = (x: Exchange) => x.batch === true && !charged.includes(x);
    const stored = ran.find((x) => (x.status === 200 && !unchargedBatch(x)) || x.status >= 500 || charged.includes(x));
    for (const x of same.filter((e) => e.replayed)) {
      if (!stored) problems.push(`${describe(x)}: a replay, but nothing under its key was stored (${ran.length} ran, all refused before a charge)`);
      else if (x.status !== stored.status || x.responseText !== asReplay(stored.responseText)) problems.push(`${describe(x)}: replay differs from the stored answer #${stored.n} (${stored.status})`);
    }
    for (const x of same.filter((e) => e.code === "idempotency_in_progress")) {
      if (!ran.some((r) => r.sentAt < x.receivedAt && x.sentAt < r.receivedAt)) problems.push(`${describe(x)}: 409 while no request under its key was running`);
      if (!(Number(x.retryAfter) >= 1)) problems.push(`${describe(x)}: 409 without Retry-After`);
    }
    for (const x of same.filter((e) => e.code === "idempotency_conflict")) problems.push(`${describe(x)}: 422 for the same body`);
    if (!stored) continue;
    for (const x of group.filter((e) => e.kind === "idem-retry")) {
      if (!x.replayed || x.status !== stored.status) problems.push(`${describe(x)}: a retry after completion was not a replay of ${stored.status}`);
    }
    for (const x of group.filter((e) => e.kind === "idem-conflict")) {
      if (x.code !== "idempotency_conflict" || x.status !== 422) problems.push(`${describe(x)}: same key with a different body was not 422 idempotency_conflict`);
    }
  }
}

export function reconcile(
  accounts: Account[],
  balances: Map<string, { start: number; final: number; me: number }>,
  exchanges: Exchange[],
  rows: UsageRow[],
  idempotencyEnabled: boolean,
): Reconciliation {
  const problems: string[] = [];
  for (const x of exchanges) {
    if ((x.status === 0 || x.failure) && !cutOff(x)) problems.push(`${describe(x)}: no usable answer (${x.failure})`);
    if (x.kind === "crash-retry" && (x.replayed || x.status === 409 || x.status === 0)) {
      problems.push(`${describe(x)}: the Idempotency-Key of an interrupted call was not released (a retry must run)`);
    }
    if (x.lowestCredits !== undefined && x.lowestCredits < 0) problems.push(`${describe(x)}: reported a negative balance ${x.lowestCredits}`);
    // Every key of the run is valid and every route exists (the probe asks whether batch does).
    if (x.status === 401 || (x.status === 404 && x.kind !== "probe")) problems.push(`${describe(x)}: unexpected ${x.status}`);
  }
  const { byId, byProbe, orphans } = rowsByExchange(exchanges, rows);
  for (const row of orphans) problems.push(`log entry ${row.request_id} (${row.tool}, ${row.status_code}) belongs to no answer this run received`);
  for (const row of rows) if (row.interrupted === 1 && !byProbe.has(row.prompt)) problems.push(`log entry ${row.request_id}: interrupted, but no call was cut off`);
  let matched = 0;
  let interrupted = 0;
  for (const x of exchanges) {
    if (cutOff(x) && checkCutOff(x, byProbe.get(x.probe!) ?? [], problems)) interrupted++;
    if (x.status === 0) continue;
    if (!x.requestId) {
      problems.push(`${describe(x)}: no X-Request-Id`);
      continue;
    }
    checkAnswer(x, byId.get(x.requestId) ?? [], problems);
    matched++;
  }
  checkBursts(exchanges, problems);
  checkIdempotency(exchanges, byId, idempotencyEnabled, problems);

  const lines: AccountLine[] = accounts.map((account) => {
    const own = rows.filter((row) => row.account_id === account.id);
    const keys = new Set(account.keys.map((key) => key.prefix));
    const sent = exchanges.filter((x) => keys.has(x.key.prefix));
    const { start, final, me } = balances.get(account.id)!;
    const line: AccountLine = {
      account,
      start,
      final,
      spent: start - final,
      deducted: own.reduce((sum, row) => sum + row.credits_deducted, 0),
      refunded: own.reduce((sum, row) => sum + row.credits_refunded, 0),
      entries: own.length,
      expectedEntries: sent.reduce((sum, x) => sum + expectedEntries(x), 0),
    };
    const label = `account ${account.id} (${account.kind})`;
    if (final < 0) problems.push(`${label}: final balance ${final} is negative`);
    if (me !== final) problems.push(`${label}: GET /v1/me says ${me}, the ledger says ${final}`);
    if (line.spent !== line.deducted - line.refunded) problems.push(`${label}: spent ${line.spent} but the log nets ${line.deducted - line.refunded} (${line.deducted} - ${line.refunded})`);
    if (line.entries !== line.expectedEntries) problems.push(`${label}: ${line.entries} log entries, the answers call for ${line.expectedEntries}`);
    return line;
  });
  return { problems, accounts: lines, matched, interrupted };
}
