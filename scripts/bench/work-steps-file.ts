// Writes src/codecs/work-steps.json, the work budget's table (src/codecs/work-steps.ts), from the
// memory bench (`npm run bench:codecs -- --write` or `--write-work`): each case's loop turns
// (what its codecs spent of the metered fuel, scripts/wasm-fuel.ts) beside the pixels its work
// reads and writes. A case measured again replaces its entry at that size; the others stay, so a
// run of a few cases keeps what the rest measured. The floor is the most any case whose work is a
// quarter megapixel or less spent (a codec's set-up, a palette's search: work a small picture does
// whatever its size); a route's rate is the largest turns-per-pixel of its larger cases, a kind's
// (`<kind> *`) the largest of all its larger cases. Every recorded case then fits within its
// floor plus its rate times its pixels, and a call may spend `margin` times that.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { WorkKind, WorkStepsTable } from "../../src/codecs/work-steps.ts";

export const WORK_STEPS_FILE = path.resolve(import.meta.dirname, "../../src/codecs/work-steps.json");

/** Cases whose work reads and writes this few pixels (the bench's quarter megapixel) measure the floor, not a rate. */
const SMALL_PIXELS = 300_000;

export interface MeasuredWork {
  case: string;
  megapixels: number;
  kind: WorkKind;
  /** compress's and convert's `<input>><target>`. */
  route?: string;
  pixels: number;
  steps: number;
}

export function writeWorkSteps(measured: MeasuredWork[], date: string): WorkStepsTable {
  const table = JSON.parse(readFileSync(WORK_STEPS_FILE, "utf8")) as WorkStepsTable;
  const fresh = new Set(measured.map((m) => `${m.case}@${m.megapixels}`));
  const recorded = measured.map(({ kind, route, ...m }) => ({ ...m, rate: `${kind} ${route ?? "*"}`, measured: date }));
  const cases = [...table.cases.filter((c) => !fresh.has(`${c.case}@${c.megapixels}`)), ...recorded];
  cases.sort((a, b) => a.case.localeCompare(b.case) || a.megapixels - b.megapixels);
  const perPixel: Record<string, number> = {};
  const raise = (key: string, rate: number) => {
    perPixel[key] = Math.max(perPixel[key] ?? 0, Math.ceil(rate * 100) / 100);
  };
  let floor = 0;
  for (const c of cases) {
    if (c.pixels <= SMALL_PIXELS) floor = Math.max(floor, c.steps);
    else {
      raise(c.rate, c.steps / c.pixels);
      raise(`${c.rate.split(" ")[0]} *`, c.steps / c.pixels);
    }
  }
  const next: WorkStepsTable = { ...table, floor: floor || table.floor, perPixel: { ...table.perPixel, ...perPixel }, cases };
  const keys = Object.keys(next.perPixel).sort();
  const lines = [
    "{",
    ` "about": ${JSON.stringify(next.about)},`,
    ` "margin": ${JSON.stringify(next.margin)},`,
    ` "floor": ${JSON.stringify(next.floor)},`,
    ` "perPixel": {\n${keys.map((k) => `  ${JSON.stringify(k)}: ${next.perPixel[k]}`).join(",\n")}\n },`,
    ` "cases": [\n${cases.map((c) => `  ${JSON.stringify(c)}`).join(",\n")}\n ]`,
    "}",
    "",
  ];
  writeFileSync(WORK_STEPS_FILE, lines.join("\n"));
  return next;
}
