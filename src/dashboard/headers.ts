import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";

// Security headers for every dashboard response. The CSP allows scripts and styles only from
// our own origin (no inline script, no inline style, no eval), images from ourselves, data:
// (playground results) and https (GitHub and Google profile pictures); forms post only to
// ourselves (a page whose forms lead elsewhere, as billing's to Stripe, names where with
// dashboardCsp, and the browser holds a form's redirect to it); no one may frame the pages.
// Pages that show account data are never cached.

export function dashboardCsp(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: https:",
    "connect-src 'self'",
    `form-action ${["'self'", ...formTargets].join(" ")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

const CSP = dashboardCsp();

export const dashboardHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", CSP);
  c.header("X-Frame-Options", "DENY");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
  if (new URL(c.req.url).protocol === "https:") c.header("Strict-Transport-Security", "max-age=31536000");
  // Assets set their own caching; everything else may hold account data or a one-time secret.
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
};
