import { describe, expect, it } from "vitest";
import { describeAuthCases } from "./support/auth-cases";
import { expectError } from "./support/envelope";
import { call, newAccount, withKey } from "./support/fixtures";

// Every route that needs a key gets the same authentication table (test/support/auth-cases.ts).
const AUTHENTICATED_ROUTES = ["/v1/me", "/v1/usage", "/v1/models", "/auth/user-data"];

for (const path of AUTHENTICATED_ROUTES) describeAuthCases("GET", path);

describe("GET /playground/models (key optional)", () => {
  it("answers 200 with the model list when no key is sent", async () => {
    const response = await call("/playground/models");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; count: number; models: unknown[] };
    expect(body.success).toBe(true);
    expect(body.count).toBe(body.models.length);
    expect(body.count).toBeGreaterThan(0);
  });

  it("still refuses a bad key with 401: optional does not mean ignored", async () => {
    const response = await call("/playground/models", withKey("not-an-api-key"));
    await expectError(response, 401, "authentication_error", "invalid_api_key");
  });

  it("meters a request that does send a valid key", async () => {
    const account = await newAccount();
    const response = await call("/playground/models", withKey(account.key));
    expect(response.status).toBe(200);
    expect(response.headers.get("X-RateLimit-Limit")).toBe("60");
    expect(response.headers.get("X-RateLimit-Remaining")).toBe("59");
  });
});
