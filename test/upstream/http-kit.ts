import type { IncomingMessage, ServerResponse } from "node:http";
import { HANG_LIMIT_MS, OVERSIZED_BYTES } from "./scenarios.ts";

// Answering helpers shared by the three fake providers (Node side).

export interface FakeExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The host the worker asked for (the outbound service forwards it in X-Forwarded-Host). */
  host: string;
  url: URL;
  body: Buffer;
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

export function sendBytes(res: ServerResponse, type: string, bytes: Buffer | string): void {
  const data = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  res.writeHead(200, { "Content-Type": type, "Content-Length": data.length });
  res.end(data);
}

/** JSON that stops in the middle of a string, with a 200 and a JSON Content-Type. */
export function sendMalformedJson(res: ServerResponse): void {
  sendBytes(res, "application/json", '{"created": 1767225600, "data": [{"b64_json": "iVBORw0KGgoAAAANSUhEUgAA');
}

/** Never answers; the connection is dropped after HANG_LIMIT_MS so the test process can end. */
export function hang(res: ServerResponse): void {
  const timer = setTimeout(() => res.destroy(), HANG_LIMIT_MS);
  res.on("close", () => clearTimeout(timer));
}

/**
 * OVERSIZED_BYTES of `type`, chunked with no Content-Length, so only a reader that counts while
 * streaming notices. `prefix` starts the body (a JSON opening, a PNG signature).
 */
export function sendOversized(res: ServerResponse, type: string, prefix: string | Buffer, fill = 0x41): void {
  res.writeHead(200, { "Content-Type": type });
  // A reader that stopped at its limit leaves the rest unread: drop the connection after a while.
  const timer = setTimeout(() => res.destroy(), HANG_LIMIT_MS);
  res.on("close", () => clearTimeout(timer));
  const block = Buffer.alloc(256 * 1024, fill);
  let sent = 0;
  const pump = () => {
    if (sent === 0) {
      res.write(prefix);
      sent += prefix.length;
    }
    while (sent < OVERSIZED_BYTES && !res.destroyed) {
      sent += block.length;
      if (!res.write(block)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on("error", () => {});
  pump();
}

export function bearerOf(req: IncomingMessage): string | undefined {
  return /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
}

export function isJson(req: IncomingMessage): boolean {
  return /^application\/json\b/i.test(req.headers["content-type"] ?? "");
}

export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}
