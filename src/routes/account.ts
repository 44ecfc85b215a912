import { createRoute, z } from "@hono/zod-openapi";
import { requireKey } from "../auth/authenticate";
import { newRouter } from "../http/router";
import { USAGE_PAGE } from "../usage/log";
import { listUsage } from "../usage/read";
import { API_KEY_SECURITY, AUTH_ERRORS, errorResponses, jsonOk } from "../schemas/common";
import { UsageEntrySchema, User, UserData, userDataOf, userOf } from "../schemas/resources";

// Who am I, and what have I spent: /v1/me, /v1/usage and /auth/user-data. All free.

const me = createRoute({
  method: "get",
  path: "/v1/me",
  tags: ["Account"],
  summary: "The account behind the key, with its balance",
  security: API_KEY_SECURITY,
  middleware: [requireKey()],
  responses: {
    200: jsonOk(
      z.object({ success: z.literal(true), user: User, authMethod: z.literal("api_key") }).openapi("Me"),
      "The account and how this request was authenticated.",
    ),
    ...errorResponses(...AUTH_ERRORS),
  },
});

const usage = createRoute({
  method: "get",
  path: "/v1/usage",
  tags: ["Account"],
  summary: "The usage log, newest first",
  description: "REST, MCP and CLI calls all appear here. At most the newest 100 entries are returned.",
  security: API_KEY_SECURITY,
  middleware: [requireKey()],
  request: {
    query: z.object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .optional()
        .openapi({ description: `Entries to return: 1 to ${USAGE_PAGE.max}, default ${USAGE_PAGE.default}; larger values are clamped to ${USAGE_PAGE.max}.` }),
    }),
  },
  responses: {
    200: jsonOk(
      z.object({ success: z.literal(true), count: z.number().int(), logs: z.array(UsageEntrySchema) }).openapi("UsageLog"),
      "Log entries, newest first.",
    ),
    ...errorResponses("invalid_parameter", ...AUTH_ERRORS),
  },
});

const userData = createRoute({
  method: "get",
  path: "/auth/user-data",
  tags: ["Account"],
  summary: "The account behind the key, dashboard shape",
  security: API_KEY_SECURITY,
  middleware: [requireKey()],
  responses: {
    200: jsonOk(z.object({ user: UserData }).openapi("UserDataResponse"), "The account."),
    ...errorResponses(...AUTH_ERRORS),
  },
});

export const accountRoutes = newRouter()
  .openapi(me, (c) => {
    return c.json({ success: true as const, user: userOf(c.var.caller.account, c.var.ledger.balance), authMethod: "api_key" as const }, 200);
  })
  .openapi(usage, async (c) => {
    const { limit = USAGE_PAGE.default } = c.req.valid("query");
    const logs = await listUsage(c.env, c.var.caller.account.id, limit);
    return c.json({ success: true as const, count: logs.length, logs }, 200);
  })
  .openapi(userData, (c) => {
    return c.json({ user: userDataOf(c.var.caller.account, c.var.ledger.balance) }, 200);
  });
