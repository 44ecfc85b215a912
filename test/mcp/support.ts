import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exports } from "cloudflare:workers";
import { BASE } from "../support/fixtures";

// The MCP SDK's own client, talking streamable HTTP to /mcp of the worker under test.

export async function mcpClient(
  key: string,
  header: "x-api-key" | "Authorization" = "x-api-key",
  options: { headers?: Record<string, string>; authProvider?: OAuthClientProvider } = {},
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers: { [header]: header === "Authorization" ? `Bearer ${key}` : key, ...options.headers } },
    authProvider: options.authProvider,
  });
  const client = new Client({ name: "pixelgate-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/**
 * What mcp-remote and the MCP Inspector hold: an OAuth provider with nothing stored yet, so a 401
 * sends the SDK through discovery and dynamic registration. It never gets as far as a browser.
 */
export class FreshOAuthProvider implements OAuthClientProvider {
  get redirectUrl() {
    return "http://localhost:3334/oauth/callback";
  }
  get clientMetadata() {
    return { redirect_uris: ["http://localhost:3334/oauth/callback"], client_name: "pixelgate-tests" };
  }
  clientInformation() {
    return undefined;
  }
  saveClientInformation() {}
  tokens() {
    return undefined;
  }
  saveTokens() {}
  redirectToAuthorization(): void {
    throw new Error("the OAuth flow reached the browser step");
  }
  saveCodeVerifier() {}
  codeVerifier() {
    return "";
  }
}
