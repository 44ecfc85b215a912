import { settingsOf } from "../config/settings";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { PixelgateError } from "../errors";
import { sha256Hex } from "../ids/sha256";

/**
 * Operator token check. Both sides are hashed to equal length first so that
 * timingSafeEqual compares in constant time whatever the presented length. With no
 * ADMIN_TOKEN configured, the operator API is closed.
 */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = settingsOf(c.env).adminToken;
  const presented = c.req.header("Authorization")?.replace(/^Bearer\s+/i, "").trim();
  if (!presented) throw new PixelgateError("missing_api_key", "Send the operator token as Authorization: Bearer <ADMIN_TOKEN>.");
  const [a, b] = await Promise.all([sha256Hex(presented), sha256Hex(expected ?? "")]);
  const encoder = new TextEncoder();
  const matches = crypto.subtle.timingSafeEqual(encoder.encode(a), encoder.encode(b));
  if (!expected || !matches) throw new PixelgateError("invalid_api_key", "The operator token is not valid.");
  await next();
};
