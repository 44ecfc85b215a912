import { PixelgateError } from "../errors";

// The authentication refusals, worded once: they are raised both where the key is resolved (auth)
// and where the ledger finds a cached key revoked or its account closed.

export function missingKey(): PixelgateError {
  return new PixelgateError("missing_api_key", "No API key was sent. Use Authorization: Bearer <API_KEY> or x-api-key.");
}

export function invalidKey(): PixelgateError {
  return new PixelgateError("invalid_api_key", "The API key is invalid or has been revoked.");
}

export function accountGone(): PixelgateError {
  return new PixelgateError("account_not_found", "The account behind this API key no longer exists.");
}

/** Refusals that mean the request never passed authentication, so it is not logged. */
export function isAuthRefusal(error: unknown): boolean {
  return error instanceof PixelgateError && (error.code === "invalid_api_key" || error.code === "account_not_found" || error.code === "missing_api_key");
}
