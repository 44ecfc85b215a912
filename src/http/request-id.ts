import type { MiddlewareHandler } from "hono";
import { randomBase62 } from "../ids/random";
import type { AppEnv } from "../env";

/** Every response carries X-Request-Id; the same id goes into the usage log. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = "req_" + randomBase62(20);
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
};
