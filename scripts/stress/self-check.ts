// The reconciliation must be able to fail: after the real run, each corruption below is applied to
// a copy of the recorded answers, log and balances, and the reconciliation has to report it. A
// corruption that needs something the run did not produce (no replay, no 409) is skipped.
import type { Account } from "./accounts.ts";
import type { Exchange } from "./client.ts";
import { reconcile, type UsageRow } from "./reconcile.ts";

type Balances = Map<string, { start: number; final: number; me: number }>;

interface Data {
  exchanges: Exchange[];
  rows: UsageRow[];
  balances: Balances;
}

/** Each returns false when the data has nothing to corrupt that way. */
const CORRUPTIONS: Array<[name: string, corrupt: (d: Data) => boolean]> = [
  ["a lost log entry", (d) => {
    const at = d.rows.findIndex((row) => row.credits_deducted > 0);
    if (at < 0) return false;
    d.rows.splice(at, 1);
    return true;
  }],
  ["a charge logged twice", (d) => {
    const row = d.rows.find((r) => r.credits_deducted > 0);
    if (!row) return false;
    d.rows.push({ ...row });
    return true;
  }],
  ["a refund the ledger never made", (d) => {
    const row = d.rows.find((r) => r.credits_deducted > r.credits_refunded);
    if (!row) return false;
    row.credits_refunded += 1;
    return true;
  }],
  ["a refund the log forgot", (d) => {
    const row = d.rows.find((r) => r.credits_refunded > 0);
    if (!row) return false;
    row.credits_refunded = 0;
    return true;
  }],
  ["a credit gone from a balance", (d) => {
    const balance = [...d.balances.values()][0];
    if (!balance) return false;
    balance.final -= 1;
    balance.me -= 1;
    return true;
  }],
  ["a negative balance in an answer", (d) => {
    const x = d.exchanges.find((e) => e.lowestCredits !== undefined);
    if (!x) return false;
    x.lowestCredits = -1;
    return true;
  }],
  ["a replay that differs from the original", (d) => {
    const x = d.exchanges.find((e) => e.replayed && e.responseText);
    if (!x) return false;
    x.responseText += " ";
    return true;
  }],
  ["a 409 after the original had answered", (d) => {
    const x = d.exchanges.find((e) => e.code === "idempotency_in_progress");
    if (!x) return false;
    const span = x.receivedAt - x.sentAt;
    x.sentAt = Math.max(...d.exchanges.filter((e) => e.group === x.group).map((e) => e.receivedAt)) + 1;
    x.receivedAt = x.sentAt + span;
    return true;
  }],
  ["a burst that was never limited", (d) => {
    const limited = d.exchanges.filter((e) => e.kind === "burst" && e.status === 429);
    for (const x of limited) x.status = 400;
    return limited.length > 0;
  }],
  ["a replay that was charged", (d) => {
    const x = d.exchanges.find((e) => e.replayed && e.requestId);
    const charged = d.rows.find((r) => r.credits_deducted > 0);
    if (!x || !charged) return false;
    d.rows.push({ ...charged, request_id: x.requestId!, key_prefix: x.key.prefix });
    return true;
  }],
  ["an interrupted call that kept its credits", (d) => {
    const row = d.rows.find((r) => r.interrupted === 1 && r.credits_refunded > 0);
    if (!row) return false;
    row.credits_refunded = 0;
    return true;
  }],
  ["a call cut off by the crash with no entry", (d) => {
    const at = d.rows.findIndex((r) => r.interrupted === 1);
    if (at < 0) return false;
    d.rows.splice(at, 1);
    return true;
  }],
];

export interface SelfCheck {
  caught: string[];
  missed: string[];
  skipped: string[];
}

export function selfCheck(accounts: Account[], balances: Balances, exchanges: Exchange[], rows: UsageRow[], idempotency: boolean): SelfCheck {
  const result: SelfCheck = { caught: [], missed: [], skipped: [] };
  for (const [name, corrupt] of CORRUPTIONS) {
    const data: Data = { exchanges: structuredClone(exchanges), rows: structuredClone(rows), balances: structuredClone(balances) };
    if (!corrupt(data)) {
      result.skipped.push(name);
      continue;
    }
    const { problems } = reconcile(accounts, data.balances, data.exchanges, data.rows, idempotency);
    (problems.length > 0 ? result.caught : result.missed).push(name);
  }
  return result;
}
