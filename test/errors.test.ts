import { describe, expect, it } from "vitest";
import { expectError, expectParamError } from "./support/envelope";
import { ADMIN_TOKEN, adminCall, call, newAccount, newKey, withKey } from "./support/fixtures";

// The error model, the headers every response carries
// and the discovery documents.

const RATE_LIMIT = 60;

/** An operator POST with a raw body and the given Content-Type (none when undefined). */
function postRaw(body: BodyInit, contentType?: string): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  if (contentType) headers["Content-Type"] = contentType;
  return call("/admin/v1/accounts", { method: "POST", headers, body });
}

describe("error envelope", () => {
  it("answers an unknown path with 404 not_found_error and the full envelope", async () => {
    const body = await expectError(await call("/v1/no-such-endpoint"), 404, "not_found_error", "not_found");
    expect(body.error.message).toEqual(expect.any(String));
    expect(body.error).toHaveProperty("param");
    // docs links to a description of the code that the service itself serves.
    const docs = new URL(body.error.docs);
    expect(docs.hash).toBe("#not_found");
    const described = (await (await call(docs.pathname)).json()) as { errors: Array<{ code: string; status: number }> };
    expect(described.errors).toContainEqual(expect.objectContaining({ code: "not_found", status: 404 }));
  });

  it("answers a POST to an unknown path with 404 whatever its body", async () => {
    await expectError(await call("/v1/nothing-here", { method: "POST", body: "not json" }), 404, "not_found_error", "not_found");
  });

  it("refuses a POST without Content-Type: application/json with 400, not a missing-field error", async () => {
    const json = JSON.stringify({ name: "Form", email: "form@example.com" });
    await expectError(await postRaw(json, "text/plain"), 400, "invalid_request_error", "invalid_parameter");
    await expectError(await postRaw("name=Form&email=form%40example.com", "application/x-www-form-urlencoded"), 400, "invalid_request_error", "invalid_parameter");
    // A string body with no declared type is sent as text/plain by the runtime.
    await expectError(await postRaw(json), 400, "invalid_request_error", "invalid_parameter");
  });

  it("refuses malformed JSON with 400 invalid_parameter (never 500)", async () => {
    await expectError(await postRaw('{"name": "Broken",', "application/json"), 400, "invalid_request_error", "invalid_parameter");
  });

  it("refuses a body over 32 MB with 413 and the envelope, whether or not Content-Length is declared", async () => {
    // 33 MB of valid JSON, so the size alone is the reason for the refusal. The runtime sends a
    // string body without Content-Length (the streamed check); the declared case takes the header check.
    const body = JSON.stringify({ name: "x".repeat(33 * 1024 * 1024), email: "big@example.com" });
    const declaredLengths: Array<Record<string, string>> = [{}, { "Content-Length": String(body.length) }];
    for (const declared of declaredLengths) {
      const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json", ...declared };
      const response = await call("/admin/v1/accounts", { method: "POST", headers, body });
      expect(response.headers.get("X-Request-Id")).toMatch(/^req_/);
      await expectError(response, 413, "invalid_request_error", "request_too_large");
    }
  });

  it("names the field in `param`: missing_parameter when absent, invalid_parameter when wrong", async () => {
    await expectParamError(await adminCall("/admin/v1/accounts", "POST", { name: "No email" }), "missing_parameter", "email");
    await expectParamError(await adminCall("/admin/v1/accounts", "POST", { name: "Bad", email: "not-an-email" }), "invalid_parameter", "email");
    await expectParamError(await adminCall("/admin/v1/accounts", "POST", { name: "Bad", email: "a@b.co", credits: "lots" }), "invalid_parameter", "credits");
    // A wrong type is not "missing": the field was sent.
    await expectParamError(await adminCall("/admin/v1/accounts", "POST", { name: 42, email: "a@b.co" }), "invalid_parameter", "name");
  });
});

