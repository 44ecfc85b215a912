import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CLI_VERSION } from "../client.ts";

// The stdio server's link to the service: an MCP client of the remote endpoint `/mcp`, so every
// tool's logic lives in the worker once. Connected on first use and again after a failure, so a
// service that starts after the stdio server (or restarts) is picked up without a restart.

export interface RemoteOptions {
  baseUrl: string;
  apiKey: string;
}

export class RemoteTools {
  private readonly options: RemoteOptions;
  private connecting: Promise<Client> | undefined;

  constructor(options: RemoteOptions) {
    this.options = options;
  }

  get endpoint(): URL {
    return new URL("/mcp", `${this.options.baseUrl.replace(/\/+$/, "")}/`);
  }

  client(): Promise<Client> {
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw this.explain(error);
    });
    return this.connecting;
  }

  /**
   * Runs `call` on the connected client. A transport failure drops the connection so the next
   * request reconnects; the call itself is never retried, since a paid call may have run.
   */
  async use<T>(call: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.client();
    try {
      return await call(client);
    } catch (error) {
      if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) throw error;
      if (this.connecting) {
        this.connecting = undefined;
        await client.close().catch(() => {});
      }
      throw this.explain(error);
    }
  }

  async close(): Promise<void> {
    const pending = this.connecting;
    this.connecting = undefined;
    if (pending) await (await pending.catch(() => undefined))?.close();
  }

  private async connect(): Promise<Client> {
    const client = new Client({ name: "pixelgate-stdio", version: CLI_VERSION });
    const transport = new StreamableHTTPClientTransport(this.endpoint, {
      requestInit: { headers: { "x-api-key": this.options.apiKey } },
    });
    await client.connect(transport);
    return client;
  }

  /** An error an MCP client shows its user: what failed and what to do. */
  private explain(error: unknown): McpError {
    if (error instanceof McpError) return error;
    if (error instanceof StreamableHTTPError && error.code === 401) {
      return new McpError(ErrorCode.InvalidRequest, `Pixelgate refused the API key (401). Set PIXELGATE_API_KEY to a valid key in this server's configuration.`);
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const detail = cause ?? (error instanceof Error ? error.message : String(error));
    return new McpError(ErrorCode.InternalError, `Cannot reach Pixelgate at ${this.endpoint.href} (${detail}). Check PIXELGATE_URL and that the service is running.`);
  }
}
