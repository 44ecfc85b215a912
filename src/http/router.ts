import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { validationHook } from "./validation";

/** Every route group is an OpenAPIHono with the shared validation hook. */
export function newRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
