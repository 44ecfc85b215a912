// Module hooks that let plain Node (22+) load the worker's codec modules, for generate-corpus.ts.
// Registered with module.register(); never loaded by the worker or by vitest.
//
// Three things Node cannot do on its own here (and a fourth for the benchmarks: a module imported
// with `?unmetered` gets the codecs' WASM with the fuel's charges and draws taken out,
// wasm-fuel.ts, for bench-compare.ts; with `?loop-turns`, with a turn counter on each loop,
// wasm-loop-turns.ts, for bench-loops.ts):
// - extensionless relative imports, which the bundler resolves to `.ts` files;
// - `import wasm from "....wasm"`: the worker's bundler (and workerd) hand the codecs a compiled
//   WebAssembly.Module; here the file is read and compiled the same way.
// - TypeScript beyond type stripping: src/ uses `const enum` and constructor parameter
//   properties, which Node's built-in stripping refuses, so project .ts files are transpiled with
//   the project's own TypeScript compiler instead.

import { existsSync, readFileSync } from "node:fs";
import type { LoadHook, ResolveHook } from "node:module";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * Extensionless relative imports (`../errors`, as the worker's bundler allows outside the codec
 * layer) resolve to the `.ts` file, or the folder's index.ts.
 */
export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await resolveFile(specifier, context, nextResolve);
  // A module imported as `...?unmetered` or `...?loop-turns` imports its own files so too.
  const variant = VARIANTS.find((query) => context.parentURL?.endsWith(query));
  const inherits = variant && resolved.url.startsWith("file:") && !resolved.url.includes("?");
  return inherits ? { ...resolved, url: resolved.url + variant, shortCircuit: true } : resolved;
};

const resolveFile: ResolveHook = async (specifier, context, nextResolve) => {
  if (specifier.startsWith(".") && !/\.[a-z]+$/.test(specifier) && context.parentURL?.startsWith("file:")) {
    for (const suffix of [".ts", "/index.ts"]) {
      const candidate = new URL(specifier + suffix, context.parentURL);
      candidate.search = "";
      if (existsSync(candidate)) return { url: candidate.href, shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
};

/** The queries that load a module, and every file it imports, with the codecs' WASM unmetered, or counting each loop's turns. */
const UNMETERED = "?unmetered";
const LOOP_TURNS = "?loop-turns";
const VARIANTS = [UNMETERED, LOOP_TURNS];
const WASM_FUEL = new URL("../../scripts/wasm-fuel.ts", import.meta.url).href;
const WASM_LOOP_TURNS = new URL("../../scripts/wasm-loop-turns.ts", import.meta.url).href;

/** The module source that compiles `file` (an href) as the query asks. */
function wasmSource(file: string, query: string): string {
  const bytes = `readFileSync(new URL(${JSON.stringify(file)}))`;
  if (query === UNMETERED) return `import { readFileSync } from "node:fs";\nimport { unmeteredCopy } from ${JSON.stringify(WASM_FUEL)};\nexport default new WebAssembly.Module(unmeteredCopy(${bytes}));\n`;
  if (query === LOOP_TURNS) {
    // Each compiled module's loop sites, found by the module (scripts/bench-loops.ts reads them).
    return `import { readFileSync } from "node:fs";\nimport { withLoopCounters } from ${JSON.stringify(WASM_LOOP_TURNS)};\nconst { module, loops } = withLoopCounters(${bytes});\nconst compiled = new WebAssembly.Module(module);\n(globalThis.pixelgateLoopSites ??= new Map()).set(compiled, { file: ${JSON.stringify(file.split("/").pop())}, loops });\nexport default compiled;\n`;
  }
  return `import { readFileSync } from "node:fs";\nexport default new WebAssembly.Module(${bytes});\n`;
}

export const load: LoadHook = async (url, context, nextLoad) => {
  const file = url.startsWith("file:") ? new URL(url) : null;
  if (file?.pathname.endsWith(".wasm")) {
    const query = file.search;
    file.search = "";
    return { format: "module", source: wasmSource(file.href, query), shortCircuit: true };
  }
  if (file?.pathname.endsWith(".ts") && !file.pathname.includes("/node_modules/")) {
    const path = fileURLToPath(file);
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
