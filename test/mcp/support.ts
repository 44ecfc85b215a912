import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exports } from "cloudflare:workers";
import { BASE } from "../support/fixtures";

// The MCP SDK's own client, talking streamable HTTP to /mcp of the worker under test.

export async function mcpClient(key: string, header: "x-api-key" | "Authorization" = "x-api-key"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers: { [header]: header === "Authorization" ? `Bearer ${key}` : key } },
  });
  const client = new Client({ name: "pixelgate-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}
