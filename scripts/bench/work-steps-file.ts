// Writes src/codecs/work-steps.json, the work budget's table (src/codecs/work-steps.ts), from the
// memory bench (`npm run bench:codecs -- --write`): each case's loop turns (what its codecs spent
// of the metered fuel, scripts/wasm-fuel.ts) beside the bytes the memory gate admitted it with.
// A case measured again replaces its entry at that size; the others stay, so a run of a few
// cases keeps what the rest measured. A kind's rate is the largest turns-per-admitted-byte of any
// recorded case of that kind: every case measured fits its rate, and a call's budget is
// `margin` times that.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { WorkKind, WorkStepsTable } from "../../src/codecs/work-steps.ts";

export const WORK_STEPS_FILE = path.resolve(import.meta.dirname, "../../src/codecs/work-steps.json");

export interface MeasuredWork {
  kind: WorkKind;
  case: string;
  megapixels: number;
  steps: number;
  admitted: number;
}

export function writeWorkSteps(measured: MeasuredWork[], date: string): WorkStepsTable {
  const table = JSON.parse(readFileSync(WORK_STEPS_FILE, "utf8")) as WorkStepsTable;
  const fresh = new Set(measured.map((m) => `${m.case}@${m.megapixels}`));
  const cases = [...table.cases.filter((c) => !fresh.has(`${c.case}@${c.megapixels}`)), ...measured.map((m) => ({ ...m, measured: date }))];
  cases.sort((a, b) => a.case.localeCompare(b.case) || a.megapixels - b.megapixels);
  const rates = { ...table.perAdmittedByte };
  for (const kind of Object.keys(rates) as WorkKind[]) {
    const ofKind = cases.filter((c) => c.kind === kind);
    if (ofKind.length) rates[kind] = Math.ceil(Math.max(...ofKind.map((c) => c.steps / c.admitted)) * 100) / 100;
  }
  const next: WorkStepsTable = { ...table, perAdmittedByte: rates, cases };
  const lines = [
    "{",
    ` "about": ${JSON.stringify(next.about)},`,
    ` "margin": ${JSON.stringify(next.margin)},`,
    ` "floor": ${JSON.stringify(next.floor)},`,
    ` "perAdmittedByte": ${JSON.stringify(next.perAdmittedByte)},`,
    ` "cases": [\n${cases.map((c) => `  ${JSON.stringify(c)}`).join(",\n")}\n ]`,
    "}",
    "",
  ];
  writeFileSync(WORK_STEPS_FILE, lines.join("\n"));
  return next;
}
