import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { entryDraftOf, rejectRequest } from "../billing/billed-call";
import { checkedKey, IDEMPOTENCY_HEADER, withIdempotencyKey, type ClaimedKey } from "../billing/idempotency";
import { PixelgateError } from "../errors";
import type { McpCaller } from "./catalog";
import { errorToolResult } from "./results";

// Idempotency over MCP, with REST's semantics: a tool call that carries a key (the
// `idempotencyKey` argument, or the Idempotency-Key header of the /mcp request) and repeats an
// earlier call's arguments within 24 hours gets the first result back and pays nothing; other
// arguments under the same key are refused, and so is a repeat while the first still runs. Only
// results given after a charge are kept, so a call refused for free can be retried as is.

export const IDEMPOTENCY_ARGUMENT = "idempotencyKey";

export const IDEMPOTENCY_ARGUMENT_SCHEMA = {
  type: "string",
  description:
    "Makes a retry safe: any unique string of 1 to 255 printable characters. Repeating a call with the same key and arguments within 24 hours returns the first result without charging again; other arguments under the same key are refused.",
};

/** The call's own arguments, and the key it carries (argument first, then the request header). */
export function splitIdempotencyKey(args: Record<string, unknown>, caller: McpCaller): { args: Record<string, unknown>; key: unknown; param: string } {
  const { [IDEMPOTENCY_ARGUMENT]: argument, ...rest } = args;
  if (argument !== undefined && argument !== null) return { args: rest, key: argument, param: IDEMPOTENCY_ARGUMENT };
  return { args: rest, key: caller.idempotencyKey, param: IDEMPOTENCY_HEADER };
}

export async function idempotentTool(
  caller: McpCaller,
  tool: string,
  args: Record<string, unknown>,
  run: (args: Record<string, unknown>, markCharged: () => void, claimed?: ClaimedKey) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const split = splitIdempotencyKey(args, caller);
  if (split.key === undefined) return run(split.args, () => {});
  const session = { env: caller.ctx.env, baseUrl: caller.ctx.baseUrl };
  let idempotencyKey: string;
  try {
    if (typeof split.key !== "string") throw new PixelgateError("invalid_parameter", "idempotencyKey must be a string.", { param: split.param });
    idempotencyKey = checkedKey(split.key);
  } catch (error) {
    // Named as the caller sent it: the argument, or the header.
    const named = error instanceof PixelgateError ? new PixelgateError(error.code, error.message.replace(IDEMPOTENCY_HEADER, split.param), { param: split.param }) : error;
    const call = { ctx: caller.ctx, key: caller.key };
    return errorToolResult(session, await rejectRequest(call, named, entryDraftOf(call, tool, { model: "", prompt: "" })));
  }
  const claim = { env: caller.ctx.env, accountId: caller.account.id, keyId: caller.key.id, idempotencyKey, scope: `mcp ${tool}`, request: split.args };
  try {
    return await withIdempotencyKey<CallToolResult>(claim, {
      replay: async (stored) => ({ ...(JSON.parse(await stored.text()) as CallToolResult), _meta: { "pixelgate/replayed": true } }),
      run: async (claimed) => {
        let charged = false;
        const answer = await run(split.args, () => (charged = true), claimed);
        return { answer, charged, status: answer.isError ? Number((answer.structuredContent as { status?: number })?.status ?? 500) : 200, body: async () => JSON.stringify(answer) };
      },
    });
  } catch (error) {
    return errorToolResult(session, error);
  }
}
