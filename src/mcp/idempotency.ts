import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { entryDraftOf, rejectRequest } from "../billing/billed-call";
import { checkedKey, IDEMPOTENCY_HEADER, withIdempotencyKey, type ClaimedKey } from "../billing/idempotency";
import { PixelgateError } from "../errors";
import type { McpCaller } from "./catalog";
import { creditsLine, errorToolResult } from "./results";

// Idempotency over MCP, with REST's semantics: a tool call that carries an `idempotencyKey`
// argument and repeats an earlier call's arguments within 24 hours gets the first result back,
// marked as a replay that charged nothing; other arguments under the same key are refused, and
// so is a repeat while the first still runs. Only results given after a charge are kept, so a
// call refused for free can be retried as is.
//
// The Idempotency-Key header of the /mcp request is another matter: clients set headers once,
// in their configuration, so the same header comes with every call. Under a header each
// distinct call is its own key (perRequest): a repeat of the same arguments replays, other
// arguments run as a new call rather than failing with idempotency_conflict.

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

/** A stored result given again: it says that nothing was charged this time. */
function asReplay(first: CallToolResult, param: string): CallToolResult {
  const structured = first.structuredContent as { deductedCredits?: number; userCredits?: number } | undefined;
  const spent = structured?.deductedCredits;
  const how = param === IDEMPOTENCY_HEADER ? "the same arguments under this Idempotency-Key header" : "this idempotencyKey";
  const note =
    `Replayed the result of an earlier call with ${how}: nothing was charged this time` +
    (spent ? ` (the first call spent ${spent} credit${spent === 1 ? "" : "s"}).` : ".") +
    (param === IDEMPOTENCY_HEADER ? " For a new result, pass a new idempotencyKey argument." : "");
  const spentLine = structured && typeof spent === "number" && typeof structured.userCredits === "number" ? creditsLine({ deductedCredits: spent, userCredits: structured.userCredits }) : null;
  let noted = false;
  const content = first.content.map((block) => {
    if (noted || block.type !== "text") return block;
    noted = true;
    return { ...block, text: spentLine && block.text.includes(spentLine) ? block.text.replace(spentLine, note) : `${note} ${block.text}` };
  });
  const replayed = { ...structured, ...(typeof spent === "number" ? { deductedCredits: 0 } : {}), replayed: true };
  return { ...first, content, structuredContent: replayed, _meta: { ...first._meta, "pixelgate/replayed": true } };
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
  const perRequest = split.param === IDEMPOTENCY_HEADER;
  const claim = { env: caller.ctx.env, accountId: caller.account.id, keyId: caller.key.id, idempotencyKey, scope: `mcp ${tool}`, request: split.args, perRequest };
  try {
    return await withIdempotencyKey<CallToolResult>(claim, {
      replay: async (stored) => asReplay(JSON.parse(await stored.text()) as CallToolResult, split.param),
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
