import { createRoute, z } from "@hono/zod-openapi";
import { fail } from "../http/envelope";
import { newRouter } from "../http/router";
import { errorResponses } from "../schemas/common";
import { openInputCopy } from "../storage/input-copies";

// GET /files/inputs/{id}.{ext}?expires=…&signature=…: the short-lived copies of input images that
// a provider fetches by URL (src/storage/input-copies.ts). A link past its expiry, or with a
// signature we did not make, is 404 in the error envelope. Never cached: the link expires.

const inputFileRoute = createRoute({
  method: "get",
  path: "/files/inputs/{name}",
  tags: ["Files"],
  summary: "A signed, expiring copy of an input image, for a model provider",
  request: {
    params: z.object({ name: z.string().openapi({ param: { name: "name", in: "path" }, example: "Q2x1dGhlYnVubnlmbHVmZnlj.png" }) }),
    query: z.object({ expires: z.string().optional(), signature: z.string().optional() }),
  },
  responses: {
    200: { description: "The image, with its content type." },
    ...errorResponses("not_found"),
  },
});

export const inputFileRoutes = newRouter().openapi(inputFileRoute, async (c) => {
  const { expires, signature } = c.req.valid("query");
  const opened = await openInputCopy(c.env, c.req.valid("param").name, expires, signature);
  if (!opened.ok) fail("not_found", opened.reason);
  const { object } = opened;
  return c.body(object.body, 200, {
    "Content-Type": object.httpMetadata?.contentType ?? "application/octet-stream",
    "Content-Length": String(object.size),
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });
});
