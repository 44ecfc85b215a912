// The typed REST client the CLI commands share. One place sends the key, tags the request as
// coming from the CLI (the usage log records source `cli`), and turns the error envelope into an
// ApiError the exit codes are derived from.

import type { BatchEnvelope, ErrorBody, MeBody, ModelsBody, ToolEnvelope, UsageBody } from "./api-types.ts";

export type * from "./api-types.ts";

export const CLI_VERSION = "0.1.0";
export const DEFAULT_URL = "http://localhost:8787";

/** A non-2xx answer, or no answer at all (status 0: the service could not be reached). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody | undefined;
  readonly retryAfter: number | undefined;

  constructor(status: number, message: string, body?: ErrorBody, retryAfter?: number) {
    super(message);
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }

  get code(): string | undefined {
    return this.body?.error?.code;
  }
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Sent as X-Pixelgate-Source; the REST API logs `cli` for it. */
  source?: string;
}

export interface PostOptions {
  idempotencyKey?: string;
}

export class PixelgateClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly source: string;
  /** Whether the last answer was an Idempotency-Key replay (nothing charged by it). */
  lastReplayed = false;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.source = options.source ?? "cli";
  }

  me(): Promise<MeBody> {
    return this.request<MeBody>("GET", "/v1/me");
  }

  models(): Promise<ModelsBody> {
    return this.request<ModelsBody>("GET", "/v1/models");
  }

  usage(limit?: number): Promise<UsageBody> {
    return this.request<UsageBody>("GET", limit === undefined ? "/v1/usage" : `/v1/usage?limit=${limit}`);
  }

  /** POST /v1/<tool path>, e.g. "/v1/generate". */
  tool<R = Record<string, unknown>>(path: string, body: Record<string, unknown>, options: PostOptions = {}): Promise<ToolEnvelope<R>> {
    return this.request<ToolEnvelope<R>>("POST", path, body, options);
  }

  batch(body: unknown, options: PostOptions = {}): Promise<BatchEnvelope> {
    return this.request<BatchEnvelope>("POST", "/v1/batch", body, options);
  }

  async request<T>(method: "GET" | "POST", path: string, body?: unknown, options: PostOptions = {}): Promise<T> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.apiKey}`,
      "X-Pixelgate-Source": this.source,
      "User-Agent": `pixelgate-cli/${CLI_VERSION}`,
      Accept: "application/json",
    };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (options.idempotencyKey !== undefined) headers["Idempotency-Key"] = options.idempotencyKey;

    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiError(0, `Cannot reach Pixelgate at ${this.baseUrl} (${cause?.code ?? cause?.message ?? String(error)}). Is PIXELGATE_URL right and the service running?`);
    }
    this.lastReplayed = response.headers.get("Idempotency-Replayed") === "true";
    const text = await response.text();
    const parsed = parseJson(text);
    if (response.ok && parsed !== undefined) return parsed as T;
    if (response.ok) throw new ApiError(response.status, `The service answered ${response.status} with a body that is not JSON.`);
    const errorBody = isErrorBody(parsed) ? parsed : undefined;
    const message = errorBody?.error?.message ?? errorBody?.message ?? `HTTP ${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, errorBody, retryAfterOf(response));
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === "object" && value !== null && (value as { success?: unknown }).success === false;
}

function retryAfterOf(response: Response): number | undefined {
  const header = response.headers.get("Retry-After");
  if (header === null) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** PIXELGATE_URL and PIXELGATE_API_KEY. */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): { baseUrl: string; apiKey: string | undefined } {
  return { baseUrl: env.PIXELGATE_URL?.trim() || DEFAULT_URL, apiKey: env.PIXELGATE_API_KEY?.trim() || undefined };
}
