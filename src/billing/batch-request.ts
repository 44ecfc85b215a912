import { z } from "@hono/zod-openapi";
import { PixelgateError } from "../errors";
import { errorBodyAt } from "../http/envelope";
import { toolSuccessBody } from "../http/tool-body";
import { TOOLS } from "../tools/registry";
import type { AnyTool } from "../tools/types";
import { MAX_BATCH_ITEMS, type BatchResult, type ItemOutcome } from "./batch";
import type { BilledResult } from "./billed-call";

// What a batch request looks like and what it answers, shared by /v1/batch,
// /playground/multicall and the MCP `multicall` tool.

export const BATCH_TOOL_NAMES = TOOLS.map((tool) => tool.name);

export const BatchRequest = z
  .object({
    requests: z
      .array(
        z
          .object({
            tool: z.string().openapi({ description: `One of ${BATCH_TOOL_NAMES.join(", ")}.` }),
            args: z.record(z.string(), z.unknown()).default({}).openapi({ description: "That tool's own request body, exactly as its single call takes it." }),
          })
          .strict(),
      )
      .min(1, "send at least one item")
      .max(MAX_BATCH_ITEMS, `at most ${MAX_BATCH_ITEMS} items`)
      .openapi({ description: `1 to ${MAX_BATCH_ITEMS} calls, run in parallel; results come back in this order.` }),
  })
  .strict()
  .openapi("BatchRequest");
export type BatchRequest = z.infer<typeof BatchRequest>;

/** The tool of every item, or a 400 naming the first unknown one. */
export function toolsOf(request: BatchRequest): AnyTool[] {
  return request.requests.map(({ tool }, index) => {
    const found = TOOLS.find((candidate) => candidate.name === tool);
    if (!found) {
      throw new PixelgateError("invalid_parameter", `Unknown tool "${tool}"; use one of ${BATCH_TOOL_NAMES.join(", ")}.`, { param: `requests.${index}.tool` });
    }
    return found;
  });
}

function itemData(baseUrl: string, item: ItemOutcome, userCredits: number): Record<string, unknown> {
  if (item.success) return toolSuccessBody({ ...(item.body as BilledResult), userCredits });
  const error = item.body instanceof PixelgateError ? item.body : new PixelgateError("internal_error", "Something went wrong on our side with this item.");
  return errorBodyAt(baseUrl, error);
}

/** The multicall body: every item as its single call would have answered, in the order sent. */
export function batchResponseBody(baseUrl: string, outcome: BatchResult) {
  const failed = outcome.items.filter((item) => !item.success).length;
  return {
    success: true as const,
    message: `Ran ${outcome.count} item${outcome.count === 1 ? "" : "s"}: ${outcome.count - failed} succeeded, ${failed} failed.`,
    count: outcome.count,
    totalLatency: outcome.totalLatency,
    deductedCredits: outcome.deductedCredits,
    userCredits: outcome.userCredits,
    results: outcome.items.map((item) => ({ tool: item.tool, status: item.status, success: item.success, data: itemData(baseUrl, item, outcome.userCredits) })),
  };
}
