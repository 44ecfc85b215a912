import { Hono } from "hono";
import { DASHBOARD_CSS, DASHBOARD_JS } from "../dashboard/assets";
import { dashboardHeaders } from "../dashboard/headers";
import { notFoundPage } from "../dashboard/not-found";
import { accountPages } from "../dashboard/routes-account";
import { authRoutes } from "../dashboard/routes-auth";
import { billingPages } from "../dashboard/routes-billing";
import { playgroundPages } from "../dashboard/routes-playground";
import { limitFormBody } from "../dashboard/too-large";
import type { AppEnv } from "../env";

// The dashboard, mounted at /dashboard: server-rendered pages (hono/jsx) for people, beside the
// API for programs. It is not part of the OpenAPI document.

const ASSET_CACHE = "public, max-age=3600";

export const dashboardRoutes = new Hono<AppEnv>()
  .use("*", dashboardHeaders)
  .use("*", limitFormBody)
  .get("/assets/dashboard.css", (c) => c.body(DASHBOARD_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": ASSET_CACHE }))
  .get("/assets/dashboard.js", (c) => c.body(DASHBOARD_JS, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": ASSET_CACHE }))
  .route("/", authRoutes)
  .route("/", accountPages)
  .route("/", billingPages)
  .route("/", playgroundPages)
  .all("*", notFoundPage);

dashboardRoutes.onError((error, c) => {
  console.error(`[${c.get("requestId")}] dashboard`, error);
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Something went wrong · Pixelgate</title><link rel="stylesheet" href="/dashboard/assets/dashboard.css"></head><body><main id="main"><section class="card narrow"><h1>Something went wrong</h1><p role="alert">Something failed on our side. Try again in a moment.</p><p><a href="/dashboard">Back to the dashboard</a></p></section></main></body></html>`,
    500,
  );
});
