import type { Context, MiddlewareHandler } from "hono";
import { ledgerOf } from "../accounts/ledger";
import { findKeyByHash, touchApiKey, type Account, type ApiKeyRecord } from "../accounts/repository";
import type { LedgerSnapshot } from "../../durable-objects/account-ledger";
import type { AppEnv, Env } from "../env";
import { PixelgateError } from "../errors";
import { refusalOf, setRateLimitHeaders } from "../http/rate-limit";
import { isWellFormedApiKey, sha256Hex } from "./keys";

/** `Authorization` first, `x-api-key` as the fallback; `Bearer ` is optional on both. */
export function presentedKey(headers: { header(name: string): string | undefined }): string | null {
  for (const name of ["Authorization", "x-api-key"]) {
    // A bare "Bearer" carries no key: fall through to the next header.
    const value = headers.header(name)?.trim().replace(/^Bearer(\s+|$)/i, "");
    if (value) return value;
  }
  return null;
}

export async function resolveKey(env: Env, presented: string | null): Promise<{ account: Account; key: ApiKeyRecord }> {
  if (!presented) {
    throw new PixelgateError("missing_api_key", "No API key was sent. Use Authorization: Bearer <API_KEY> or x-api-key.");
  }
  const invalid = new PixelgateError("invalid_api_key", "The API key is invalid or has been revoked.");
  // The checksum refuses typos and random guesses without touching the database.
  if (!isWellFormedApiKey(presented)) throw invalid;
  const found = await findKeyByHash(env.DB, await sha256Hex(presented));
  if (!found || found.key.revokedAt) throw invalid;
  if (!found.account) throw new PixelgateError("account_not_found", "The account behind this API key no longer exists.");
  return { account: found.account, key: found.key };
}

// last_used_at is informational; writing it at most once a minute per key and isolate keeps a
// D1 write off most requests.
const TOUCH_INTERVAL_MS = 60_000;
const lastTouched = new Map<string, number>();

function recordKeyUse(c: Context<AppEnv>, keyId: string): void {
  const now = Date.now();
  if ((lastTouched.get(keyId) ?? 0) > now - TOUCH_INTERVAL_MS) return;
  lastTouched.set(keyId, now);
  c.executionCtx.waitUntil(touchApiKey(c.env.DB, keyId, new Date(now).toISOString()).catch(() => {}));
}

/**
 * Authenticates the request and takes its rate-limit slot. Billed routes take the slot together
 * with the credits in one ledger call instead, so they pass `{ meter: false }`.
 */
export function requireKey(options: { meter?: boolean } = {}): MiddlewareHandler<AppEnv> {
  const meter = options.meter ?? true;
  return async (c, next) => {
    const { account, key } = await resolveKey(c.env, presentedKey(c.req));
    const ledger = ledgerOf(c.env, account.id);
    let snapshot: LedgerSnapshot;
    if (meter) {
      const outcome = await ledger.reserve({ keyId: key.id, slots: 1, credits: 0 });
      setRateLimitHeaders(c, outcome.window);
      const refusal = refusalOf(outcome);
      if (refusal) throw refusal;
      snapshot = outcome;
    } else {
      snapshot = await ledger.snapshot(key.id);
    }
    c.set("caller", { account, key, ledger: { balance: snapshot.balance, window: snapshot.window } });
    recordKeyUse(c, key.id);
    await next();
  };
}

/** Like requireKey when a key is sent; anonymous when none is. A bad key is still refused. */
export function optionalKey(): MiddlewareHandler<AppEnv> {
  const authenticated = requireKey();
  return async (c, next) => (presentedKey(c.req) ? authenticated(c, next) : next());
}
