import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { presentedKey, resolveKey } from "../auth/authenticate";
import type { AppEnv } from "../env";
import { ERROR_CATALOG, PixelgateError } from "../errors";
import { errorBody } from "../http/envelope";

// /mcp takes an API key, never OAuth. An MCP client that holds an OAuth provider (mcp-remote,
// the MCP Inspector) answers any 401 by starting OAuth discovery whatever the 401 says: it looks
// for /.well-known/oauth-protected-resource and /.well-known/oauth-authorization-server (both
// 404 here: nothing is advertised), then falls back to registering itself at /register. So the
// refusal must be readable at every step: the 401 is a JSON-RPC error naming the key problem,
// and /register, /token and /authorize answer an OAuth error whose description (what those
// clients print) says that this server wants an API key and why the one sent was refused.

export const MCP_KEY_HINT = "Send your Pixelgate API key as the x-api-key header or as Authorization: Bearer (mcp-remote: --header \"x-api-key:${PIXELGATE_API_KEY}\").";

/** A JSON-RPC error for a request refused before MCP saw it (no key, bad key). */
export function jsonRpcRefusal(c: Context<AppEnv>, error: PixelgateError, id: unknown): Response {
  const status = ERROR_CATALOG[error.code].status;
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  const message = `${error.code}: ${error.message} ${status === 401 ? MCP_KEY_HINT : ERROR_CATALOG[error.code].hint}`;
  const body = { jsonrpc: "2.0", id: id ?? null, error: { code: -32001, message, data: { status, ...errorBody(c, error).error } } };
  return c.json(body, status as 401);
}

async function oauthRefusal(c: Context<AppEnv>): Promise<Response> {
  let reason = "No API key was sent.";
  try {
    const presented = presentedKey(c.req);
    if (presented) {
      await resolveKey(c.env, presented);
      reason = "The API key sent is valid: connect without OAuth.";
    }
  } catch (error) {
    reason = error instanceof PixelgateError ? `${error.code}: ${error.message}` : reason;
  }
  const description = `Pixelgate's MCP server takes an API key, not OAuth. ${reason} ${MCP_KEY_HINT}`;
  return c.json({ error: "invalid_client", error_description: description }, 404);
}

export function mountMcpAuthRefusals(app: OpenAPIHono<AppEnv>): void {
  for (const path of ["/register", "/token", "/authorize"]) app.all(path, oauthRefusal);
}
