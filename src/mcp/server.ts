import type { OpenAPIHono } from "@hono/zod-openapi";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { AppEnv } from "../env";
import { mcpTools, type McpCaller } from "./catalog";

// A fresh MCP server per HTTP request (stateless streamable HTTP): it holds that request's
// account, key and request id, so nothing of one caller can leak into another's session.

export const MCP_SERVER_INFO = { name: "pixelgate", version: "1.0.0" };

export function mcpServerFor(app: OpenAPIHono<AppEnv>, caller: McpCaller): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "Pixelgate generates, edits, cuts out, upscales, compresses and converts images and writes SVG. Every image tool costs credits (see each tool's title); get_user_info shows the balance and list_models the models and their prices. Images go in as https URLs (this service's own result links included) or base64 data URIs; results come back as hosted links with a small preview. Pass idempotencyKey to make a retry safe.",
  });
  const tools = mcpTools(app);
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({ name, title, description, inputSchema, outputSchema, annotations })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}"; tools/list names them.`);
    return tool.call(request.params.arguments ?? {}, caller);
  });
  return server;
}
