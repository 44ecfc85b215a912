// Reads and writes src/codecs/route-costs.json, the cost table the codec planner reads
// (src/codecs/recode-cost.ts): one entry per line, sorted, so two branches that each add a row's
// terms or a case's peak merge without touching each other's lines.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RouteCostTable } from "../../src/codecs/recode-cost.ts";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const ROUTE_COSTS = path.join(ROOT, "src/codecs/route-costs.json");

export function readRouteCosts(): RouteCostTable {
  return JSON.parse(readFileSync(ROUTE_COSTS, "utf8")) as RouteCostTable;
}

/** An object of entries, one `"key": value` line each, in key order. */
function entries(object: Record<string, unknown>, indent: string): string {
  const keys = Object.keys(object).sort();
  return `{\n${keys.map((key) => `${indent} ${JSON.stringify(key)}: ${JSON.stringify(object[key])}`).join(",\n")}\n${indent}}`;
}

/** The table as committed: each term, output, WebP, grid AVIF and resize figure, read limit and peak on a line of its own. */
export function formatRouteCosts(table: RouteCostTable): string {
  const peaks = [...table.peaks].sort((a, b) => a.case.localeCompare(b.case) || a.megapixels - b.megapixels);
  const lines = [
    "{",
    ` "about": ${JSON.stringify(table.about)},`,
    ` "margin": ${JSON.stringify(table.margin)},`,
    ` "rampPerPixel": ${JSON.stringify(table.rampPerPixel)},`,
    ` "avifCells": ${entries(table.avifCells as unknown as Record<string, unknown>, " ")},`,
    ` "resize": ${entries(table.resize as unknown as Record<string, unknown>, " ")},`,
    ` "terms": ${entries(table.terms, " ")},`,
    ` "outputs": ${entries(table.outputs, " ")},`,
    ` "webp": ${entries(table.webp as unknown as Record<string, unknown>, " ")},`,
    ` "readLimit": ${entries(table.readLimit, " ")},`,
    ` "peaks": [\n${peaks.map((p) => `  ${JSON.stringify(p)}`).join(",\n")}\n ]`,
    "}",
    "",
  ];
  return lines.join("\n");
}

export function writeRouteCosts(table: RouteCostTable): void {
  writeFileSync(ROUTE_COSTS, formatRouteCosts(table));
}
