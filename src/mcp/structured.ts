import { Base64Bytes, INLINE_FILE_KEYWORD } from "../http/base64-bytes";
import type { JsonSchema } from "./input-schemas";

// What an MCP result's `structuredContent` holds of a tool's REST `result`. Clients that read
// structured content (the OpenAI Agents SDK with `useStructuredContent`) hand all of it to the
// model, so files never travel in it by default: every field REST answers inline (compress's
// data URI, text-to-svg's data URLs, the `b64_json`/`imageBase64` pair) is left out, and the
// hosted file's URL stands in `hostedUrl`. A caller that asks for the bytes
// (`responseFormat: "b64_json"`) gets them once, as `b64_json`, when they fit in what is left of
// the answer's inline budget; otherwise `inlineOmitted` says why they are not there.

/** The most file bytes one MCP answer carries as base64, over all its results (multicall too). */
export const MCP_INLINE_MAX_BYTES = 1024 * 1024;

const MEGABYTES = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(2)} MB`;

/** The inline bytes an answer may still carry; one budget per answer, shared by multicall's items. */
export class InlineBudget {
  #left = MCP_INLINE_MAX_BYTES;

  /** Takes `bytes` from the budget, or says why they do not fit. */
  take(bytes: number): string | null {
    if (bytes > this.#left) {
      const whole = this.#left === MCP_INLINE_MAX_BYTES;
      return `The file (${MEGABYTES(bytes)}) is over ${whole ? "the" : "what is left of the"} ${MEGABYTES(MCP_INLINE_MAX_BYTES)} an MCP answer carries inline; download it from hostedUrl.`;
    }
    this.#left -= bytes;
    return null;
  }
}

function isInlineFile(value: unknown): boolean {
  return value instanceof Base64Bytes || (typeof value === "string" && value.startsWith("data:"));
}

/**
 * A REST `result` as MCP structured content: inline files out, the hosted link in, `b64_json`
 * once if asked and it fits. Call it once the files were hosted and previewed.
 */
export function linkedResult(result: Record<string, unknown>, hostedUrl: string | null, budget: InlineBudget): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(result)) if (!isInlineFile(value)) out[name] = value;
  if (hostedUrl) out.hostedUrl = hostedUrl;
  const asked = result.b64_json;
  if (asked instanceof Base64Bytes) {
    const omitted = budget.take(asked.byteLength);
    if (omitted) out.inlineOmitted = omitted;
    else out.b64_json = asked.text();
  }
  // A file left out is done with (hosted and previewed before this): what held its place at the
  // memory gate goes back now.
  for (const value of Object.values(result)) if (value instanceof Base64Bytes) value.written();
  return out;
}

/** What `responseFormat` does over MCP, in its argument's description. */
export const MCP_INLINE_ARGUMENT_NOTE = `\`url\` (default): a link and a preview. \`b64_json\` also puts the file's base64 once in the structured result (\`b64_json\`), when it is at most ${MEGABYTES(MCP_INLINE_MAX_BYTES)}; a larger file stays a link.`;

/** Fields MCP adds to a result's structured content. */
export const LINKED_FIELDS: Record<string, JsonSchema> = {
  hostedUrl: { type: "string", description: "The hosted file of the result: download it from here." },
  b64_json: {
    type: "string",
    description: `Base64 of the file, only when the call asked for it (responseFormat: b64_json) and it fits in the ${MEGABYTES(MCP_INLINE_MAX_BYTES)} an MCP answer carries inline.`,
  },
  inlineOmitted: { type: "string", description: "Why the base64 that was asked for is not there (the file is over the inline limit)." },
};

/** A REST result schema as MCP answers it: the inline-file fields gone, the linked fields added. */
export function linkedResultSchema(result: JsonSchema): JsonSchema {
  const properties = Object.entries(result.properties as Record<string, JsonSchema>).filter(([, property]) => property[INLINE_FILE_KEYWORD] !== true);
  const kept = new Set(properties.map(([name]) => name));
  return {
    ...result,
    properties: { ...Object.fromEntries(properties), ...LINKED_FIELDS },
    required: ((result.required as string[] | undefined) ?? []).filter((name) => kept.has(name)),
  };
}
