import type { CommandSpec } from "../command.ts";
import { serviceSettings, stringOption } from "../command.ts";

export const mcp: CommandSpec = {
  name: "mcp",
  summary: "Run a stdio MCP server with the same tools as the remote /mcp endpoint.",
  usage: "pixelgate mcp [--save-dir DIR]",
  details: [
    "For MCP clients that start a local process (Claude Desktop, Claude Code, Cursor). It forwards",
    "every tool call to PIXELGATE_URL/mcp with PIXELGATE_API_KEY, so calls are billed and logged",
    "(source mcp) like the remote endpoint's. Image arguments may be local file paths. With",
    "--save-dir (or PIXELGATE_SAVE_DIR) results are also written into DIR and the text result",
    "says where. stdout carries only MCP messages; notes go to stderr.",
  ].join("\n"),
  positionals: [],
  options: { "save-dir": { type: "string", value: "DIR", description: "Save every image/SVG result into DIR." } },
  output: "none",
  billed: false,
  examples: [
    "pixelgate mcp --save-dir ./pixelgate-results",
    "claude mcp add pixelgate --env PIXELGATE_API_KEY=pg_... -- node /path/to/pixelgate/dist/cli/pixelgate.js mcp",
  ],
  async run(ctx) {
    const settings = serviceSettings();
    const saveDir = stringOption(ctx, "save-dir") ?? (process.env.PIXELGATE_SAVE_DIR?.trim() || undefined);
    // Loaded here so the other commands start without the MCP SDK.
    const { runStdioServer } = await import("../mcp/stdio-server.ts");
    await runStdioServer({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, saveDir });
    // The server runs until the client closes stdin; keep the process alive meanwhile.
    return new Promise<number>(() => {});
  },
};
