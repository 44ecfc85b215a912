import { ApiError } from "./client.ts";

// Exit codes a script can branch on without parsing output. Each class of failure calls for a
// different reaction (fix the command, fix the key, top up, wait, fix the input, retry later).

export const EXIT = {
  ok: 0,
  /** Some items of a batch failed, or something unexpected happened. */
  failed: 1,
  /** Unknown command or option, missing argument, unreadable local file. */
  usage: 2,
  /** 401, or PIXELGATE_API_KEY not set. */
  auth: 3,
  /** 400 insufficient_credits. */
  credits: 4,
  /** 429; Retry-After is printed. */
  rateLimit: 5,
  /** Any other 4xx: bad parameter, unreadable image, safety refusal, idempotency conflict. */
  badInput: 6,
  /** 5xx, provider failure (502), or the service could not be reached. */
  service: 7,
  /** The call succeeded and was charged, but -o could not be written: the result is printed instead. */
  notSaved: 8,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_HELP = `Exit codes:
  0  success
  1  some batch items failed (or an unexpected error)
  2  usage error: unknown command or option, missing argument, unreadable local file,
     -o path that cannot be written, malformed PIXELGATE_URL (nothing is sent)
  3  authentication: PIXELGATE_API_KEY missing, invalid or revoked (HTTP 401)
  4  not enough credits (400 insufficient_credits)
  5  rate limited (HTTP 429); the Retry-After seconds are printed
  6  bad input: any other 4xx (invalid parameter, unreadable image, safety refusal, ...)
  7  service failure: 5xx, model provider failure (502), or the service is unreachable
  8  the call succeeded (and was charged) but its result could not be saved with -o:
     the hosted URL (or the inline result) is printed on stdout instead`;

/** A mistake in the command line itself, detected before anything is sent. */
export class UsageError extends Error {}

/** No key to send: an authentication failure found before anything is sent. */
export class MissingKeyError extends Error {
  constructor() {
    super("PIXELGATE_API_KEY is not set. Create a key, then: export PIXELGATE_API_KEY=pg_... (and PIXELGATE_URL if the service is not on http://localhost:8787).");
  }
}

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof MissingKeyError) return EXIT.auth;
  if (!(error instanceof ApiError)) return EXIT.failed;
  if (error.status === 0 || error.status >= 500) return EXIT.service;
  if (error.status === 401) return EXIT.auth;
  if (error.status === 429) return EXIT.rateLimit;
  if (error.code === "insufficient_credits") return EXIT.credits;
  if (error.status >= 400) return EXIT.badInput;
  return EXIT.failed;
}

/** One line (two for credits and rate limits) saying what went wrong and what to do. */
export function describeFailure(error: unknown): string {
  if (error instanceof UsageError) return `pixelgate: ${error.message}\nRun "pixelgate --help" for usage.`;
  if (!(error instanceof ApiError)) return `pixelgate: ${error instanceof Error ? error.message : String(error)}`;
  const code = error.code ? ` [${error.code}]` : error.status ? ` [HTTP ${error.status}]` : "";
  const lines = [`pixelgate: ${error.message}${code}`];
  const body = error.body;
  if (error.code === "insufficient_credits" && body?.requiredCredits !== undefined) {
    lines.push(`This call needs ${body.requiredCredits} credits; the balance is ${body.currentCredits ?? "?"}.`);
  }
  if (error.status === 429) lines.push(`Rate limited: retry after ${error.retryAfter ?? "a few"} seconds.`);
  else if (error.retryAfter !== undefined) lines.push(`Retry after ${error.retryAfter} seconds.`);
  if (error.status === 401) lines.push("Check PIXELGATE_API_KEY (and PIXELGATE_URL).");
  if (body?.error?.param) lines.push(`Parameter: ${body.error.param}`);
  return lines.join("\n");
}
