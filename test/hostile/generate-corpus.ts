// Writes the hostile-input corpus (corpus.ts) to disk so a person can look at it:
//
//   npx node test/hostile/generate-corpus.ts [outDir]      (default: test-output/hostile, gitignored)
//
// `npx node` runs the project's Node 22 (package.json devDependency), which runs this .ts file
// directly. The corpus is built by the same code the tests use (hostile-inputs.test.ts), with the
// worker's own encoders; node-codec-loader.ts teaches Node to load their .wasm imports.
//
// Output: one file per case under hostile/ and accepted/ (the raw bytes, or a .txt holding the
// exact `image` value for URL and malformed-base64 cases), and manifest.json describing each case:
// name, group, why, file, size, sha256, how it is sent, and the expected answer.

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

register(new URL("./node-codec-loader.ts", import.meta.url));
const { buildCorpus } = (await import("./corpus.ts")) as typeof import("./corpus.ts");

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const outDir = path.resolve(process.argv[2] ?? path.join(root, "test-output", "hostile"));

function sentAs(image: string): "data-uri" | "url" | "base64" | "empty" {
  const text = image.trim();
  if (text === "") return "empty";
  if (/^data:/i.test(text)) return "data-uri";
  if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(text)) return "url";
  return "base64";
}

const started = Date.now();
const corpus = await buildCorpus();
const manifest: Record<string, unknown>[] = [];
for (const [kind, cases] of [["hostile", corpus.hostile], ["accepted", corpus.accepted]] as const) {
  mkdirSync(path.join(outDir, kind), { recursive: true });
  for (const c of cases) {
    const bytes = c.bytes ?? new TextEncoder().encode(c.image);
    const file = `${kind}/${c.name}.${c.bytes ? (c.ext ?? "bin") : "txt"}`;
    writeFileSync(path.join(outDir, file), bytes);
    manifest.push({
      kind,
      name: c.name,
      group: c.group,
      why: c.why,
      file,
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      sentAs: sentAs(c.image),
      // The exact `image` value when it is short (URLs, malformed base64); otherwise the file is
      // the payload and the value is its data URI or base64.
      image: c.image.length <= 300 ? c.image : `${c.image.slice(0, 80)}... (${c.image.length} characters)`,
      expect: c.expect,
      ...("maxMs" in c && c.maxMs !== undefined ? { maxMs: c.maxMs } : {}),
    });
  }
}
writeFileSync(path.join(outDir, "manifest.json"), `${JSON.stringify({ generatedBy: "test/hostile/generate-corpus.ts", cases: manifest }, null, 2)}\n`);
console.log(
  `Wrote ${corpus.hostile.length} hostile and ${corpus.accepted.length} accepted cases (${manifest.length} files + manifest.json) to ${outDir} in ${Date.now() - started} ms.`,
);
