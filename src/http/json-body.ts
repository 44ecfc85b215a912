import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { sha256Hex } from "../ids/sha256";
import type { AppEnv } from "../env";
import { spliceInlineImage, withInlineImage, type SplicedBody } from "../images/inline-body";
import { fail } from "./envelope";

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/** Bodies over 32 MB answer 413 before they are buffered. */
export const limitBody: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => fail("request_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB.`),
});

/**
 * Route middleware for routes with a body: POST, PUT and PATCH bodies must be JSON and say so.
 * Checking before the validator turns form posts and malformed JSON into a clear 400 instead of
 * a confusing "missing field". It is per route (not global) so an unknown path still answers 404.
 * The body is read here, once, with a large inline image taken out of it (inline-body.ts).
 */
export const requireJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const spliced = await readJsonBody(c);
  await withInlineImage(spliced, async () => {
    await next();
  });
};

/** The body checked as JSON, and its text cached for Hono's readers (validator, idempotency). */
async function readJsonBody(c: Context<AppEnv>): Promise<SplicedBody> {
  if (!METHODS_WITH_BODY.has(c.req.method)) return { text: "" };
  const type = c.req.header("Content-Type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    fail("invalid_parameter", "Send the body as JSON with Content-Type: application/json.", { param: "Content-Type" });
  }
  try {
    if (Object.keys(c.req.bodyCache).length > 0) {
      await c.req.json(); // already read by an earlier handler: parse what it kept
      return { text: "" };
    }
    // Idempotent requests compare bodies, so their image token is the payload's hash.
    const keyed = c.req.header("Idempotency-Key") !== undefined;
    const spliced = await spliceInlineImage(new Uint8Array(await c.req.raw.arrayBuffer()), (text) => (keyed ? sha256Hex(text) : Promise.resolve(crypto.randomUUID())));
    JSON.parse(spliced.text);
    // Hono caches each body reading as a promise of it (its type says the value).
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(spliced.text);
    return spliced;
  } catch {
    fail("invalid_parameter", "The request body is not valid JSON.", { param: "body" });
  }
}


/**
 * requireJsonBody for billed routes, where a body that is not JSON is a refused request like any
 * other (counted, logged, free): the route's `reject` answers it.
 */
export function requireJsonBodyOr(reject: (c: Context<AppEnv>, error: unknown) => Promise<never>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let spliced: SplicedBody;
    try {
      spliced = await readJsonBody(c);
    } catch (error) {
      return reject(c, error);
    }
    await withInlineImage(spliced, async () => {
      await next();
    });
  };
}
