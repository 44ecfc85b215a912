import { expect } from "vitest";

// Assertions on the one error envelope. Clients branch on
// error.type and error.code, so those are what every error test pins down.

export interface ErrorEnvelope {
  success: false;
  message: string;
  error: { type: string; code: string; message: string; param: string | null; docs: string };
  [extra: string]: unknown;
}

/** Checks status, `success: false`, a message and the /v1 `error` object; returns the body. */
export async function expectError(response: Response, status: number, type: string, code: string): Promise<ErrorEnvelope> {
  const body = (await response.json()) as ErrorEnvelope;
  expect({ status: response.status, type: body.error?.type, code: body.error?.code }).toEqual({ status, type, code });
  expect(body.success).toBe(false);
  expect(body.message).toEqual(expect.any(String));
  expect(body.message.length).toBeGreaterThan(0);
  expect(Object.keys(body.error).sort()).toEqual(["code", "docs", "message", "param", "type"]);
  expect(body.error.docs).toEqual(expect.any(String));
  return body;
}

/** A 400 caused by one request field: `param` must name it. */
export async function expectParamError(response: Response, code: "missing_parameter" | "invalid_parameter", param: string) {
  const body = await expectError(response, 400, "invalid_request_error", code);
  expect(body.error.param).toBe(param);
  return body;
}
