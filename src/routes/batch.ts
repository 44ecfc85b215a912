import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireKey } from "../auth/authenticate";
import { batchEntryDraft, MAX_BATCH_ITEMS, runBatch, type BatchCall } from "../billing/batch";
import { BatchRequest, batchResponseBody, toolsOf } from "../billing/batch-request";
import { rejectRequest } from "../billing/billed-call";
import { idempotent } from "../billing/idempotency";
import type { AppEnv } from "../env";
import { publicBaseUrl } from "../http/envelope";
import { jsonAnswer } from "../http/json-answer";
import { requireJsonBodyOr } from "../http/json-body";
import { toolContext } from "../http/tool-context";
import { setRateLimitHeaders } from "../http/rate-limit";
import { validationError } from "../http/validation";
import { API_KEY_SECURITY, errorResponses, jsonOk } from "../schemas/common";
import type { AnyTool, Family } from "../tools/types";
import { BILLED_CALL_ERRORS, IDEMPOTENCY_ERRORS, IdempotencyHeaders, ReplayedField, sourceOf } from "./tools";

// POST /v1/batch and /playground/multicall: several tool calls in one request. Both
// answer the multicall shape; /v1/batch's items are the same `{tool, status, success, data}`
// (nothing else would serve a client better), so one client handles both.

const BatchItemResult = z
  .object({
    tool: z.string(),
    status: z.number().int().openapi({ description: "The HTTP status the single call would have answered." }),
    success: z.boolean(),
    data: z.record(z.string(), z.unknown()).openapi({ description: "The body the single call would have answered: its result envelope, or the error envelope." }),
  })
  .openapi("BatchItemResult");

const BatchResponse = z
  .object({
    success: z.literal(true),
    message: z.string(),
    count: z.number().int(),
    totalLatency: z.string(),
    deductedCredits: z.number().int().openapi({ description: "Credits this batch took, net of the refunds of items whose provider failed." }),
    userCredits: z.number().int(),
    results: z.array(BatchItemResult),
    replayed: ReplayedField,
  })
  .openapi("BatchResponse");

const PATHS: Record<Family, string> = { v1: "/v1/batch", playground: "/playground/multicall" };

function batchCallOf(c: Context<AppEnv>, family: Family): Omit<BatchCall, "items"> {
  const { account, key } = c.var.caller;
  return {
    key,
    ctx: toolContext(c, family, account, sourceOf(c)),
    onWindow: (window) => setRateLimitHeaders(c, window),
    onCharged: () => c.set("charged", true),
  };
}

/** A batch refused as a whole before reserving: one slot, one "batch" log entry, free. */
async function refuseWhole(c: Context<AppEnv>, family: Family, error: unknown): Promise<never> {
  const batch = batchCallOf(c, family);
  throw await rejectRequest(batch, error, batchEntryDraft(batch));
}

function mountBatch(app: OpenAPIHono<AppEnv>, family: Family): void {
  const refuse = (c: Context<AppEnv>, error: unknown) => refuseWhole(c, family, error);
  const route = createRoute({
    method: "post",
    path: PATHS[family],
    tags: [family === "v1" ? "Tools" : "Playground"],
    summary: "Run several tool calls in one request (sum of the items)",
    description:
      `Items are validated first (an invalid item is a failed result and costs nothing), then the prices of the rest are reserved together with one rate-limit slot per item, atomically; then the items run in parallel. One failing item never fails the batch; an item whose provider fails is refunded like a single call. Too little balance or too little room in the window refuses the whole batch. At most ${MAX_BATCH_ITEMS} items.${family === "playground" ? "\n\nMCP tool: `multicall`." : ""}`,
    security: API_KEY_SECURITY,
    middleware: [requireKey({ meter: false }), requireJsonBodyOr(refuse), idempotent(refuse)] as const,
    request: { headers: IdempotencyHeaders, body: { required: true, content: { "application/json": { schema: BatchRequest } } } },
    responses: {
      200: jsonOk(BatchResponse, "Every item's outcome, in the order sent, and the credits taken."),
      ...errorResponses(...BILLED_CALL_ERRORS, ...IDEMPOTENCY_ERRORS),
    },
  });
  app.openapi(
    route,
    async (c) => {
      const request = c.req.valid("json");
      let tools: AnyTool[];
      try {
        tools = toolsOf(request);
      } catch (error) {
        return refuse(c, error);
      }
      const batch = { ...batchCallOf(c, family), items: request.requests.map((item, index) => ({ tool: tools[index]!, args: item.args })) };
      return jsonAnswer(c, batchResponseBody(publicBaseUrl(c), await runBatch(batch)), 200);
    },
    (result, c) => {
      if (result.success) return undefined;
      return refuse(c, validationError(result as Parameters<typeof validationError>[0]));
    },
  );
}

export function mountBatches(app: OpenAPIHono<AppEnv>): void {
  for (const family of ["v1", "playground"] as const) mountBatch(app, family);
}

