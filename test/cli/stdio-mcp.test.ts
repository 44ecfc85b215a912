// `pixelgate mcp` spawned by the MCP SDK's own StdioClientTransport, against the local server:
// it must offer exactly the remote endpoint's tools, forward calls (billed and logged as mcp),
// read local image paths, and save results with --save-dir.
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, baseUrl, CLI, getJson, newKey, pngSize, runCli, tempDir, testPng } from "./support.ts";

const TOOL_NAMES = [
  "compress_image", "convert_format", "edit_image", "generate_image", "generate_transparent_image", "get_user_info",
  "list_models", "multicall", "remove_background", "text_to_svg", "upscale_image",
];

let key: string;
let photo: string;
let saveDir: string;
let local: Client;
let remote: Client;
let stderr = "";

beforeAll(async () => {
  key = await newKey("CLI stdio MCP", 500);
  const dir = tempDir();
  photo = path.join(dir, "photo.png");
  saveDir = path.join(dir, "saved");
  await writeFile(photo, testPng(80, 60));

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--save-dir", saveDir],
    env: { PATH: process.env.PATH ?? "", PIXELGATE_URL: baseUrl(), PIXELGATE_API_KEY: key },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  local = new Client({ name: "stdio-test", version: "1.0.0" });
  await local.connect(transport);

  remote = new Client({ name: "remote-test", version: "1.0.0" });
  await remote.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl()}/mcp`), { requestInit: { headers: { "x-api-key": key } } }));
});

afterAll(async () => {
  await Promise.allSettled([local?.close(), remote?.close()]);
});

const textOf = (result: CallToolResult) => result.content.filter((block) => block.type === "text").map((block) => (block as { text: string }).text).join("\n");

describe("pixelgate mcp (stdio)", () => {
  it("offers the remote endpoint's tools with the same schemas and annotations", async () => {
    const [mine, theirs] = [(await local.listTools()).tools, (await remote.listTools()).tools];
    expect(mine.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
    const byName = new Map<string, Tool>(theirs.map((tool) => [tool.name, tool]));
    for (const tool of mine) {
      const original = byName.get(tool.name)!;
      expect(tool.inputSchema, tool.name).toEqual(original.inputSchema);
      expect(tool.annotations, tool.name).toEqual(original.annotations);
      expect(tool.description, tool.name).toContain(original.description ?? "");
    }
    const upscale = mine.find((tool) => tool.name === "upscale_image")!;
    expect(Object.keys(upscale.inputSchema.properties ?? {})).toContain("scale");
    expect(upscale.description).toContain("may also be paths of files on this machine");
    expect(mine.find((tool) => tool.name === "list_models")!.description).not.toContain("paths of files");
    expect(stderr).toContain("pixelgate mcp: serving the tools of");
  });

  it("text_to_svg: the result is forwarded and the SVG saved into --save-dir", async () => {
    const before = await balanceOf(key);
    const result = (await local.callTool({ name: "text_to_svg", arguments: { prompt: "a green leaf" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { svgCode: string; deductedCredits: number; userCredits: number };
    expect(structured.deductedCredits).toBe(5);
    expect(await balanceOf(key)).toBe(before - 5);
    const saved = /Saved to (\S+\.svg)/.exec(textOf(result))?.[1];
    expect(saved && path.dirname(saved)).toBe(saveDir);
    expect(await readFile(saved!, "utf8")).toBe(structured.svgCode);
  });

  it("generate_image with a local file path as the reference image saves the PNG", async () => {
    const result = (await local.callTool({ name: "generate_image", arguments: { prompt: "a red balloon", image: photo, aspectRatio: "4:3" } })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ hasInputImage: true, referenceImagesCount: 1, aspectRatio: "4:3" });
    const saved = /Saved to (\S+\.png)/.exec(textOf(result))?.[1];
    expect(pngSize(await readFile(saved!))).toMatchObject({ width: 1024, height: 768 });
    expect(result.content.some((block) => block.type === "image")).toBe(true);
  });

  it("upscale_image takes `scale` and a local path; the saved file is exactly twice the size", async () => {
    const result = (await local.callTool({ name: "upscale_image", arguments: { image: photo, scale: "2x" } })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    const saved = /Saved to (\S+\.png)/.exec(textOf(result))?.[1];
    expect(pngSize(await readFile(saved!))).toMatchObject({ width: 160, height: 120 });
  });

  it("a recoverable failure comes back as an isError result, and nothing is saved", async () => {
    const files = await readdir(saveDir);
    const result = (await local.callTool({ name: "compress_image", arguments: { image: "https://127.0.0.1/none.png" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Failed with \w+ \(HTTP 400\)/);
    expect(await readdir(saveDir)).toEqual(files);
  });

  it("a local image path that names no file is refused here, saying so, before anything is sent", async () => {
    const before = await balanceOf(key);
    const missing = path.join(path.dirname(photo), "no-such-photo.png");
    const result = (await local.callTool({ name: "compress_image", arguments: { image: missing } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`image: cannot read the local file ${missing} (no such file)`);
    expect(result.structuredContent).toMatchObject({ error: { code: "invalid_parameter", param: "image" }, status: 400 });
    const inBatch = (await local.callTool({
      name: "multicall",
      arguments: { requests: [{ tool: "text_to_svg", args: { prompt: "a sun" } }, { tool: "upscale_image", args: { image: "~/no-such-dir/a.png" } }] },
    })) as CallToolResult;
    expect(inBatch.structuredContent).toMatchObject({ error: { param: "requests.1.args.image" } });
    expect(await balanceOf(key)).toBe(before);
  });

  it("the calls are logged with source mcp", async () => {
    const { logs } = await getJson<{ logs: { tool: string; source: string }[] }>("/v1/usage?limit=10", key);
    expect(logs.map((entry) => [entry.tool, entry.source])).toEqual([
      ["compress_image", "mcp"],
      ["upscale_image", "mcp"],
      ["generate_image", "mcp"],
      ["text_to_svg", "mcp"],
    ]);
  });

  it("multicall: local paths inside items are read, and each successful item is saved", async () => {
    const result = (await local.callTool({
      name: "multicall",
      arguments: { requests: [{ tool: "compress_image", args: { image: photo, targetFormat: "png" } }, { tool: "text_to_svg", args: { prompt: "a sun" } }] },
    })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    const saved = [...textOf(result).matchAll(/Saved to (\S+)/g)].map((match) => path.basename(match[1]!));
    expect(saved).toEqual([expect.stringMatching(/^01-compress_image-.*\.png$/), expect.stringMatching(/^02-text_to_svg-.*\.svg$/)]);
    expect(pngSize(await readFile(path.join(saveDir, saved[0]!)))).toMatchObject({ width: 80, height: 60 });
  });

  it("a --save-dir that stops taking files refuses billed calls before they are sent; lookups still work", async () => {
    const dir = path.join(tempDir(), "results");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--save-dir", dir],
      env: { PATH: process.env.PATH ?? "", PIXELGATE_URL: baseUrl(), PIXELGATE_API_KEY: key },
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-save-dir", version: "1.0.0" });
    await client.connect(transport);
    try {
      await rm(dir, { recursive: true });
      await writeFile(dir, "a file where the directory was");
      const before = await balanceOf(key);
      const result = (await client.callTool({ name: "text_to_svg", arguments: { prompt: "a kite" } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Failed with save_dir_not_writable before anything was sent \(nothing was charged\): --save-dir .*results/);
      expect(await balanceOf(key)).toBe(before);
      expect(((await client.callTool({ name: "get_user_info", arguments: {} })) as CallToolResult).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("a --save-dir that cannot be made is said at start (exit 2), before any call", async () => {
    const run = await runCli(["mcp", "--save-dir", path.join(photo, "results")], { key });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--save-dir .*: cannot create the directory/);
    expect(run.stdout).toBe("");
  });

  it("without PIXELGATE_API_KEY it exits 3 with a message on stderr and nothing on stdout", async () => {
    const run = await runCli(["mcp"]);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("PIXELGATE_API_KEY is not set");
  });
});
