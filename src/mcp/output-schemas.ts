import type { JsonSchema } from "./input-schemas";

// Every MCP tool declares its `structuredContent`: what the REST answer's `result` holds plus the
// credits, or, for a failure (an `isError` result), the REST error envelope with the HTTP status
// it stands for. Clients validate structured content against this schema even for failures, so
// both shapes are in it.

const FAILURE: JsonSchema = {
  type: "object",
  properties: {
    message: { type: "string" },
    error: {
      type: "object",
      properties: {
        type: { type: "string" },
        code: { type: "string", description: "Stable error code; branch on this." },
        message: { type: "string" },
        param: { type: ["string", "null"], description: "The argument at fault, when there is one." },
        docs: { type: "string" },
      },
      required: ["type", "code", "message", "param", "docs"],
    },
    status: { type: "integer", description: "The HTTP status the same failure answers over REST." },
    retryAfterSeconds: { type: "integer" },
  },
  required: ["message", "error", "status"],
};

const CREDITS: Record<string, JsonSchema> = {
  deductedCredits: { type: "integer", description: "Credits this call took." },
  userCredits: { type: "integer", description: "The balance left." },
  replayed: { type: "boolean", description: "True when this is the stored result of an earlier call with the same idempotency key: nothing was charged this time (deductedCredits is 0; userCredits is the balance after that first call)." },
};

/** A tool result's structured content: `success` (an object schema) or the failure shape. */
export function outputSchemaOf(success: JsonSchema): JsonSchema {
  return { type: "object", anyOf: [success, FAILURE] };
}

/** multicall's success: the batch answer, which may be a replay. */
export function multicallOutputSchema(batch: JsonSchema): JsonSchema {
  return outputSchemaOf({ ...batch, properties: { ...(batch.properties as Record<string, JsonSchema>), replayed: CREDITS.replayed } });
}

/** An image tool's success: the REST `result` with the credits beside it. */
export function billedOutputSchema(result: JsonSchema, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return outputSchemaOf({
    ...result,
    properties: { ...(result.properties as Record<string, JsonSchema>), ...extra, ...CREDITS },
    required: [...new Set([...((result.required as string[] | undefined) ?? []), "deductedCredits", "userCredits"])],
  });
}
