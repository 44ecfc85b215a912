import { z } from "@hono/zod-openapi";
import { ERROR_CATALOG, ERROR_TYPES, type ErrorCode } from "../errors";

export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    message: z.string().openapi({ description: "For people; not stable, do not branch on it." }),
    error: z.object({
      type: z.enum(ERROR_TYPES),
      code: z.string().openapi({ example: "invalid_api_key" }),
      message: z.string(),
      param: z.string().nullable().openapi({ description: "The request field at fault, when there is one." }),
      docs: z.string().openapi({ description: "Link to the description of this code." }),
    }),
  })
  .catchall(z.unknown())
  .openapi("Error", {
    description:
      "Every non-2xx response. Extra top-level fields: `currentCredits`/`requiredCredits` and, where the operator offers a way to buy credits, `getCreditsUrl` (insufficient_credits), `isNsfw`/`reason`/`category` (content_policy_violation).",
  });

const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": { schema: { type: "integer" as const }, description: "Requests allowed per 60 s window for this key." },
  "X-RateLimit-Remaining": { schema: { type: "integer" as const }, description: "Requests left in the current window." },
  "X-RateLimit-Reset": { schema: { type: "integer" as const }, description: "Seconds until the oldest request leaves the window." },
  "X-Request-Id": { schema: { type: "string" as const }, description: "Id of this request; also in the usage log." },
};

/** A 2xx JSON response whose headers include the rate-limit set. */
export function jsonOk<T extends z.ZodType>(schema: T, description: string, authenticated = true) {
  return {
    description,
    content: { "application/json": { schema } },
    headers: authenticated ? RATE_LIMIT_HEADERS : { "X-Request-Id": RATE_LIMIT_HEADERS["X-Request-Id"] },
  };
}

/** Error responses a route declares, grouped by status, so the OpenAPI document lists them. */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].hint}`).join(" "),
        content: { "application/json": { schema: ErrorEnvelope } },
        ...(status === 429 || status === 503 ? { headers: { "Retry-After": { schema: { type: "integer" as const }, description: "Seconds to wait." } } } : {}),
      },
    ]),
  );
}

/** The errors any authenticated, metered route can answer. */
export const AUTH_ERRORS: ErrorCode[] = ["missing_api_key", "invalid_api_key", "account_not_found", "rate_limit_exceeded"];

type SecurityRequirement = Record<string, string[]>;
export const API_KEY_SECURITY: SecurityRequirement[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
export const ADMIN_SECURITY: SecurityRequirement[] = [{ adminToken: [] }];
