// The import-boundary check (part of `npm test`, as `npm run check:layers`): the service's
// layers, bottom first, in one table; a runtime import may only look down or sideways (within
// its own layer). Type-only imports are exempt: they vanish from the bundle, and the worker's
// Env type must name the types of every binding (the ledger's class, the queue's message).
// Every source file must belong to a layer, so a new folder is placed in the table on purpose.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Bottom first. An entry is a folder (every file under it) or one file; the longest match wins. */
export const LAYERS: readonly { name: string; paths: readonly string[]; why: string }[] = [
  { name: "config", paths: ["src/config", "src/ids", "src/errors.ts"], why: "settings parsed once, ids and hashes, the error catalogue" },
  // http/base64-bytes.ts is the bytes of an inline file (codecs' FileBytes as base64), used by tools.
  { name: "codecs", paths: ["src/codecs", "src/raster", "src/svg", "src/images", "src/http/base64-bytes.ts"], why: "formats, drawing, input images" },
  { name: "storage", paths: ["src/storage"], why: "hosted results in R2" },
  { name: "ledger", paths: ["src/accounts", "src/usage", "durable-objects"], why: "accounts, keys, the account ledger, the usage log" },
  { name: "payments", paths: ["src/payments"], why: "what is sold, Stripe Checkout and webhooks read into ledger steps" },
  { name: "providers", paths: ["src/models", "src/safety", "src/providers"], why: "which model serves a call, the safety screen, the adapters" },
  { name: "tools", paths: ["src/tools"], why: "one definition per tool" },
  // The request plumbing the billed-call path and every surface share (envelope, body rules, rate-limit answers).
  { name: "http", paths: ["src/http", "src/schemas"], why: "envelope, request rules, shared OpenAPI schemas" },
  { name: "billing", paths: ["src/billing"], why: "the one billed-call path, batches, Idempotency-Key" },
  { name: "auth", paths: ["src/auth"], why: "API-key, operator and session authentication, OAuth" },
  { name: "surfaces", paths: ["src/routes", "src/mcp", "src/dashboard", "src/cli", "src/index.ts", "src/env.ts"], why: "REST, MCP, dashboard, CLI" },
];

const ROOTS = ["src", "durable-objects"];
const SOURCE = /\.(ts|tsx)$/;

function layerOf(file: string): number | null {
  let best: { index: number; length: number } | null = null;
  LAYERS.forEach((layer, index) => {
    for (const entry of layer.paths) {
      const matches = file === entry || file.startsWith(`${entry}/`);
      if (matches && (!best || entry.length > best.length)) best = { index, length: entry.length };
    }
  });
  return best === null ? null : (best as { index: number }).index;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The relative module specifiers a file loads at run time (import, export ... from, import()). */
export function runtimeImports(text: string, fileName: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && !typeOnlyImport(node)) found.push(node.moduleSpecifier.text);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !typeOnlyExport(node)) found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((specifier) => specifier.startsWith("."));
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // import "x": a side effect
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function typeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}

/** The file a specifier names: as written, or with .ts, .tsx or /index.ts added. */
function moduleFile(root: string, target: string): string {
  const candidates = [target, `${target}.ts`, `${target}.tsx`, `${target}/index.ts`];
  return candidates.find((candidate) => existsSync(path.posix.join(root, candidate)) && !statSync(path.posix.join(root, candidate)).isDirectory()) ?? target;
}

/** Every runtime import that looks up the table, and every file the table does not place. */
export function layerProblems(root: string): string[] {
  const problems: string[] = [];
  for (const file of ROOTS.flatMap((dir) => sourceFiles(path.posix.join(root, dir)).map((full) => path.posix.relative(root, full)))) {
    const from = layerOf(file);
    if (from === null) {
      problems.push(`${file}: in no layer; add its folder to LAYERS in scripts/check-layers.ts`);
      continue;
    }
    for (const specifier of runtimeImports(readFileSync(path.posix.join(root, file), "utf8"), file)) {
      const to = layerOf(moduleFile(root, path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier))));
      if (to !== null && to > from) {
        problems.push(`${file} (${LAYERS[from]!.name}) imports ${specifier} (${LAYERS[to]!.name}): layers only look down`);
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = layerProblems(process.cwd());
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`\n${problems.length} import(s) against the layer order (bottom first): ${LAYERS.map((layer) => layer.name).join(" < ")}`);
    process.exit(1);
  }
  console.log(`layers: every runtime import looks down (${LAYERS.map((layer) => layer.name).join(" < ")})`);
}
