import type { Context } from "hono";
import type { ReserveOutcome, WindowState } from "../../durable-objects/account-ledger";
import { PixelgateError } from "../errors";
import { accountGone, invalidKey } from "../accounts/refusals";

/** Every authenticated response carries the key's window. */
export function setRateLimitHeaders(c: Context, window: WindowState): void {
  c.header("X-RateLimit-Limit", String(window.limit));
  c.header("X-RateLimit-Remaining", String(window.remaining));
  c.header("X-RateLimit-Reset", String(window.resetSeconds));
}

/**
 * The domain error for a ledger refusal, or null when the reservation went through. Where credits
 * ran short, `getCredits` (the operator's "Get credits" link, if any) is named in the message and
 * the body.
 */
export function refusalOf(outcome: ReserveOutcome, getCredits: string | null = null): PixelgateError | null {
  if (outcome.ok) return null;
  if (outcome.reason === "key_revoked") return invalidKey();
  if (outcome.reason === "account_closed") return accountGone();
  if (outcome.reason === "rate_limited") {
    return new PixelgateError(
      "rate_limit_exceeded",
      `Rate limit of ${outcome.window.limit} requests per 60 seconds reached for this key; retry in ${outcome.retryAfterSeconds} s.`,
      { headers: { "Retry-After": String(outcome.retryAfterSeconds) } },
    );
  }
  return new PixelgateError(
    "insufficient_credits",
    `Insufficient credits: this request needs ${outcome.required} and the account has ${outcome.balance}.` +
      (getCredits ? ` Get credits at ${getCredits}` : ""),
    { details: { currentCredits: outcome.balance, requiredCredits: outcome.required, ...(getCredits ? { getCreditsUrl: getCredits } : {}) } },
  );
}
