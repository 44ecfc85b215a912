import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../env";
import { publicBaseUrl } from "../http/envelope";
import type { OAuthClient } from "../config/settings";
import { sha256Hex } from "../ids/sha256";
import { authorizationUrl, exchangeCode, fetchProfile, OAuthFailure, type OAuthProfile } from "./oauth-providers";

// The authorization-code flow around the provider calls. The state is random, single-use, lives
// ten minutes, and is bound to the browser that started the flow by a __Host- cookie, so a
// callback URL someone else started (login CSRF) or replayed is refused. The PKCE verifier never
// leaves the server: D1 keeps it beside the state's hash.

const STATE_COOKIE = "__Host-pg_oauth";
export const STATE_TTL_MS = 10 * 60 * 1000;

function randomUrlSafe(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function redirectUriOf(c: Context<AppEnv>, client: OAuthClient): string {
  return `${publicBaseUrl(c)}/dashboard/oauth/${client.provider}/callback`;
}

/** Records a new state and returns the provider URL to send the browser to. */
export async function beginOAuth(c: Context<AppEnv>, client: OAuthClient): Promise<string> {
  const state = randomUrlSafe(32);
  const verifier = randomUrlSafe(48);
  const now = Date.now();
  await c.env.DB.batch([
    c.env.DB.prepare("DELETE FROM oauth_states WHERE created_at <= ?").bind(now - STATE_TTL_MS),
    c.env.DB.prepare("INSERT INTO oauth_states (state_hash, provider, code_verifier, created_at) VALUES (?, ?, ?, ?)")
      .bind(await sha256Hex(state), client.provider, verifier, now),
  ]);
  setCookie(c, STATE_COOKIE, state, { httpOnly: true, secure: true, sameSite: "Lax", path: "/", maxAge: STATE_TTL_MS / 1000 });
  return authorizationUrl(client, redirectUriOf(c, client), state, await s256(verifier));
}

/** Checks the callback's state against the browser's cookie and D1, then reads the profile. */
export async function completeOAuth(c: Context<AppEnv>, client: OAuthClient): Promise<OAuthProfile> {
  const { state, code, error } = c.req.query();
  const expected = getCookie(c, STATE_COOKIE);
  deleteCookie(c, STATE_COOKIE, { path: "/", secure: true, httpOnly: true, sameSite: "Lax" });
  if (error) throw new OAuthFailure("The sign-in was cancelled at the provider.", 400);
  if (!state || !expected || state.length !== expected.length ||
      !crypto.subtle.timingSafeEqual(new TextEncoder().encode(state), new TextEncoder().encode(expected))) {
    throw new OAuthFailure("This sign-in link does not belong to this browser or has expired. Start again.", 400);
  }
  // Single use: the row is deleted as it is read, so a replayed callback finds nothing.
  const row = await c.env.DB
    .prepare("DELETE FROM oauth_states WHERE state_hash = ? AND provider = ? RETURNING code_verifier, created_at")
    .bind(await sha256Hex(state), client.provider)
    .first<{ code_verifier: string; created_at: number }>();
  if (!row || row.created_at <= Date.now() - STATE_TTL_MS) {
    throw new OAuthFailure("This sign-in link has expired or was already used. Start again.", 400);
  }
  if (!code || code.length > 2000) throw new OAuthFailure("The provider sent no sign-in code. Start again.", 400);
  const token = await exchangeCode(client, code, redirectUriOf(c, client), row.code_verifier);
  return fetchProfile(client.provider, token);
}
