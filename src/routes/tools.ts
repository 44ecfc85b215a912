import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireKey } from "../auth/authenticate";
import { rejectCall, runBilledCall, type BilledCall } from "../billing/billed-call";
import { idempotent, type RejectRequest } from "../billing/idempotency";
import type { AppEnv } from "../env";
import type { ErrorCode } from "../errors";
import { jsonAnswer } from "../http/json-answer";
import { requireJsonBodyOr } from "../http/json-body";
import { toolSuccessBody } from "../http/tool-body";
import { toolContext } from "../http/tool-context";
import { setRateLimitHeaders } from "../http/rate-limit";
import { validationError } from "../http/validation";
import { API_KEY_SECURITY, AUTH_ERRORS, errorResponses, jsonOk } from "../schemas/common";
import { TOOLS } from "../tools/registry";
import type { AnyTool, Family } from "../tools/types";
import type { UsageSource } from "../usage/log";

// POST /v1/<tool> and /playground/<tool> for every tool in the registry: a thin adapter that
// turns the HTTP request into a BilledCall and the outcome into the result envelope.

export const BILLED_CALL_ERRORS: ErrorCode[] = [
  ...AUTH_ERRORS,
  "missing_parameter",
  "invalid_parameter",
  "insufficient_credits",
  "request_too_large",
  "internal_error",
];

/** The CLI tags its requests so the usage log can say where a call came from. */
export function sourceOf(c: Context<AppEnv>): UsageSource {
  return c.req.header("X-Pixelgate-Source")?.toLowerCase() === "cli" ? "cli" : "rest";
}

function billedCallOf(c: Context<AppEnv>, tool: AnyTool, family: Family, input: unknown): BilledCall {
  const { account, key } = c.var.caller;
  return {
    tool,
    input,
    key,
    ctx: toolContext(c, family, account, sourceOf(c)),
    onWindow: (window) => setRateLimitHeaders(c, window),
    onCharged: () => c.set("charged", true),
  };
}

/**
 * Refuses a request before any charge (a body that is not JSON, a malformed Idempotency-Key, a
 * body that fails the schema): counted, logged, free.
 */
function refuseToolRequest(tool: AnyTool, family: Family): RejectRequest {
  return async (c, error) => {
    throw await rejectCall(billedCallOf(c, tool, family, await c.req.json().catch(() => undefined)), error);
  };
}

function pascal(name: string): string {
  return name.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
}

function responseSchema(tool: AnyTool, family: Family) {
  const credits = { deductedCredits: z.number().int(), userCredits: z.number().int() };
  return z
    .object({
      success: z.literal(true),
      message: z.string(),
      ...credits,
      result: z.intersection(tool.result(family), z.object(credits)),
      replayed: ReplayedField,
    })
    .openapi(`${pascal(tool.name)}${family === "v1" ? "" : "Playground"}Response`);
}

function mountTool(app: OpenAPIHono<AppEnv>, tool: AnyTool, family: Family): void {
  const refuse = refuseToolRequest(tool, family);
  const route = createRoute({
    method: "post",
    path: tool.paths[family],
    tags: [family === "v1" ? "Tools" : "Playground"],
    summary: tool.summary,
    description: `${tool.description}\n\nMCP tool: \`${tool.name}\`.`,
    security: API_KEY_SECURITY,
    middleware: [requireKey({ meter: false }), requireJsonBodyOr(refuse), idempotent(refuse)] as const,
    request: { headers: IdempotencyHeaders, body: { required: true, content: { "application/json": { schema: tool.input(family) } } } },
    responses: {
      200: jsonOk(responseSchema(tool, family), "The result, the credits taken and the balance left."),
      ...errorResponses(...BILLED_CALL_ERRORS, ...IDEMPOTENCY_ERRORS, ...(tool.errors ?? [])),
    },
  });
  app.openapi(
    route,
    async (c) => {
      return jsonAnswer(c, toolSuccessBody(await runBilledCall(billedCallOf(c, tool, family, c.req.valid("json")))), 200);
    },
    // A body that fails the schema is a rejected call: counted, logged, free.
    (result, c) => {
      if (result.success) return undefined;
      return refuse(c, validationError(result as Parameters<typeof validationError>[0]));
    },
  );
}

/** Set only on an Idempotency-Key replay, whose body the ledger's replay rewrites (billing/replay.ts). */
export const ReplayedField = z
  .literal(true)
  .optional()
  .openapi({ description: "Only on an Idempotency-Key replay: nothing was charged by it, and every `deductedCredits` in the body is 0." });

/** What every billed POST declares: the optional Idempotency-Key header. */
export const IdempotencyHeaders = z.object({
  "Idempotency-Key": z
    .string()
    .optional()
    .openapi({ description: "1 to 255 printable characters. Within 24 h the same key and body replay the first answer at no charge; another body answers 422, a duplicate while the first runs 409." }),
});

export const IDEMPOTENCY_ERRORS: ErrorCode[] = ["idempotency_conflict", "idempotency_in_progress"];

export function mountTools(app: OpenAPIHono<AppEnv>): void {
  for (const tool of TOOLS) {
    for (const family of ["v1", "playground"] as const) mountTool(app, tool, family);
  }
}
