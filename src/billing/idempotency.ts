import type { Context, MiddlewareHandler, Next } from "hono";
import { ledgerOf } from "../accounts/ledger";
import { sha256Hex } from "../ids/sha256";
import type { WindowState } from "../../durable-objects/account-ledger";
import type { AppEnv, Env } from "../env";
import { PixelgateError } from "../errors";
import type { AnswerBody } from "../http/json-answer";
import { setRateLimitHeaders } from "../http/rate-limit";
import { replayOf, REPLAY_EXTRA_BYTES } from "./replay";

// Idempotency-Key on billed POSTs: within 24 hours the same key with
// the same body replays the first answer and charges nothing (the replay says so: replay.ts); another body is 422; a duplicate
// while the first still runs is 409. Only answers given after a charge are kept, so a request
// refused before any charge (validation, balance, safety, rate limit) can be retried as is.
// The decision is the account's AccountLedger's (atomic, one at a time); the answer's body
// lives in R2 because it can be far larger than a Durable Object value.

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const KEY_SHAPE = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** JSON with object keys sorted at every depth, so equal bodies serialise equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

export function checkedKey(value: string): string {
  if (!KEY_SHAPE.test(value)) {
    throw new PixelgateError("invalid_parameter", "Idempotency-Key must be 1 to 255 printable ASCII characters.", { param: IDEMPOTENCY_HEADER });
  }
  return value;
}

/** How a route refuses a request before any charge: counted, logged, free (rejectCall). */
export type RejectRequest = (c: Context<AppEnv>, error: unknown) => Promise<never>;

/**
 * Route middleware, after authentication and the JSON body check. Handlers mark a call as
 * charged (`c.set("charged", true)`) once credits were reserved; only such answers are stored.
 * A malformed key is a refused request like a malformed body (`reject`); replays, 409s and 422s
 * are answers about an earlier request and are neither logged nor counted again.
 */
export function idempotent(reject: RejectRequest): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header(IDEMPOTENCY_HEADER);
    if (header === undefined) return next();
    let idempotencyKey: string;
    try {
      idempotencyKey = checkedKey(header);
    } catch (error) {
      return reject(c, error);
    }
    return runIdempotently(c, next, idempotencyKey);
  };
}

/** A claimed Idempotency-Key and the request it was claimed for. */
export interface ClaimedKey {
  key: string;
  fingerprint: string;
}

/** One claimed request: whose key it is and what the request was (compared canonically). */
export interface IdempotencyClaim {
  env: Env;
  accountId: string;
  keyId: string;
  idempotencyKey: string;
  /** Where the request went (`POST /v1/generate`, `mcp generate_image`): the same body elsewhere is another request. */
  scope: string;
  request: unknown;
  /**
   * The key stands for many requests, not one (an MCP client's Idempotency-Key header, set once
   * in its configuration and sent with every call): each distinct request under it is claimed
   * on its own, so a repeat of the same request replays and another request is not a conflict.
   */
  perRequest?: boolean;
}

export interface IdempotentRun<Answer> {
  onWindow?: (window: WindowState) => void;
  /**
   * The stored answer of the first request, shaped for the surface: streamed as it is read from
   * R2 where the surface can (an answer carrying a 24 MP BMP is 96 MB of JSON), or read whole.
   */
  replay(stored: R2ObjectBody, status: number): Answer | Promise<Answer>;
  /**
   * The request itself, run under the claimed key (the ledger releases it if the call is
   * interrupted); says whether credits were taken and, if so, what to store.
   */
  run(claimed: ClaimedKey): Promise<{ answer: Answer; charged: boolean; status: number; body: () => Promise<string | AnswerBody> }>;
}

/**
 * The Idempotency-Key protocol, for any surface (REST middleware, MCP tools): claim the key in
 * the ledger, replay, refuse (409/422 as PixelgateErrors), or run and keep a charged answer.
 */
export async function withIdempotencyKey<Answer>(claim: IdempotencyClaim, handlers: IdempotentRun<Answer>): Promise<Answer> {
  const { env, accountId, keyId } = claim;
  // Whitespace, formatting and key order do not make a different request: the parsed body,
  // re-serialised with sorted keys, is what is compared.
  const fingerprint = await sha256Hex(`${claim.scope}\n${canonicalJson(claim.request)}`);
  const idempotencyKey = claim.perRequest ? `${claim.idempotencyKey}\n${fingerprint}` : claim.idempotencyKey;
  const ledger = ledgerOf(env, accountId);
  const begun = await ledger.beginIdempotent({ keyId, idempotencyKey, fingerprint });
  handlers.onWindow?.(begun.window);

  if (begun.outcome === "conflict") {
    throw new PixelgateError("idempotency_conflict", "This Idempotency-Key was already used with a different request body.", { param: IDEMPOTENCY_HEADER });
  }
  if (begun.outcome === "in_progress") {
    throw new PixelgateError("idempotency_in_progress", "The first request with this Idempotency-Key is still running; retry shortly.", {
      param: IDEMPOTENCY_HEADER,
      headers: { "Retry-After": String(begun.retryAfterSeconds) },
    });
  }
  if (begun.outcome === "replay") {
    const stored = await env.FILES.get(begun.bodyKey);
    if (stored) return handlers.replay(stored, begun.status);
    // The stored answer is gone (deleted by hand): nothing to replay, and running again could charge twice.
    throw new PixelgateError("internal_error", "The stored answer for this Idempotency-Key is no longer available; use a new key.");
  }

  let done: Awaited<ReturnType<IdempotentRun<Answer>["run"]>> | undefined;
  try {
    done = await handlers.run({ key: idempotencyKey, fingerprint });
    return done.answer;
  } finally {
    if (done?.charged) {
      const bodyKey = `idempotency/${accountId}/${await sha256Hex(idempotencyKey)}.json`;
      const body = await done.body();
      // A streamed answer is written again from its parts, never whole (json-answer.ts).
      await env.FILES.put(bodyKey, typeof body === "string" ? body : body.stream(), { httpMetadata: { contentType: "application/json" } });
      await ledger.completeIdempotent(idempotencyKey, fingerprint, done.status, bodyKey);
    } else {
      await ledger.abandonIdempotent(idempotencyKey, fingerprint);
    }
  }
}

function runIdempotently(c: Context<AppEnv>, next: Next, idempotencyKey: string): Promise<Response | void> {
  const { account, key } = c.var.caller;
  const claim = { env: c.env, accountId: account.id, keyId: key.id, idempotencyKey, scope: `${c.req.method} ${c.req.path}` };
  return c.req.json().then((request: unknown) =>
    withIdempotencyKey<Response | void>(
      { ...claim, request },
      {
        onWindow: (window) => setRateLimitHeaders(c, window),
        replay: (stored, status) => {
          c.header("Idempotency-Replayed", "true");
          const length = String(stored.size + REPLAY_EXTRA_BYTES);
          return c.body(replayOf(stored.body), status as 200, { "Content-Type": "application/json", "Content-Length": length });
        },
        run: async (claimed) => {
          c.set("idempotency", claimed);
          await next();
          return { answer: undefined, charged: c.get("charged") === true, status: c.res.status, body: async () => c.get("answer") ?? (await c.res.clone().text()) };
        },
      },
    ),
  );
}
