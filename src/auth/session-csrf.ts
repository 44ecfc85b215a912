import { settingsOf } from "../config/settings";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppEnv, Env } from "../env";
import { publicBaseUrl } from "../http/envelope";
import { keptSecret } from "../storage/kept-secrets";
import type { DashboardSession } from "./session";

// CSRF protection for every dashboard form, in two layers:
// 1. A token in each form: HMAC-SHA256 under a server secret of what the form is bound to, the
//    session (its token hash) once signed in, or before that a random nonce kept in a __Host-
//    cookie (signed double submit). A site that cannot read our pages cannot produce the token.
// 2. The Origin of every POST must be this service's own (or, where a browser omits Origin,
//    Sec-Fetch-Site must not say cross-site).

export const CSRF_FIELD = "csrf";
const NONCE_COOKIE = "__Host-pg_csrf";

export class CsrfRefusal extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "CsrfRefusal";
  }
}

let cachedSecret: { configured: string | undefined; key: Promise<CryptoKey> } | undefined;

/** DASHBOARD_SECRET when configured; else one generated once and kept in D1, so no setup is needed. */
function storedSecret(env: Env): Promise<string> {
  return keptSecret(env.DB, "csrf", settingsOf(env).dashboardSecret);
}

function signingKey(env: Env): Promise<CryptoKey> {
  const configured = settingsOf(env).dashboardSecret;
  if (!cachedSecret || cachedSecret.configured !== configured) {
    const key = storedSecret(env).then((secret) =>
      crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]),
    );
    // A failed lookup must not stick for the isolate's lifetime.
    key.catch(() => (cachedSecret = undefined));
    cachedSecret = { configured, key };
  }
  return cachedSecret.key;
}

/** HMAC-SHA256 (hex) of `binding` under the dashboard secret; other short-lived dashboard state is signed with it too. */
export async function sign(env: Env, binding: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await signingKey(env), new TextEncoder().encode(binding));
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
}

function bindingOf(session: DashboardSession | null, nonce: string | undefined): string | null {
  if (session) return `session:${session.tokenHash}`;
  return nonce ? `anonymous:${nonce}` : null;
}

/** The token to put in a form. Before sign-in this sets the nonce cookie when there is none. */
export async function csrfToken(c: Context<AppEnv>, session: DashboardSession | null): Promise<string> {
  let nonce = getCookie(c, NONCE_COOKIE);
  if (!session && (!nonce || nonce.length > 64)) {
    nonce = crypto.randomUUID();
    setCookie(c, NONCE_COOKIE, nonce, { httpOnly: true, secure: true, sameSite: "Lax", path: "/" });
  }
  return sign(c.env, bindingOf(session, nonce)!);
}

function sameOrigin(c: Context<AppEnv>): boolean {
  const origin = c.req.header("Origin");
  if (origin) {
    const ours = new Set([new URL(c.req.url).origin, new URL(publicBaseUrl(c)).origin]);
    return ours.has(origin);
  }
  const site = c.req.header("Sec-Fetch-Site");
  return site === undefined || site === "same-origin" || site === "none";
}

/** Throws CsrfRefusal unless the POST came from our own page with a valid token. */
export async function checkCsrf(c: Context<AppEnv>, session: DashboardSession | null, presented: unknown): Promise<void> {
  if (!sameOrigin(c)) throw new CsrfRefusal("The form was sent from another site.");
  const binding = bindingOf(session, getCookie(c, NONCE_COOKIE));
  if (typeof presented !== "string" || !binding) throw new CsrfRefusal("The form is missing its security token.");
  if (!(await hasSignature(c.env, binding, presented))) throw new CsrfRefusal("The form's security token does not match this session.");
}

/** Whether `presented` is sign(binding), compared in constant time. */
export async function hasSignature(env: Env, binding: string, presented: string): Promise<boolean> {
  const expected = new TextEncoder().encode(await sign(env, binding));
  const actual = new TextEncoder().encode(presented);
  return actual.length === expected.length && crypto.subtle.timingSafeEqual(actual, expected);
}
