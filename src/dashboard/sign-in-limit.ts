import type { Context } from "hono";

// Throttling of password guessing, kept in D1 (table sign_in_attempts): failed sign-ins are
// counted per email and per client IP, sign-ups per client IP, each over a sliding 15-minute
// window. The check runs before the password hash is computed, so a blocked guesser costs us
// one query, not a PBKDF2 run. Two attempts racing past the check can overshoot a limit by one
// or two; that is fine for a throttle (the Durable Object would be exact but is per account,
// and an attacker targets many emails from one IP).

export const ATTEMPT_WINDOW_MS = 15 * 60 * 1000;
export const LIMITS = { email: 10, ip: 30, "signup-ip": 10 } as const;
export type AttemptScope = keyof typeof LIMITS;

export interface Throttle {
  retryAfterSeconds: number;
}

/** The client's IP as Cloudflare reports it; "unknown" in local runs without the header. */
export function clientIp(c: Context): string {
  return c.req.header("CF-Connecting-IP")?.trim().slice(0, 64) || "unknown";
}

function key(scope: AttemptScope, value: string): string {
  return `${scope}:${value.trim().toLowerCase()}`;
}

/** Null when every named scope is under its limit; else how long until the first frees a slot. */
export async function throttled(
  db: D1Database,
  scopes: Array<[AttemptScope, string]>,
  now = Date.now(),
): Promise<Throttle | null> {
  const since = now - ATTEMPT_WINDOW_MS;
  let wait = 0;
  for (const [scope, value] of scopes) {
    const limit = LIMITS[scope];
    // The attempt that must leave the window before one more is allowed.
    const row = await db
      .prepare("SELECT at FROM sign_in_attempts WHERE scope = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ?")
      .bind(key(scope, value), since, limit - 1)
      .first<{ at: number }>();
    if (row) wait = Math.max(wait, row.at + ATTEMPT_WINDOW_MS - now);
  }
  return wait > 0 ? { retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) } : null;
}

/** Counts one attempt against each scope. */
export async function recordAttempt(db: D1Database, scopes: Array<[AttemptScope, string]>, now = Date.now()): Promise<void> {
  // Entries past the window count for nothing; dropping them all keeps the table small.
  await db.batch([
    db.prepare("DELETE FROM sign_in_attempts WHERE at <= ?").bind(now - ATTEMPT_WINDOW_MS),
    ...scopes.map(([scope, value]) => db.prepare("INSERT INTO sign_in_attempts (scope, at) VALUES (?, ?)").bind(key(scope, value), now)),
  ]);
}

/** A successful sign-in forgives the email's failures (not the IP's). */
export async function forgiveEmail(db: D1Database, email: string): Promise<void> {
  await db.prepare("DELETE FROM sign_in_attempts WHERE scope = ?").bind(key("email", email)).run();
}
