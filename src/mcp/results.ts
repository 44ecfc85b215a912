import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { BilledResult } from "../billing/billed-call";
import { sniffFormat } from "../codecs";
import type { Env } from "../env";
import { ERROR_CATALOG, PixelgateError } from "../errors";
import { Base64Bytes, withInlineTexts } from "../http/base64-bytes";
import { errorBodyAt } from "../http/envelope";
import { decodeDataUri } from "../images/inline-image";
import { hostedFileInfo, hostResult, openResult } from "../storage/results";
import { previewOf, previewOfStored, type Preview } from "./preview";
import { InlineBudget, linkedResult } from "./structured";

// Tool results shaped for agents: the REST `result` as structured content (files linked, not
// inlined: structured.ts), a short text saying what was done, what it cost and where the result
// is, a small inline preview of an image, and a link to the full file. Every image result has a
// hosted file, also those REST answers inline (compress_image's data URI, text_to_svg's markup).
// Recoverable failures are `isError` results that carry the error code and what to do, so the
// model can correct itself instead of the client raising.

export interface McpSession {
  env: Env;
  baseUrl: string;
}

type Content = CallToolResult["content"];

/** The text that says what a call cost; a replay (asReplay) finds it again by this function. */
export function creditsLine(outcome: { deductedCredits: number; userCredits: number }): string {
  return `Spent ${outcome.deductedCredits} credit${outcome.deductedCredits === 1 ? "" : "s"}; ${outcome.userCredits} left.`;
}

interface HostedImage {
  url: string;
  mimeType: string;
  /** Its preview, made from the file (read whole, or as a stream when large: preview.ts). */
  preview(maxSide?: number): Promise<Preview | null>;
}

/** A file of a result hosted now (compress's data URI, text-to-svg's markup): MCP links every result. */
async function hostNow(session: McpSession, bytes: Uint8Array): Promise<HostedImage | null> {
  const kind = sniffFormat(bytes);
  if (kind === null || kind === "heic") return null; // results are never HEIC
  const { url } = await hostResult(session.env.FILES, session.baseUrl, bytes, kind);
  return { url, mimeType: hostedFileInfo(kind).mime, preview: (maxSide) => previewOf(bytes, maxSide) };
}

/** A result's image: its hosted URL (hosting an inline one now), its type and its bytes. */
async function hostedImageOf(session: McpSession, result: Record<string, unknown>): Promise<HostedImage | null> {
  const filesPrefix = `${session.baseUrl}/files/`;
  for (const location of [result.imageUrl, result.image, result.dataUrl]) {
    if (location instanceof Base64Bytes) return hostNow(session, location.bytes); // whole: the preview decodes it
    if (typeof location !== "string") continue;
    if (location.startsWith(filesPrefix)) {
      const stored = await openResult(session.env.FILES, location.slice(filesPrefix.length));
      if (stored) {
        const contentType = stored.httpMetadata?.contentType;
        const file = { size: stored.size, contentType, body: stored.body, arrayBuffer: () => stored.arrayBuffer() };
        return { url: location, mimeType: contentType ?? "application/octet-stream", preview: (maxSide) => previewOfStored(file, maxSide) };
      }
    } else if (location.startsWith("data:")) {
      return hostNow(session, decodeDataUri(location, "result").bytes);
    }
  }
  return null;
}

/** The preview and link blocks of one image, and its hosted URL. */
async function imageBlocks(session: McpSession, result: Record<string, unknown>, previewSide?: number): Promise<{ url: string | null; blocks: Content }> {
  const image = await hostedImageOf(session, result);
  if (!image) return { url: null, blocks: [] };
  const preview: Preview | null = await image.preview(previewSide);
  const blocks: Content = [];
  if (preview) blocks.push({ type: "image", data: preview.data, mimeType: preview.mimeType });
  blocks.push({ type: "resource_link", uri: image.url, name: image.url.split("/").pop() ?? "result", mimeType: image.mimeType, description: "The full-size result." });
  return { url: image.url, blocks };
}

export async function imageToolResult(session: McpSession, outcome: BilledResult): Promise<CallToolResult> {
  const result = outcome.result as Record<string, unknown> & { svgCode?: string };
  const { url, blocks } = await imageBlocks(session, result);
  const structured = { ...linkedResult(result, url, new InlineBudget()), deductedCredits: outcome.deductedCredits, userCredits: outcome.userCredits };
  const where = url ? `Full result: ${url}` : "The result is in structuredContent.";
  const content: Content = [{ type: "text", text: `${outcome.message} ${creditsLine(outcome)} ${where}` }];
  if (typeof result.svgCode === "string" && url) {
    content.push({ type: "resource", resource: { uri: url, mimeType: "image/svg+xml", text: result.svgCode } });
  }
  content.push(...blocks);
  return { content, structuredContent: structured };
}

/** Previews in a multicall are smaller: up to 20 of them share one answer. */
const MULTICALL_PREVIEW_SIDE = 256;

type BatchBody = {
  message: string;
  deductedCredits: number;
  userCredits: number;
  results: { tool: string; status: number; success: boolean; data: Record<string, unknown> }[];
};

/** A multicall: one line per item (link or error, never base64), then each item's preview and link. */
export async function multicallToolResult(session: McpSession, body: BatchBody): Promise<CallToolResult> {
  const lines: string[] = [];
  const blocks: Content = [];
  const budget = new InlineBudget();
  const results = [];
  for (const [index, item] of body.results.entries()) {
    const data = item.data as { result?: Record<string, unknown>; error?: { code?: string; message?: string } };
    if (!item.success || !data.result) {
      lines.push(`${index + 1}. ${item.tool}: failed, ${data.error?.code}: ${data.error?.message}`);
      results.push(item);
      continue;
    }
    const image = await imageBlocks(session, data.result, MULTICALL_PREVIEW_SIDE);
    results.push({ ...item, data: { ...data, result: linkedResult(data.result, image.url, budget) } });
    lines.push(`${index + 1}. ${item.tool}: done, ${image.url ?? "see structuredContent"}`);
    blocks.push(...image.blocks);
  }
  const text = `${body.message} ${creditsLine(body)}\n${lines.join("\n")}`;
  return { content: [{ type: "text", text }, ...blocks], structuredContent: withInlineTexts({ ...body, results }) };
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
