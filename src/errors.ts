// The one error model. Domain code throws PixelgateError with a code from this table; each
// surface (REST envelope now, MCP results later) maps it. The table is the single place that
// says which HTTP status and public `error.type` a code means.

export const ERROR_CATALOG = {
  missing_api_key: { status: 401, type: "authentication_error", hint: "Send Authorization: Bearer <API_KEY> or x-api-key." },
  invalid_api_key: { status: 401, type: "authentication_error", hint: "The key is unknown, malformed or revoked." },
  missing_parameter: { status: 400, type: "invalid_request_error", hint: "A required field is missing." },
  invalid_parameter: { status: 400, type: "invalid_request_error", hint: "A field has a value outside what it accepts." },
  insufficient_credits: { status: 400, type: "invalid_request_error", hint: "Top up: the body says how many credits are needed." },
  content_policy_violation: { status: 400, type: "invalid_request_error", hint: "The prompt was refused by the safety screen; rewrite it." },
  image_too_large: { status: 400, type: "invalid_request_error", hint: "The image exceeds the size or pixel limit." },
  unsupported_image_format: { status: 400, type: "invalid_request_error", hint: "The image format is not accepted here." },
  invalid_image: { status: 400, type: "invalid_request_error", hint: "The image bytes could not be decoded." },
  image_fetch_failed: { status: 400, type: "invalid_request_error", hint: "The image URL could not be fetched under the fetch rules." },
  request_too_large: { status: 413, type: "invalid_request_error", hint: "The request body is over 32 MB." },
  not_found: { status: 404, type: "not_found_error", hint: "No such endpoint or resource." },
  account_not_found: { status: 404, type: "not_found_error", hint: "The account behind this key no longer exists." },
  idempotency_in_progress: { status: 409, type: "invalid_request_error", hint: "The first request with this Idempotency-Key is still running." },
  idempotency_conflict: { status: 422, type: "invalid_request_error", hint: "This Idempotency-Key was used with a different body." },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error", hint: "Wait Retry-After seconds." },
  internal_error: { status: 500, type: "api_error", hint: "Retry at most once or twice with backoff." },
  upstream_error: { status: 502, type: "upstream_error", hint: "The model provider failed; the credits were refunded." },
  upstream_timeout: { status: 502, type: "upstream_error", hint: "The model provider timed out; the credits were refunded." },
  service_busy: { status: 503, type: "api_error", hint: "The worker's image memory is taken by other requests; nothing was charged. Retry after Retry-After seconds." },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export type ErrorType = (typeof ERROR_CATALOG)[ErrorCode]["type"];

export const ERROR_TYPES = [
  "invalid_request_error",
  "authentication_error",
  "not_found_error",
  "rate_limit_error",
  "upstream_error",
  "api_error",
] as const satisfies readonly ErrorType[];

export interface PixelgateErrorOptions {
  /** The request field at fault, when there is one. */
  param?: string;
  /** Extra top-level body fields the contract names (currentCredits, isNsfw, ...). */
  details?: Record<string, unknown>;
  /** Response headers the error implies (Retry-After). */
  headers?: Record<string, string>;
}

export class PixelgateError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: PixelgateErrorOptions = {}) {
    super(message);
    this.name = "PixelgateError";
    this.code = code;
    this.param = options.param;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
}
