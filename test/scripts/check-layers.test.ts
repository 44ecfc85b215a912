import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { layerProblems, runtimeImports } from "../../scripts/check-layers.ts";

// The import-boundary check against small trees of its own (npm test runs it on the repository
// itself: npm run check:layers).

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), "layers-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  mkdirSync(path.join(root, "durable-objects"), { recursive: true });
  return root;
}

describe("the layer check", () => {
  it("refuses a runtime import that looks up, and a file in no layer", () => {
    const root = tree({
      "src/storage/results.ts": 'import { toolOf } from "../tools/registry";\nexport const x = toolOf;\n',
      "src/tools/registry.ts": 'import { x } from "../storage/results";\nexport const toolOf = x;\n',
      "src/gadgets/thing.ts": "export const thing = 1;\n",
    });
    expect(layerProblems(root)).toEqual([
      "src/gadgets/thing.ts: in no layer; add its folder to LAYERS in scripts/check-layers.ts",
      "src/storage/results.ts (storage) imports ../tools/registry (tools): layers only look down",
    ]);
  });

  it("counts imports, re-exports and import() at run time, and leaves type-only ones out", () => {
    const text = [
      'import type { A } from "./a";',
      'import { type B, type C } from "./b";',
      'import { D, type E } from "./d";',
      'import "./side-effect";',
      'export { F } from "./f";',
      'export type { G } from "./g";',
      'const h = await import("./h");',
      'import { z } from "zod";',
    ].join("\n");
    expect(runtimeImports(text, "x.ts")).toEqual(["./d", "./side-effect", "./f", "./h"]);
  });
});
