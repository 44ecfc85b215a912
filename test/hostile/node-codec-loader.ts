// Module hooks that let plain Node (22+) load the worker's codec modules, for generate-corpus.ts.
// Registered with module.register(); never loaded by the worker or by vitest.
//
// Three things Node cannot do on its own here:
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
  if (specifier.startsWith(".") && !/\.[a-z]+$/.test(specifier) && context.parentURL?.startsWith("file:")) {
    for (const suffix of [".ts", "/index.ts"]) {
      const candidate = new URL(specifier + suffix, context.parentURL);
      if (existsSync(candidate)) return { url: candidate.href, shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
};

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
