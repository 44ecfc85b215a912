import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CLI_VERSION } from "../client.ts";
import { localArguments, localTool, saveResult } from "./local-files.ts";
import { RemoteTools } from "./remote.ts";

// `pixelgate mcp`: a stdio MCP server for clients that launch local processes (Claude Desktop,
// Claude Code, Cursor). It re-exposes the remote endpoint's tools and forwards every call there,
// adding only local file handling. stdout carries protocol messages only; notes go to stderr.

export interface StdioServerOptions {
  baseUrl: string;
  apiKey: string;
  saveDir?: string;
}

/** Model calls can take a minute upstream; the SDK's 60 s default would cut them off. */
const CALL_TIMEOUT_MS = 5 * 60_000;

const INSTRUCTIONS = [
  "Pixelgate image tools: generate, edit, cut out, upscale, vectorise, compress and convert images, paid in credits from one balance.",
  "Image arguments take https URLs, data URIs, or paths of local files. Call get_user_info to see the balance and list_models for model ids and prices.",
].join(" ");

async function allTools(remote: RemoteTools): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await remote.use((client) => client.listTools(cursor ? { cursor } : undefined));
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

export function createStdioServer(options: StdioServerOptions): { server: Server; remote: RemoteTools } {
  const remote = new RemoteTools(options);
  const saveDir = options.saveDir ? path.resolve(options.saveDir) : undefined;
  const server = new Server({ name: "pixelgate", version: CLI_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await allTools(remote)).map((tool) => localTool(tool, saveDir)),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const result = (await remote.use(async (client) =>
      client.callTool({ name, arguments: await localArguments(args) }, undefined, { timeout: CALL_TIMEOUT_MS }),
    )) as CallToolResult;
    return saveDir ? saveResult(name, result, saveDir) : result;
  });

  return { server, remote };
}

export async function runStdioServer(options: StdioServerOptions): Promise<void> {
  const { server, remote } = createStdioServer(options);
  const stop = async () => {
    await Promise.allSettled([server.close(), remote.close()]);
    process.exit(0);
  };
  // The client closing our stdin is how it says goodbye; signals come from process managers.
  process.stdin.on("end", stop);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  await server.connect(new StdioServerTransport());
  process.stderr.write(`pixelgate mcp: serving the tools of ${remote.endpoint.href} over stdio${options.saveDir ? `, saving results into ${path.resolve(options.saveDir)}` : ""}\n`);
}
