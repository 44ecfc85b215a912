import { servingRequest } from "./codecs/fuel";
import { PixelgateError } from "./errors";
import type { AppEnv, Env } from "./env";
import { deliverUsage, type UsageMessage } from "./usage/delivery";
import { errorResponse } from "./http/envelope";
import { limitBody } from "./http/json-body";
import { requestId } from "./http/request-id";
import { newRouter } from "./http/router";
import { accountRoutes } from "./routes/account";
import { adminRoutes } from "./routes/admin";
import { mountDiscovery } from "./routes/discovery";
import { modelRoutes } from "./routes/models";
import { fileRoutes } from "./routes/files";
import { inputFileRoutes } from "./routes/input-files";
import { mountTools } from "./routes/tools";
import { mountBatches } from "./routes/batch";
import { mountMcp } from "./routes/mcp";
import { dashboardRoutes } from "./routes/dashboard";
import { stripeWebhookRoutes } from "./routes/stripe-webhook";
import { HTTPException } from "hono/http-exception";
import { except } from "hono/combine";

export { AccountLedger } from "../durable-objects/account-ledger";

const app = newRouter();

app.use("*", requestId);
// The dashboard limits its forms' size itself, answering with a page rather than JSON.
app.use("*", except("/dashboard/*", limitBody));

app.route("/", accountRoutes);
app.route("/", modelRoutes);
app.route("/", adminRoutes);
app.route("/", inputFileRoutes);
app.route("/", fileRoutes);
app.route("/", stripeWebhookRoutes);
mountTools(app);
mountBatches(app);
mountMcp(app);
mountDiscovery(app);
app.route("/dashboard", dashboardRoutes);

app.notFound((c) => errorResponse(c, new PixelgateError("not_found", `No endpoint ${c.req.method} ${c.req.path}.`)));

app.onError((err, c) => {
  if (err instanceof PixelgateError) return errorResponse(c, err);
  if (err instanceof HTTPException && err.status < 500) {
    const code = err.status === 413 ? "request_too_large" : err.status === 404 ? "not_found" : "invalid_parameter";
    return errorResponse(c, new PixelgateError(code, err.message || "The request could not be read."));
  }
  console.error(`[${c.get("requestId")}]`, err);
  return errorResponse(c, new PixelgateError("internal_error", "Something went wrong on our side. Retry at most once or twice."));
});

export type { AppEnv };
// Every request inside servingRequest: codec work it does outside a budget of its own still
// has a ceiling (codecs/fuel.ts).
export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => servingRequest(() => app.fetch(request, env, ctx)),
  queue: deliverUsage,
} satisfies ExportedHandler<Env, UsageMessage>;
