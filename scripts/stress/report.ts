// What `npm run stress` prints: the traffic by kind and status, the credits, what the fake
// upstream injected, the reconciliation per account, and the problems (if any).
import type { Exchange } from "./client.ts";
import { expectedEntries, type Reconciliation, type UsageRow } from "./reconcile.ts";

const MAX_PROBLEMS_SHOWN = 40;

function statusLabel(x: Exchange): string {
  if (x.status === 0) return "no answer";
  if (x.replayed) return `${x.status} replay`;
  return String(x.status);
}

export function trafficTable(exchanges: Exchange[]): string[] {
  const kinds = [...new Set(exchanges.map((x) => x.kind))].sort();
  const statuses = [...new Set(exchanges.map(statusLabel))].sort();
  const lines = [`${"kind".padEnd(26)}${"total".padStart(7)}  ${statuses.map((s) => s.padStart(11)).join("")}`];
  for (const kind of kinds) {
    const own = exchanges.filter((x) => x.kind === kind);
    const cells = statuses.map((status) => String(own.filter((x) => statusLabel(x) === status).length || "").padStart(11));
    lines.push(`${kind.padEnd(26)}${String(own.length).padStart(7)}  ${cells.join("")}`);
  }
  const items = exchanges.filter((x) => x.batch && x.status === 200).flatMap((x) => x.results ?? []);
  if (items.length > 0) {
    const byStatus = new Map<number, number>();
    for (const item of items) byStatus.set(item.status, (byStatus.get(item.status) ?? 0) + 1);
    lines.push(`batch items in accepted batches: ${items.length} (${[...byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(", ")})`);
  }
  return lines;
}

export function accountTable(reconciliation: Reconciliation): string[] {
  const lines = [`${"account".padEnd(38)}${"kind".padEnd(8)}${["start", "final", "spent", "deducted", "refunded", "net log", "entries", "expected"].map((h) => h.padStart(9)).join("")}  ok`];
  for (const line of reconciliation.accounts) {
    const ok = line.spent === line.deducted - line.refunded && line.entries === line.expectedEntries && line.final >= 0;
    const cells = [line.start, line.final, line.spent, line.deducted, line.refunded, line.deducted - line.refunded, line.entries, line.expectedEntries];
    lines.push(`${line.account.id.padEnd(38)}${line.account.kind.padEnd(8)}${cells.map((c) => String(c).padStart(9)).join("")}  ${ok ? "yes" : "NO"}`);
  }
  return lines;
}

export function creditTotals(rows: UsageRow[], exchanges: Exchange[]) {
  const deducted = rows.reduce((sum, row) => sum + row.credits_deducted, 0);
  const refunded = rows.reduce((sum, row) => sum + row.credits_refunded, 0);
  return {
    answers: exchanges.length,
    entries: rows.length,
    expectedEntries: exchanges.reduce((sum, x) => sum + expectedEntries(x), 0),
    deducted,
    refunded,
    net: deducted - refunded,
    refundedEntries: rows.filter((row) => row.credits_refunded > 0).length,
    lowestReportedBalance: Math.min(...exchanges.map((x) => x.lowestCredits ?? Number.POSITIVE_INFINITY)),
  };
}

export function problemLines(problems: string[]): string[] {
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `  - ${p}`);
  if (problems.length > MAX_PROBLEMS_SHOWN) shown.push(`  ... and ${problems.length - MAX_PROBLEMS_SHOWN} more`);
  return shown;
}

/** "fake/chaos-p25-s11: image 40, hang 3, ..." from the fake's "<model> <outcome>" counts. */
export function tallyLines(tally: ReadonlyMap<string, number>): string[] {
  const byModel = new Map<string, string[]>();
  for (const [what, count] of [...tally].sort()) {
    const [model, outcome] = what.split(" ");
    byModel.set(model!, [...(byModel.get(model!) ?? []), `${outcome} ${count}`]);
  }
  return [...byModel].map(([model, outcomes]) => `${model}: ${outcomes.join(", ")}`);
}
