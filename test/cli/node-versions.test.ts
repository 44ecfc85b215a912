// The `pixelgate` bin runs on the oldest Node the project names (package.json engines, the
// README): the compiled JavaScript that `npm install` builds (npm run build:cli), run here by a
// real Node of that major version, as Claude Desktop's `"command": "node"` would run it.
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, newKey, runCli, tempDir } from "./support.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { bin: { pixelgate: string }; engines: { node: string } };
const MINIMUM_MAJOR = Number(/^>=(\d+)$/.exec(manifest.engines.node)?.[1]);

/** A Node of the minimum major version: PIXELGATE_TEST_OLDEST_NODE, or the first on PATH outside node_modules. */
function oldestNode(): string | undefined {
  const candidates = [process.env.PIXELGATE_TEST_OLDEST_NODE, ...(process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes("node_modules")).map((dir) => path.join(dir, "node"))];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      if (execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim().startsWith(`v${MINIMUM_MAJOR}.`)) return candidate;
    } catch {
      // not there, or not runnable
    }
  }
  return undefined;
}

const node = oldestNode();
/** Built apart from dist/ so the test never touches what a user's npm install made. */
const outDir = path.join(REPO, "test-output", "cli-oldest-node");
const bin = path.join(outDir, "pixelgate.js");

describe("the bin as shipped", () => {
  it("package.json names the compiled bin, the README the same minimum Node as engines", async () => {
    const config = (await readFile(path.join(REPO, "tsconfig.cli.json"), "utf8")).replace(/^\s*\/\/.*$/gm, "");
    expect(manifest.bin.pixelgate).toBe(`${(JSON.parse(config) as { compilerOptions: { outDir: string } }).compilerOptions.outDir}/pixelgate.js`);
    expect(MINIMUM_MAJOR).toBe(20);
    expect(await readFile(path.join(REPO, "README.md"), "utf8")).toContain(`Needs Node.js ${MINIMUM_MAJOR} or newer`);
  });
});

describe.skipIf(node === undefined)(`the compiled bin on Node ${MINIMUM_MAJOR} (${node ?? "none found: set PIXELGATE_TEST_OLDEST_NODE"})`, () => {
  let key: string;

  beforeAll(async () => {
    await promisify(execFile)(process.execPath, [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", path.join(REPO, "tsconfig.cli.json"), "--outDir", outDir]);
    key = await newKey("CLI oldest node", 50);
  });

  it("runs commands: --version, a paid svg saved into the current folder", async () => {
    const version = await runCli(["--version"], { node, bin });
    expect(version.code, version.stderr).toBe(0);
    const cwd = tempDir();
    const svg = await runCli(["svg", "a paper boat"], { node, bin, key, cwd });
    expect(svg.code, svg.stderr).toBe(0);
    const [saved] = await readdir(cwd);
    expect(await readFile(path.join(cwd, saved!), "utf8")).toMatch(/^<svg/);
  });

  it("serves MCP over stdio, as `\"command\": \"node\"` in a client's config starts it", async () => {
    const transport = new StdioClientTransport({
      command: node!,
      args: [bin, "mcp"],
      env: { PATH: process.env.PATH ?? "", PIXELGATE_URL: baseUrl(), PIXELGATE_API_KEY: key },
      stderr: "pipe",
    });
    const client = new Client({ name: "oldest-node", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("text_to_svg");
      const result = (await client.callTool({ name: "get_user_info", arguments: {} })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ user: { credits: 45 } });
    } finally {
      await client.close();
    }
  });
});
