import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { findAccount, type Account } from "../accounts/repository";
import type { AppEnv } from "../env";
import { sha256Hex } from "../ids/sha256";

// Dashboard sessions. The browser holds a random 256-bit token in an HttpOnly, Secure,
// SameSite=Lax cookie with the __Host- prefix (no Domain, Path=/, so no sibling host can set or
// shadow it); the server keeps only the token's SHA-256. Signing out deletes the row, so the
// cookie is worthless afterwards even if someone copied it.

export const SESSION_COOKIE = "__Host-pg_session";
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface DashboardSession {
  /** SHA-256 of the cookie token: the session's id, and what CSRF tokens are bound to. */
  tokenHash: string;
  account: Account;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Starts a session for the account and sets its cookie on the response. */
export async function startSession(c: Context<AppEnv>, accountId: string): Promise<void> {
  const token = randomToken();
  const now = Date.now();
  await c.env.DB.batch([
    // The account's expired sessions go as a new one starts.
    c.env.DB.prepare("DELETE FROM dashboard_sessions WHERE account_id = ? AND expires_at <= ?").bind(accountId, new Date(now).toISOString()),
    c.env.DB.prepare("INSERT INTO dashboard_sessions (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)")
      .bind(await sha256Hex(token), accountId, new Date(now).toISOString(), new Date(now + SESSION_TTL_MS).toISOString()),
  ]);
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    path: "/",
    maxAge: SESSION_TTL_MS / 1000,
  });
}

/** The signed-in account, or null (no cookie, unknown or expired token, account deleted). */
export async function currentSession(c: Context<AppEnv>): Promise<DashboardSession | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token || token.length > 100) return null;
  const db = c.env.DB;
  const tokenHash = await sha256Hex(token);
  const row = await db
    .prepare("SELECT account_id, expires_at FROM dashboard_sessions WHERE token_hash = ?")
    .bind(tokenHash)
    .first<{ account_id: string; expires_at: string }>();
  if (!row || row.expires_at <= new Date().toISOString()) return null;
  const account = await findAccount(db, row.account_id);
  return account ? { tokenHash, account } : null;
}

/** Deletes the session server-side and clears the cookie. */
export async function endSession(c: Context<AppEnv>, session: DashboardSession | null): Promise<void> {
  if (session) {
    await c.env.DB.prepare("DELETE FROM dashboard_sessions WHERE token_hash = ?").bind(session.tokenHash).run();
  }
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true, httpOnly: true, sameSite: "Lax" });
}
