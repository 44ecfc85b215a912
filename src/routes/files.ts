import { createRoute, z } from "@hono/zod-openapi";
import { fail } from "../http/envelope";
import { newRouter } from "../http/router";
import { errorResponses } from "../schemas/common";
import { openResult } from "../storage/results";

// GET /files/{id}.{ext}: hosted results. Immutable, so they may be cached forever; nosniff keeps
// browsers from reinterpreting an image as something executable.

const fileRoute = createRoute({
  method: "get",
  path: "/files/{name}",
  tags: ["Files"],
  summary: "A hosted result",
  request: { params: z.object({ name: z.string().openapi({ param: { name: "name", in: "path" }, example: "Q2x1dGhlYnVubnlmbHVmZnlj.png" }) }) },
  responses: {
    200: { description: "The file, with its image content type." },
    ...errorResponses("not_found"),
  },
});

export const fileRoutes = newRouter().openapi(fileRoute, async (c) => {
  const object = (await openResult(c.env.FILES, c.req.valid("param").name)) ?? fail("not_found", "No such file.");
  return c.body(object.body, 200, {
    "Content-Type": object.httpMetadata?.contentType ?? "application/octet-stream",
    "Content-Length": String(object.size),
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
    // Defence in depth for SVG results: opened directly, nothing in them may run or load.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    ETag: object.httpEtag,
  });
});
