import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// docs/codecs.md's route-cost tables are generated from src/codecs/route-costs.json (the terms,
// the output models, the pixel limits computed from them, every recorded peak beside its
// estimate now): the committed doc must be what the generator writes from the committed table.

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("docs/codecs.md's route-cost tables", () => {
  it("are what scripts/bench/codecs-peaks-doc.ts generates from the cost table", () => {
    const check = spawnSync(process.execPath, [path.join(ROOT, "scripts/bench/codecs-peaks-doc.ts"), "--check"], { encoding: "utf8" });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
  }, 60_000);
});
