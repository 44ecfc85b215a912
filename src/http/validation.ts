import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { PixelgateError } from "../errors";

type Issue = { path: PropertyKey[]; message: string; code?: string; keys?: string[] };

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let value = data;
  for (const segment of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

type FailedValidation = { success: false; error: unknown; data?: unknown };

/**
 * A zod failure as the API reports it: invalid_request_error with the first offending field in
 * `param`; an absent, null or blank field is `missing_parameter`, anything else `invalid_parameter`
 * (an unknown field included).
 */
export function validationError(result: FailedValidation): PixelgateError {
  const issues = (result.error as { issues: Issue[] }).issues;
  // An unknown field is named first: it usually explains the other complaints (a misspelt field
  // leaves the right one missing), and it must never be lost behind them.
  const unknown = issues.find((candidate) => candidate.code === "unrecognized_keys" && candidate.keys?.length);
  if (unknown) {
    const param = [...unknown.path, unknown.keys![0]!].map(String).join(".");
    return new PixelgateError("invalid_parameter", `${param} is not a field of this call; unknown fields are refused, not ignored. Remove it or check its spelling.`, { param });
  }
  const issue = issues[0];
  const path = issue?.path ?? [];
  const param = path.length > 0 ? path.map(String).join(".") : "body";
  const value = path.length > 0 ? valueAt(result.data, path) : {};
  // Blank counts as absent: an empty prompt is reported like a missing one ("prompt is required").
  const missing = value === undefined || value === null || (typeof value === "string" && value.trim() === "");
  return new PixelgateError(
    missing ? "missing_parameter" : "invalid_parameter",
    missing ? `${param} is required.` : `${param}: ${issue?.message ?? "invalid value"}.`,
    { param },
  );
}

/** The OpenAPI app's default hook: any validation failure becomes the error above. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (!result.success) throw validationError(result as FailedValidation);
};
