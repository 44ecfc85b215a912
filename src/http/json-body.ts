import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../env";
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
 */
export const requireJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method)) {
    const type = c.req.header("Content-Type") ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      fail("invalid_parameter", "Send the body as JSON with Content-Type: application/json.", { param: "Content-Type" });
    }
    try {
      await c.req.json(); // parsed once; Hono caches it for the route's validator
    } catch {
      fail("invalid_parameter", "The request body is not valid JSON.", { param: "body" });
    }
  }
  await next();
};

/**
 * requireJsonBody for billed routes, where a body that is not JSON is a refused request like any
 * other (counted, logged, free): the route's `reject` answers it.
 */
export function requireJsonBodyOr(reject: (c: Context<AppEnv>, error: unknown) => Promise<never>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      await requireJsonBody(c, async () => {});
    } catch (error) {
      return reject(c, error);
    }
    await next();
  };
}
