// `npm run cli:facts`: rewrites src/cli/tool-facts.ts from the OpenAPI document of a local
// worker (started here on free ports, stopped after), so the CLI's prices, choices and limits
// are the tool definitions' own. Run it after changing a tool's schema or price.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { factsModule, toolFactsOf, type OpenApiDocument } from "../src/cli/openapi-facts.ts";
import { REPO_ROOT, startLocalWorker } from "./bench/processes.ts";

const persistTo = mkdtempSync(path.join(os.tmpdir(), "pixelgate-cli-facts-"));
const worker = await startLocalWorker({ label: "cli facts", config: path.join(REPO_ROOT, "wrangler.toml"), persistTo, readyPath: "/v1" });
try {
  const doc = (await (await fetch(`${worker.baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
  const target = path.join(REPO_ROOT, "src/cli/tool-facts.ts");
  writeFileSync(target, factsModule(toolFactsOf(doc)));
  console.log(`Wrote ${path.relative(REPO_ROOT, target)}.`);
} finally {
  await worker.group.stop(3_000);
  rmSync(persistTo, { recursive: true, force: true });
}
