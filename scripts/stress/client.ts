// One HTTP exchange of `npm run stress`, recorded with what the reconciliation needs: who sent
// it, what it asked for, when, and what came back (status, request id, replay header, error
// code, the credits the body reported). Bodies are kept only where they are compared later
// (idempotent requests, whose replays must be byte-identical).
import { createHash } from "node:crypto";
import type { Key } from "./accounts.ts";
import type { ToolName } from "./calls.ts";

export interface Draft {
  /** What the workload meant by it, for the report ("single", "batch", "idem-retry", ...). */
  kind: string;
  key: Key;
  path: string;
  /** Batch and multicall: the whole answer is one exchange with one result per item. */
  batch: boolean;
  /** The tool of each item (one for a single call), or [] when the body is not even a list. */
  tools: ToolName[];
  body: string;
  contentType?: string;
  idempotencyKey?: string;
  /** Groups the requests that share an idempotency key (one logical call). */
  group?: string;
  /** A crash call's unique prompt: its entry is found by it, since no X-Request-Id came back. */
  probe?: string;
}

export interface Exchange extends Omit<Draft, "body"> {
  n: number;
  bodyHash: string;
  sentAt: number;
  receivedAt: number;
  /** HTTP status, or 0 when no answer came (network error, client timeout). */
  status: number;
  failure?: string;
  requestId?: string;
  replayed: boolean;
  retryAfter?: string;
  code?: string;
  /** Top-level deductedCredits of a success. */
  deducted?: number;
  /** Batch answers: each item's status and success flag. */
  results?: Array<{ tool: string; status: number; success: boolean }>;
  /** The lowest balance the body reported (userCredits, currentCredits anywhere in it). */
  lowestCredits?: number;
  /** Kept for idempotent requests only. */
  responseText?: string;
}

/** Generous: the server always answers (upstream calls time out after a few seconds there). */
const CLIENT_TIMEOUT_MS = 120_000;
let counter = 0;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The lowest of every userCredits/currentCredits number in a parsed body. */
function lowestCredits(value: unknown, found: number[] = []): number[] {
  if (Array.isArray(value)) for (const item of value) lowestCredits(item, found);
  else if (value && typeof value === "object") {
    for (const [name, inner] of Object.entries(value)) {
      if ((name === "userCredits" || name === "currentCredits") && typeof inner === "number") found.push(inner);
      else lowestCredits(inner, found);
    }
  }
  return found;
}

export async function send(baseUrl: string, draft: Draft): Promise<Exchange> {
  const { body, ...rest } = draft;
  const headers: Record<string, string> = { Authorization: `Bearer ${draft.key.secret}`, "Content-Type": draft.contentType ?? "application/json" };
  if (draft.idempotencyKey !== undefined) headers["Idempotency-Key"] = draft.idempotencyKey;
  const exchange: Exchange = { ...rest, n: ++counter, bodyHash: sha256(body), sentAt: performance.now(), receivedAt: 0, status: 0, replayed: false };
  try {
    const response = await fetch(`${baseUrl}${draft.path}`, { method: "POST", headers, body, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const text = await response.text();
    exchange.receivedAt = performance.now();
    exchange.status = response.status;
    exchange.requestId = response.headers.get("X-Request-Id") ?? undefined;
    exchange.replayed = response.headers.get("Idempotency-Replayed") === "true";
    exchange.retryAfter = response.headers.get("Retry-After") ?? undefined;
    if (draft.idempotencyKey !== undefined) exchange.responseText = text;
    readBody(exchange, text);
  } catch (error) {
    exchange.receivedAt = performance.now();
    exchange.failure = error instanceof Error ? error.message : String(error);
  }
  return exchange;
}

function readBody(exchange: Exchange, text: string): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    exchange.failure = `answer is not JSON: ${text.slice(0, 120)}`;
    return;
  }
  exchange.code = (parsed.error as { code?: string } | undefined)?.code;
  if (typeof parsed.deductedCredits === "number") exchange.deducted = parsed.deductedCredits;
  if (exchange.batch && Array.isArray(parsed.results)) {
    exchange.results = (parsed.results as Array<Record<string, unknown>>).map((item) => ({
      tool: String(item.tool),
      status: Number(item.status),
      success: item.success === true,
    }));
  }
  const credits = lowestCredits(parsed);
  if (credits.length > 0) exchange.lowestCredits = Math.min(...credits);
}