describe("response headers", () => {
  it("puts a distinct X-Request-Id on every response: success, 4xx, operator and anonymous", async () => {
    const account = await newAccount();
    const responses = await Promise.all([
      call("/v1"),
      call("/v1/me", withKey(account.key)),
      call("/v1/me"),
      call("/v1/no-such-endpoint"),
      postRaw("{", "application/json"),
      adminCall(`/admin/v1/accounts/${account.id}`),
    ]);
    const ids = responses.map((response) => response.headers.get("X-Request-Id"));
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]+$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("puts X-RateLimit-Limit/Remaining/Reset on every authenticated response, counting down", async () => {
    const account = await newAccount();
    const paths = ["/v1/me", "/v1/usage", "/v1/models", "/auth/user-data", "/v1/usage?limit=0"];
    for (const [i, path] of paths.entries()) {
      const response = await call(path, withKey(account.key));
      // The last one is a 400: it passed authentication, so it used a slot and says so.
      expect(response.status, path).toBe(path.endsWith("limit=0") ? 400 : 200);
      expect(response.headers.get("X-RateLimit-Limit"), path).toBe(String(RATE_LIMIT));
      expect(response.headers.get("X-RateLimit-Remaining"), path).toBe(String(RATE_LIMIT - 1 - i));
      const reset = Number(response.headers.get("X-RateLimit-Reset"));
      expect(Number.isInteger(reset) && reset >= 1 && reset <= 60, `${path} reset ${reset}`).toBe(true);
    }
  });

  it("answers the 61st request in a minute with 429 rate_limit_error, Retry-After and the headers", async () => {
    const account = await newAccount();
    const allowed = await Promise.all(Array.from({ length: RATE_LIMIT }, () => call("/v1/me", withKey(account.key))));
    expect(allowed.map((response) => response.status)).toEqual(Array(RATE_LIMIT).fill(200));
    const refused = await call("/v1/me", withKey(account.key));
    await expectError(refused, 429, "rate_limit_error", "rate_limit_exceeded");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`).toBe(true);
    expect(refused.headers.get("X-RateLimit-Limit")).toBe(String(RATE_LIMIT));
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(Number(refused.headers.get("X-RateLimit-Reset"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("X-Request-Id")).toMatch(/^req_/);
    // The window belongs to the key, not the account: a second key of the account still gets in.
    const otherKey = await newKey(account.id);
    expect((await call("/v1/me", withKey(otherKey.secret))).status).toBe(200);
  });
});

describe("discovery", () => {
  it("GET /v1 lists the endpoints without a key", async () => {
    const response = await call("/v1");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { endpoints: Array<{ method: string; path: string }> };
    const listed = body.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    const expected = ["GET /v1/openapi.json", "GET /v1/me", "GET /v1/usage", "GET /v1/models", "GET /playground/models", "GET /auth/user-data", "POST /v1/generate", "POST /v1/batch", "POST /playground/multicall", "POST /mcp"];
    for (const endpoint of expected) {
      expect(listed).toContain(endpoint);
    }
    expect(listed.filter((endpoint) => endpoint === "GET /v1/openapi.json")).toHaveLength(1);
  });

  it("GET /v1/openapi.json is OpenAPI 3.1.0, version 1.0.0, declaring 401 on authenticated paths", async () => {
    const response = await call("/v1/openapi.json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    const declared: Array<[path: string, method: string]> = [
      ["/v1/me", "get"],
      ["/v1/usage", "get"],
      ["/v1/models", "get"],
      ["/admin/v1/accounts", "post"],
    ];
    for (const [path, method] of declared) {
      expect(doc.paths[path]?.[method]?.responses, `${method} ${path}`).toHaveProperty("401");
    }
    // The document lists itself, without a key, answering an OpenAPI document.
    const self = doc.paths["/v1/openapi.json"]?.get as { security?: unknown[]; responses: Record<string, { content: Record<string, unknown> }> } | undefined;
    expect(self?.responses["200"]?.content).toHaveProperty("application/json");
    expect(self?.security ?? []).toEqual([]);
  });
});
