import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CLI_VERSION } from "../client.ts";
import { UsageError } from "../exit-codes.ts";
import { MissingLocalImage } from "../image-input.ts";
import { prepareOutputDirectory } from "../output-target.ts";
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

/** The free tools: they produce no file, so --save-dir does not concern them. */
const LOOKUPS = new Set(["get_user_info", "list_models"]);

/**
 * A call this server refuses before sending it (a local image path that names no file, a
 * --save-dir that takes no files): an isError result in the remote endpoint's failure shape.
 */
function localRefusal(baseUrl: string, error: UsageError): CallToolResult {
  const param = error instanceof MissingLocalImage ? error.param : "--save-dir";
  const code = error instanceof MissingLocalImage ? "invalid_parameter" : "save_dir_not_writable";
  const failure = { type: "invalid_request_error", code, message: error.message, param, docs: `${baseUrl}/v1/errors${code === "invalid_parameter" ? "#invalid_parameter" : ""}` };
  return {
    isError: true,
    content: [{ type: "text", text: `Failed with ${code} before anything was sent (nothing was charged): ${error.message}` }],
    structuredContent: { message: error.message, error: failure, status: 400 },
  };
}

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
    let forwarded: Record<string, unknown> | undefined;
    try {
      // Before the call is sent (and paid): the results' directory takes files, the local images exist.
      if (saveDir && !LOOKUPS.has(name)) await prepareOutputDirectory(saveDir, `--save-dir ${saveDir}`);
      forwarded = await localArguments(args);
    } catch (error) {
      if (error instanceof UsageError) return localRefusal(options.baseUrl, error);
      throw error;
    }
    const result = (await remote.use(async (client) => client.callTool({ name, arguments: forwarded }, undefined, { timeout: CALL_TIMEOUT_MS }))) as CallToolResult;
    return saveDir ? saveResult(name, result, saveDir) : result;
  });

  return { server, remote };
}

export async function runStdioServer(options: StdioServerOptions): Promise<void> {
  // A --save-dir that cannot take files is said at start (exit 2), not after a paid call.
  if (options.saveDir) await prepareOutputDirectory(options.saveDir, `--save-dir ${options.saveDir}`);
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
