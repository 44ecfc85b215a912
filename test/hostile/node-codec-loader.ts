// Module hooks that let plain Node (22+) load the worker's codec modules, for generate-corpus.ts.
// Registered with module.register(); never loaded by the worker or by vitest.
//
// Three things Node cannot do on its own here (and a fourth for scripts/bench-compare.ts: a module
// imported with `?unmetered` gets the codecs' WASM with the fuel draws taken out, wasm-fuel.ts):
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
  // A module imported as `...?unmetered` (scripts/bench-compare.ts) imports its own files so too.
  const unmetered = context.parentURL?.endsWith(UNMETERED) && resolved.url.startsWith("file:") && !resolved.url.includes("?");
  return unmetered ? { ...resolved, url: resolved.url + UNMETERED, shortCircuit: true } : resolved;
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

/** The query that loads a module, and every file it imports, with the codecs' WASM unmetered. */
const UNMETERED = "?unmetered";
const WASM_FUEL = new URL("../../scripts/wasm-fuel.ts", import.meta.url).href;

export const load: LoadHook = async (url, context, nextLoad) => {
  const file = url.startsWith("file:") ? new URL(url) : null;
  if (file?.pathname.endsWith(".wasm")) {
    const unmetered = file.search === UNMETERED;
    file.search = "";
    const bytes = `readFileSync(new URL(${JSON.stringify(file.href)}))`;
    const source = unmetered
      ? `import { readFileSync } from "node:fs";\nimport { unmeteredCopy } from ${JSON.stringify(WASM_FUEL)};\nexport default new WebAssembly.Module(unmeteredCopy(${bytes}));\n`
      : `import { readFileSync } from "node:fs";\nexport default new WebAssembly.Module(${bytes});\n`;
    return { format: "module", source, shortCircuit: true };
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
