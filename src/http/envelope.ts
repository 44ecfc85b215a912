import { settingsOf } from "../config/settings";
import type { Context } from "hono";
import { ERROR_CATALOG, PixelgateError, type ErrorCode } from "../errors";

// The one error envelope, used by every family. /v1 clients branch on `error.type` and
// `error.code`; /playground clients read `success`, `message` and the extra top-level fields
// (currentCredits, isNsfw, ...), which are the same in both.

export function publicBaseUrl(c: Context): string {
  const configured = c.env ? settingsOf(c.env).publicBaseUrl : undefined;
  return (configured || new URL(c.req.url).origin).replace(/\/+$/, "");
}

export function errorBody(c: Context, error: PixelgateError) {
  return errorBodyAt(publicBaseUrl(c), error);
}

/** The envelope, for surfaces that have no Hono context at hand (batch items, MCP results). */
export function errorBodyAt(baseUrl: string, error: PixelgateError) {
  const entry = ERROR_CATALOG[error.code];
  return {
    success: false as const,
    message: error.message,
    error: {
      type: entry.type,
      code: error.code,
      message: error.message,
      param: error.param ?? null,
      docs: `${baseUrl}/v1/errors#${error.code}`,
    },
    ...error.details,
  };
}

export function errorResponse(c: Context, error: PixelgateError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  const status = ERROR_CATALOG[error.code].status;
  return c.json(errorBody(c, error), status);
}

export function fail(code: ErrorCode, message: string, options?: ConstructorParameters<typeof PixelgateError>[2]): never {
  throw new PixelgateError(code, message, options);
}
