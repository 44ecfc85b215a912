// Module hooks that let plain Node (22+) load the worker's codec modules, for generate-corpus.ts.
// Registered with module.register(); never loaded by the worker or by vitest.
//
// Two things Node cannot do on its own here:
// - `import wasm from "....wasm"`: the worker's bundler (and workerd) hand the codecs a compiled
//   WebAssembly.Module; here the file is read and compiled the same way.
// - TypeScript beyond type stripping: src/ uses `const enum` and constructor parameter
//   properties, which Node's built-in stripping refuses, so project .ts files are transpiled with
//   the project's own TypeScript compiler instead.

import { readFileSync } from "node:fs";
import type { LoadHook } from "node:module";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const load: LoadHook = async (url, context, nextLoad) => {
  if (url.startsWith("file:") && url.endsWith(".wasm")) {
    const source = `import { readFileSync } from "node:fs";\nexport default new WebAssembly.Module(readFileSync(new URL(${JSON.stringify(url)})));\n`;
    return { format: "module", source, shortCircuit: true };
  }
  if (url.startsWith("file:") && url.endsWith(".ts") && !url.includes("/node_modules/")) {
    const path = fileURLToPath(url);
    const { outputText } = ts.transpileModule(readFileSync(path, "utf8"), {
      fileName: path,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
        allowImportingTsExtensions: true,
      },
    });
    return { format: "module", source: outputText, shortCircuit: true };
  }
  return nextLoad(url, context);
};
