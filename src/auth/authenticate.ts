import type { Context, MiddlewareHandler } from "hono";
import { ledgerOf } from "../accounts/ledger";
import { findKeyByHash, touchApiKey, type Account, type ApiKeyRecord } from "../accounts/repository";
import type { AppEnv, Env } from "../env";
import { refusalOf, setRateLimitHeaders } from "../http/rate-limit";
import { isWellFormedApiKey } from "../ids/api-key";
import { sha256Hex } from "../ids/sha256";
import { accountGone, invalidKey, missingKey } from "../accounts/refusals";

/** `Authorization` first, `x-api-key` as the fallback; `Bearer ` is optional on both. */
export function presentedKey(headers: { header(name: string): string | undefined }): string | null {
  for (const name of ["Authorization", "x-api-key"]) {
    // A bare "Bearer" carries no key: fall through to the next header.
    const value = headers.header(name)?.trim().replace(/^Bearer(\s+|$)/i, "");
    if (value) return value;
  }
  return null;
}

// Resolved keys are cached per isolate. The mapping from key to account never changes; what can
// change is decided elsewhere: revocation and account deletion by the account's ledger on every
// request (so they still take effect on the next request), and profile fields (name, plan) are
// at most KEY_CACHE_TTL_MS stale. This keeps a D1 round trip off nearly every request.
const KEY_CACHE_TTL_MS = 30_000;
const KEY_CACHE_MAX = 10_000;
const keyCache = new Map<string, { found: { account: Account; key: ApiKeyRecord }; expiresAt: number }>();

export async function resolveKey(env: Env, presented: string | null): Promise<{ account: Account; key: ApiKeyRecord }> {
  if (!presented) throw missingKey();
  // The checksum refuses typos and random guesses without touching the database.
  if (!isWellFormedApiKey(presented)) throw invalidKey();
  const hash = await sha256Hex(presented);
  const cached = keyCache.get(hash);
  if (cached && cached.expiresAt > Date.now()) return cached.found;

  const found = await findKeyByHash(env.DB, hash);
  if (!found || found.key.revokedAt) throw invalidKey();
  if (!found.account) throw accountGone();
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  const resolved = { account: found.account, key: found.key };
  keyCache.set(hash, { found: resolved, expiresAt: Date.now() + KEY_CACHE_TTL_MS });
  return resolved;
}

// last_used_at is informational; writing it at most once a minute per key and isolate keeps a
// D1 write off most requests.
const TOUCH_INTERVAL_MS = 60_000;
const lastTouched = new Map<string, number>();

/** Notes that the key was used now (its "last used"), for every call made with it: the API's and the playground's. */
export function recordKeyUse(c: Context<AppEnv>, keyId: string): void {
  const now = Date.now();
  if ((lastTouched.get(keyId) ?? 0) > now - TOUCH_INTERVAL_MS) return;
  lastTouched.set(keyId, now);
  c.executionCtx.waitUntil(touchApiKey(c.env.DB, keyId, new Date(now).toISOString()).catch(() => {}));
}

/**
 * Authenticates the request and, for free routes, takes its rate-limit slot. Billed routes
 * pass `{ meter: false }`: they take the slot together with the credits in one ledger call.
 */
export function requireKey(options: { meter?: boolean } = {}): MiddlewareHandler<AppEnv> {
  const meter = options.meter ?? true;
  return async (c, next) => {
    const { account, key } = await resolveKey(c.env, presentedKey(c.req));
    if (meter) {
      const outcome = await ledgerOf(c.env, account.id).reserve({ keyId: key.id, slots: 1, credits: 0 });
      setRateLimitHeaders(c, outcome.window);
      const refusal = refusalOf(outcome);
      if (refusal) throw refusal;
      c.set("ledger", { balance: outcome.balance, window: outcome.window });
    }
    c.set("caller", { account, key });
    recordKeyUse(c, key.id);
    await next();
  };
}

/** Like requireKey when a key is sent; anonymous when none is. A bad key is still refused. */
export function optionalKey(): MiddlewareHandler<AppEnv> {
  const authenticated = requireKey();
  return async (c, next) => (presentedKey(c.req) ? authenticated(c, next) : next());
}
