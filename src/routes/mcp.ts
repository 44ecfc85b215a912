import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { presentedKey, resolveKey } from "../auth/authenticate";
import { IDEMPOTENCY_HEADER } from "../billing/idempotency";
import type { AppEnv } from "../env";
import { PixelgateError } from "../errors";
import { toolContext } from "../http/tool-context";
import { jsonRpcRefusal, mountMcpAuthRefusals } from "./mcp-auth";

// /mcp: MCP over streamable HTTP, stateless. The key is read exactly as REST reads
// it; without a valid one the answer is an HTTP 401 carrying a JSON-RPC error, before any MCP
// message is looked at. Only tools/call counts toward the key's rate-limit window (initialize
// and tools/list are the client's handshake, not work). Stateless means there is no session
// stream to hold open: GET and DELETE answer 405.

export const MCP_PATH = "/mcp";

async function requestIdOf(c: Context<AppEnv>): Promise<unknown> {
  const body = await c.req.json().catch(() => null);
  return body && typeof body === "object" && !Array.isArray(body) ? (body as { id?: unknown }).id : null;
}

/** The transport builds its own Response, which Hono's prepared headers never reach. */
function withRequestId(c: Context<AppEnv>, response: Response): Response {
  const out = new Response(response.body, response);
  out.headers.set("X-Request-Id", c.get("requestId"));
  return out;
}

/** The caller behind the request's key, or the 401 that refuses it (a JSON-RPC error). */
async function authenticate(c: Context<AppEnv>): Promise<Awaited<ReturnType<typeof resolveKey>> | Response> {
  try {
    return await resolveKey(c.env, presentedKey(c.req));
  } catch (error) {
    if (error instanceof PixelgateError && ["missing_api_key", "invalid_api_key"].includes(error.code)) {
      // Required with a 401; it names no OAuth metadata, so nothing here invites an OAuth flow.
      c.header("WWW-Authenticate", `Bearer realm="Pixelgate MCP", error="invalid_token", error_description="Send your Pixelgate API key as x-api-key or Authorization: Bearer"`);
      return jsonRpcRefusal(c, error, c.req.method === "POST" ? await requestIdOf(c) : null);
    }
    throw error;
  }
}

export function mountMcp(app: OpenAPIHono<AppEnv>): void {
  mountMcpAuthRefusals(app);
  // The key is checked first here too: clients that fall back to the old SSE transport (GET)
  // after a refused POST must meet the same key message, not a bare 405.
  app.on(["GET", "DELETE"], MCP_PATH, async (c) => {
    const caller = await authenticate(c);
    if (caller instanceof Response) return caller;
    c.header("Allow", "POST");
    const error = { code: -32000, message: `${c.req.method} is not used: this MCP server is stateless; send every message as a POST.` };
    return c.json({ jsonrpc: "2.0", id: null, error }, 405);
  });
  app.post(MCP_PATH, async (c) => {
    const caller = await authenticate(c);
    if (caller instanceof Response) return caller;
    const ctx = toolContext(c, "v1", caller.account, "mcp");
    // Loaded on the first MCP request, not at isolate start: the SDK and its JSON-schema
    // validator are most of the startup CPU otherwise, and most requests are REST.
    const [{ mcpServerFor }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
      import("../mcp/server"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    ]);
    const server = mcpServerFor(app, { ...caller, ctx, idempotencyKey: c.req.header(IDEMPOTENCY_HEADER) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return withRequestId(c, await transport.handleRequest(c.req.raw));
  });
}
