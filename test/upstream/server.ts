import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { serveOpenAi } from "./fake-openai.ts";
import { serveReplicate, serveReplicateFile } from "./fake-replicate.ts";
import { serveWorkersAi } from "./fake-workers-ai.ts";
import type { FakeExchange } from "./http-kit.ts";
import { FAKE_DIRECT_PREFIXES, FAKE_OPENAI_HOST, FAKE_REPLICATE_FILES_HOST, FAKE_REPLICATE_HOST, FAKE_WORKERS_AI_HOST } from "./scenarios.ts";

// The fake upstream providers: one real node:http server on a free loopback port, speaking each
// provider's documented HTTP API. The worker's requests reach it through the outbound service
// (test/upstream/outbound.ts), which names the host the worker asked for in X-Forwarded-Host, so
// one server stands in for every provider host. Scripts without that proxy address a provider by
// a path prefix instead (FAKE_DIRECT_PREFIXES: http://127.0.0.1:PORT/openai/v1/...).

const MAX_REQUEST_BYTES = 256 * 1024 * 1024;

const HOSTS: Record<string, (exchange: FakeExchange) => void> = {
  [FAKE_OPENAI_HOST]: serveOpenAi,
  [FAKE_REPLICATE_HOST]: serveReplicate,
  [FAKE_REPLICATE_FILES_HOST]: serveReplicateFile,
  [FAKE_WORKERS_AI_HOST]: serveWorkersAi,
};

/** Starts the server and resolves to its origin, e.g. "http://127.0.0.1:41234". */
export function startFakeUpstream(): Promise<string> {
  const server = createServer((req, res) => void handle(req, res));
  // Connections left open by hang scenarios must not keep the test process alive either.
  server.on("connection", (socket) => socket.unref());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.unref(); // never what keeps the test process alive
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.on("error", () => {}); // a client that went away (a timeout test) is not a failure here
  try {
    const { host, path } = routeOf(req);
    const serve = HOSTS[host];
    const body = await readBody(req);
    if (!serve) {
      res.writeHead(502, { "Content-Type": "text/plain" }).end(`no fake upstream for host "${host}"`);
      return;
    }
    serve({ req, res, host, url: new URL(path, `https://${host}`), body });
  } catch (error) {
    if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
    res.end(`fake upstream failed: ${(error as Error).message}`);
  }
}

/** The provider host asked for: named by the outbound proxy, or by a path prefix when called directly. */
function routeOf(req: IncomingMessage): { host: string; path: string } {
  const path = req.url ?? "/";
  const forwarded = req.headers["x-forwarded-host"];
  if (forwarded) return { host: String(forwarded), path };
  const prefix = Object.keys(FAKE_DIRECT_PREFIXES).find((candidate) => path.startsWith(`${candidate}/`));
  return prefix ? { host: FAKE_DIRECT_PREFIXES[prefix]!, path: path.slice(prefix.length) } : { host: "", path };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_REQUEST_BYTES) throw new Error("request body over the fake's limit");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
