import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { BilledResult } from "../billing/billed-call";
import type { Env } from "../env";
import { ERROR_CATALOG, PixelgateError } from "../errors";
import { errorBodyAt } from "../http/envelope";
import { decodeDataUri } from "../images/inline-image";
import { openResult } from "../storage/results";
import { previewOf } from "./preview";

// Tool results shaped for agents: the REST `result` as structured content, a short text saying
// what was done, what it cost and where the result is, a small inline preview of an image, and
// a link to the full file. Recoverable failures are `isError` results that carry the error code
// and what to do, so the model can correct itself instead of the client raising.

export interface McpSession {
  env: Env;
  baseUrl: string;
}

function creditsLine(outcome: { deductedCredits: number; userCredits: number }): string {
  return `Spent ${outcome.deductedCredits} credit${outcome.deductedCredits === 1 ? "" : "s"}; ${outcome.userCredits} left.`;
}

/** The bytes behind a result's image: a hosted file of ours, or a data URI. */
async function resultBytes(session: McpSession, location: unknown): Promise<Uint8Array | null> {
  if (typeof location !== "string") return null;
  if (location.startsWith("data:")) return decodeDataUri(location, "result").bytes;
  const filesPrefix = `${session.baseUrl}/files/`;
  if (!location.startsWith(filesPrefix)) return null;
  const stored = await openResult(session.env.FILES, location.slice(filesPrefix.length));
  return stored ? new Uint8Array(await stored.arrayBuffer()) : null;
}

export async function imageToolResult(session: McpSession, outcome: BilledResult): Promise<CallToolResult> {
  const structured = { ...outcome.result, deductedCredits: outcome.deductedCredits, userCredits: outcome.userCredits };
  const result = outcome.result as { imageUrl?: string; image?: string; svgCode?: string; dataUrl?: string };
  const content: CallToolResult["content"] = [];

  if (typeof result.svgCode === "string") {
    content.push({ type: "text", text: `${outcome.message} ${creditsLine(outcome)} The SVG markup is in structuredContent.svgCode.` });
    content.push({ type: "resource", resource: { uri: String(result.dataUrl), mimeType: "image/svg+xml", text: result.svgCode } });
    return { content, structuredContent: structured };
  }

  const hosted = typeof result.imageUrl === "string" && /^https?:/.test(result.imageUrl) ? result.imageUrl : null;
  const where = hosted ? `Full result: ${hosted}` : "The full result is in structuredContent (a base64 data URI).";
  content.push({ type: "text", text: `${outcome.message} ${creditsLine(outcome)} ${where}` });
  const preview = await previewOf((await resultBytes(session, result.imageUrl ?? result.image)) ?? new Uint8Array());
  if (preview) content.push({ type: "image", data: preview.data, mimeType: preview.mimeType });
  if (hosted) content.push({ type: "resource_link", uri: hosted, name: hosted.split("/").pop() ?? "result", description: "The full-size result." });
  return { content, structuredContent: structured };
}

/** A failure the agent can act on: its code, what happened and what to do, as an isError result. */
export function errorToolResult(session: McpSession, error: unknown): CallToolResult {
  const failure = error instanceof PixelgateError ? error : new PixelgateError("internal_error", "Something went wrong on our side. Retry at most once or twice.");
  const entry = ERROR_CATALOG[failure.code];
  const retryAfter = failure.headers["Retry-After"];
  const text =
    `Failed with ${failure.code} (HTTP ${entry.status}): ${failure.message} What to do: ${entry.hint}` +
    (retryAfter ? ` Retry after ${retryAfter} s.` : "");
  const { success: _, ...body } = errorBodyAt(session.baseUrl, failure);
  return { isError: true, content: [{ type: "text", text }], structuredContent: { ...body, status: entry.status, ...(retryAfter ? { retryAfterSeconds: Number(retryAfter) } : {}) } };
}
