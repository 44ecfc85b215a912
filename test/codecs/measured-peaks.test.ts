// What `npm run bench:codecs -- --write` last measured (src/codecs/measured-peaks.json): every
// case's peak memory, whole request, beside the estimate the memory gate admitted it with and
// the route table's row that ran it. A figure lowered below what was measured, or a data file
// written with a case over its estimate, fails here.

import { describe, expect, it } from "vitest";
import measured from "../../src/codecs/measured-peaks.json";
import { RESIZE_ROUTE_NAMES } from "../../src/codecs/resize.ts";
import { ROUTE_ROWS } from "../../src/codecs/route-table.ts";

const MiB = 2 ** 20;

describe("measured peaks against their estimates", () => {
  it("the data file holds cases, each run by a row of the route table, a resize's route, a tool case or the general path", () => {
    expect(measured.cases.length).toBeGreaterThan(0);
    // "upscale" and "preview": the tool cases (scripts/bench/codecs-cases.ts ToolCase).
    const rows = new Set([...ROUTE_ROWS.map((row) => row.name), ...RESIZE_ROUTE_NAMES.map((name) => `resize: ${name}`), "general", "upscale", "preview"]);
    for (const c of measured.cases) expect(rows, `${c.id} @ ${c.megapixels} MP`).toContain(c.row);
  });

  it("every recorded peak is at or under its estimate", () => {
    const over = measured.cases.filter((c) => c.peak > c.estimate).map((c) => `${c.id} @ ${c.megapixels} MP: ${(c.peak / MiB).toFixed(1)} > ${(c.estimate / MiB).toFixed(1)} MiB`);
    expect(over).toEqual([]);
  });
});
