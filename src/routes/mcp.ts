import type { OpenAPIHono } from "@hono/zod-openapi";
import { presentedKey, resolveKey } from "../auth/authenticate";
import type { AppEnv } from "../env";
import { PixelgateError } from "../errors";
import { errorResponse } from "../http/envelope";
import { toolContext } from "../http/tool-context";

// /mcp: MCP over streamable HTTP, stateless. The key is read exactly as REST reads
// it; without a valid one the answer is a plain HTTP 401 with WWW-Authenticate, before any MCP
// message is looked at. Only tools/call counts toward the key's rate-limit window (initialize
// and tools/list are the client's handshake, not work).

export const MCP_PATH = "/mcp";

export function mountMcp(app: OpenAPIHono<AppEnv>): void {
  app.all(MCP_PATH, async (c) => {
    let caller;
    try {
      caller = await resolveKey(c.env, presentedKey(c.req));
    } catch (error) {
      if (error instanceof PixelgateError && ["missing_api_key", "invalid_api_key"].includes(error.code)) {
        c.header("WWW-Authenticate", `Bearer realm="Pixelgate MCP", error="invalid_token", error_description="Send your Pixelgate API key as x-api-key or Authorization: Bearer"`);
        return errorResponse(c, error);
      }
      throw error;
    }
    const ctx = toolContext(c, "v1", caller.account, "mcp");
    // Loaded on the first MCP request, not at isolate start: the SDK and its JSON-schema
    // validator are most of the startup CPU otherwise, and most requests are REST.
    const [{ mcpServerFor }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
      import("../mcp/server"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    ]);
    const server = mcpServerFor(app, { ...caller, ctx });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });
}
