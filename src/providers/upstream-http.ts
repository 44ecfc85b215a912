import { concatBytes } from "../codecs/bytes.ts";
import { PixelgateError } from "../errors";

// What every HTTP adapter needs around fetch(): the caller's deadline on every step, bodies read
// with a byte limit counted while streaming, JSON that may be broken, and upstream errors turned
// into a 502 `upstream_error` whose message says what the provider did without ever quoting our
// credentials. Nothing here retries: once a request may have reached the provider it may be
// doing (and billing) work, so a second attempt is the caller's decision, not ours.

const MB = 1024 * 1024;
/** Largest upstream body read (JSON with a base64 image, or an output file), counted as it arrives. */
export const MAX_UPSTREAM_BODY_BYTES = 40 * MB;
/** An error body is only read for its message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_QUOTED_CHARS = 300;

export class UpstreamClient {
  /**
   * @param label how messages name the provider ("OpenAI", "Replicate")
   * @param secrets values that must never appear in a message (API keys, tokens)
   */
  constructor(
    readonly label: string,
    readonly signal: AbortSignal,
    private readonly secrets: string[],
  ) {}

  /** An `upstream_error` naming the provider. */
  failure(what: string): PixelgateError {
    return new PixelgateError("upstream_error", this.redact(`${this.label} ${what}`));
  }

  timedOut(): PixelgateError {
    return new PixelgateError("upstream_timeout", `${this.label} did not finish within the upstream time limit.`);
  }

  /** Any step of the exchange, bounded by the deadline and with its failure mapped. */
  async step<T>(work: Promise<T>, whatFailed: string): Promise<T> {
    try {
      return await raceAbort(work, this.signal);
    } catch (error) {
      if (this.signal.aborted) throw this.timedOut();
      if (error instanceof PixelgateError) throw error;
      throw this.failure(whatFailed);
    }
  }

  /** fetch() under the deadline. Network failures are the provider's (502), not ours. */
  send(url: string, init: RequestInit): Promise<Response> {
    if (this.signal.aborted) return Promise.reject(this.timedOut());
    return this.step(fetch(url, { ...init, signal: this.signal }), "could not be reached (network error).");
  }

  /** Throws `upstream_error` for a non-2xx answer, quoting the provider's own message (redacted). */
  async expectOk(response: Response, during: string): Promise<Response> {
    if (response.ok) return response;
    if (response.status === 401 || response.status === 403) {
      // Auth errors may echo (part of) the credential: say what happened, quote nothing.
      discard(response);
      throw this.failure(`refused our credentials (HTTP ${response.status}) ${during}; check the configured API key.`);
    }
    const detail = await this.readBytes(response, MAX_ERROR_BODY_BYTES, { truncate: true })
      .then((bytes) => messageOf(new TextDecoder().decode(bytes)))
      .catch((error: unknown) => {
        if (error instanceof PixelgateError && error.code === "upstream_timeout") throw error;
        return "";
      });
    throw this.failure(`answered HTTP ${response.status} ${during}${detail ? `: ${detail}` : "."}`);
  }

  /** The body as JSON; a body that is not JSON is the provider's failure. */
  async readJson(response: Response, during: string): Promise<unknown> {
    const text = new TextDecoder().decode(await this.readBytes(response, MAX_UPSTREAM_BODY_BYTES));
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.failure(`sent a reply ${during} that is not valid JSON.`);
    }
  }

  /**
   * Reads a body, counting bytes as they arrive (a Content-Length may be absent or lie, a gzip body
   * decodes to more) and stopping the moment `limit` is passed. With `truncate` it returns what
   * fitted instead of failing (error bodies are only read for a message).
   */
  async readBytes(response: Response, limit: number, options: { truncate?: boolean } = {}): Promise<Uint8Array> {
    if (response.body === null) return new Uint8Array(0);
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let length = 0;
    try {
      for (;;) {
        const { done, value } = await this.step(reader.read(), "broke off while sending its reply.");
        if (done) break;
        if (length + value.byteLength > limit) {
          if (options.truncate) {
            chunks.push(value.subarray(0, limit - length));
            length = limit;
            reader.cancel().catch(() => {});
            break;
          }
          throw this.failure(`sent more than ${Math.round(limit / MB)} MB; the reply was refused.`);
        }
        chunks.push(value);
        length += value.byteLength;
      }
    } catch (error) {
      reader.cancel().catch(() => {}); // not awaited: a stalled stream must not hold up the answer
      throw error;
    }
    return concatBytes(chunks);
  }

  /** Removes every configured secret from text that may reach the client. */
  redact(text: string): string {
    let clean = text;
    for (const secret of this.secrets) {
      if (secret.length >= 4) clean = clean.split(secret).join("[redacted]");
    }
    return clean;
  }
}

/** The human part of an error body in any of the shapes our providers use. */
function messageOf(body: string): string {
  let text = body.trim();
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const error = json.error as Record<string, unknown> | string | undefined;
    const errors = json.errors as Array<{ message?: unknown }> | undefined;
    const candidates = [
      typeof error === "object" && error ? [error.code, error.message].filter((part) => typeof part === "string").join(": ") : error,
      json.detail, // Replicate
      Array.isArray(errors) ? errors[0]?.message : undefined, // Cloudflare API
      json.title,
      json.message,
    ];
    text = String(candidates.find((value) => typeof value === "string" && value.trim() !== "") ?? "");
  } catch {
    // Not JSON (an HTML error page, plain text): quote its start.
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}...` : text;
}

export function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

/** Settles with the work, or rejects once the signal aborts (for steps that ignore signals). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A wait between polls that ends early, rejecting, when the deadline passes. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return raceAbort(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), signal).finally(() => clearTimeout(timer));
}

/**
 * Where a provider's API may live: https anywhere, or plain http on this machine's loopback, for
 * OpenAI-compatible servers run locally (and the fake upstream `npm run stress` starts). Our
 * provider keys never cross a network in clear text either way.
 */
export function isAllowedApiBase(base: string): boolean {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}
