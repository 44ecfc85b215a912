import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recordUsage } from "./support/usage-log";
import { expectParamError } from "./support/envelope";
import { adminCall, call, newAccount, withKey, type TestAccount } from "./support/fixtures";

// /v1/me, /auth/user-data and /v1/usage.

const ACCOUNT_FIELDS = ["billingCycle", "credits", "email", "name", "plan", "planValidity", "provider"];

interface UsageEntry {
  id: string;
  model: string;
  prompt: string;
  status: string;
  latency: string;
  creditsDeducted: number;
  createdAt: string;
}
interface UsagePage {
  success: boolean;
  count: number;
  logs: UsageEntry[];
}

async function getJson<T>(path: string, key: string): Promise<T> {
  const response = await call(path, withKey(key));
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** Writes `count` log rows for the account, one second apart; returns their ids, oldest first. */
async function logRequests(account: TestAccount, count: number, overrides: { latencyMs?: number; statusCode?: number } = {}) {
  const start = Date.UTC(2030, 0, 1);
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      recordUsage(env.DB, {
        accountId: account.id,
        keyPrefix: account.key.slice(0, 12),
        requestId: `req_test_${i}`,
        tool: "generate_image",
        source: "rest",
        model: "local-draw-v1",
        prompt: `prompt ${i}`,
        statusCode: overrides.statusCode ?? 200,
        latencyMs: overrides.latencyMs ?? 1000,
        creditsDeducted: 2,
        createdAt: new Date(start + i * 1000).toISOString(),
      }),
    ),
  );
}

describe("GET /v1/me", () => {
  it("returns success, authMethod api_key and exactly the documented user fields with id equal to _id", async () => {
    const account = await newAccount({ credits: 42, plan: "pro", name: "Ada" });
    const body = await getJson<{ success: boolean; authMethod: string; user: Record<string, unknown> }>("/v1/me", account.key);
    expect(Object.keys(body).sort()).toEqual(["authMethod", "success", "user"]);
    expect(body.success).toBe(true);
    expect(body.authMethod).toBe("api_key");
    expect(Object.keys(body.user).sort()).toEqual(["_id", "id", ...ACCOUNT_FIELDS].sort());
    expect(body.user).toMatchObject({ id: account.id, _id: account.id, name: "Ada", provider: "local", plan: "pro", credits: 42 });
    expect(body.user.email).toMatch(/@example\.com$/);
    expect(body.user.planValidity).toBeNull();
    expect(body.user.billingCycle).toEqual(expect.any(String));
  });

  it("shows the balance after operator grants and debits", async () => {
    const account = await newAccount({ credits: 10 });
    expect((await adminCall(`/admin/v1/accounts/${account.id}/credits`, "POST", { amount: 25 })).status).toBe(200);
    expect((await getJson<{ user: { credits: number } }>("/v1/me", account.key)).user.credits).toBe(35);
    expect((await adminCall(`/admin/v1/accounts/${account.id}/credits`, "POST", { amount: -5 })).status).toBe(200);
    expect((await getJson<{ user: { credits: number } }>("/auth/user-data", account.key)).user.credits).toBe(30);
  });
});

describe("GET /auth/user-data", () => {
  it("returns only `user`, with _id (no id), profilePicture and createdAt, and no success field", async () => {
    const account = await newAccount({ credits: 7 });
    const before = Date.now();
    const body = await getJson<{ user: Record<string, unknown> }>("/auth/user-data", account.key);
    expect(Object.keys(body)).toEqual(["user"]);
    expect(Object.keys(body.user).sort()).toEqual(["_id", "createdAt", "profilePicture", ...ACCOUNT_FIELDS].sort());
    expect(body.user._id).toBe(account.id);
    expect(body.user.credits).toBe(7);
    // createdAt is the account's creation time as ISO 8601, so it parses and is recent.
    const createdAt = Date.parse(body.user.createdAt as string);
    expect(new Date(createdAt).toISOString()).toBe(body.user.createdAt);
    expect(Math.abs(createdAt - before)).toBeLessThan(60_000);
  });
});

describe("GET /v1/usage", () => {
  it("lists entries newest first, whatever order they were written in", async () => {
    const account = await newAccount();
    const ids = await logRequests(account, 3);
    // A row written last but dated earliest must still sort last.
    const older = await recordUsage(env.DB, {
      accountId: account.id, keyPrefix: "pg_x", requestId: "req_old", tool: "compress_image", source: "mcp",
      model: "none", prompt: "", statusCode: 200, latencyMs: 5, creditsDeducted: 1, createdAt: "2029-06-01T00:00:00.000Z",
    });
    const page = await getJson<UsagePage>("/v1/usage", account.key);
    expect(page.success).toBe(true);
    expect(page.logs.map((entry) => entry.id)).toEqual([...ids].reverse().concat(older));
    expect(page.count).toBe(4);
  });

  it("returns 20 entries by default and honours limit=5", async () => {
    const account = await newAccount();
    const ids = await logRequests(account, 25);
    const newestFirst = [...ids].reverse();
    const byDefault = await getJson<UsagePage>("/v1/usage", account.key);
    expect(byDefault.count).toBe(20);
    expect(byDefault.logs.map((entry) => entry.id)).toEqual(newestFirst.slice(0, 20));
    const five = await getJson<UsagePage>("/v1/usage?limit=5", account.key);
    expect(five.count).toBe(5);
    expect(five.logs.map((entry) => entry.id)).toEqual(newestFirst.slice(0, 5));
  });

  it("clamps limit=500 to the newest 100 entries", async () => {
    const account = await newAccount();
    const ids = await logRequests(account, 105);
    const page = await getJson<UsagePage>("/v1/usage?limit=500", account.key);
    expect(page.count).toBe(100);
    expect(page.logs).toHaveLength(100);
    expect(page.logs.map((entry) => entry.id)).toEqual([...ids].reverse().slice(0, 100));
  });

  for (const limit of ["0", "abc", "-3", "2.5"]) {
    it(`refuses limit=${limit} with 400 invalid_parameter naming "limit"`, async () => {
      const account = await newAccount();
      await expectParamError(await call(`/v1/usage?limit=${limit}`, withKey(account.key)), "invalid_parameter", "limit");
    });
  }

  it("never shows another account's entries", async () => {
    const [mine, theirs] = await Promise.all([newAccount(), newAccount()]);
    const myIds = await logRequests(mine, 2);
    await logRequests(theirs, 3);
    const page = await getJson<UsagePage>("/v1/usage?limit=100", mine.key);
    expect(page.logs.map((entry) => entry.id).sort()).toEqual([...myIds].sort());
  });

  it("shapes entries: status like `200 OK`, latency in seconds with an `s` suffix", async () => {
    const account = await newAccount();
    await logRequests(account, 1, { latencyMs: 1200 });
    await recordUsage(env.DB, {
      accountId: account.id, keyPrefix: "pg_x", requestId: "req_fail", tool: "generate_image", source: "cli",
      model: "flux-1.1-pro", prompt: "a fox", statusCode: 502, latencyMs: 60_000, creditsDeducted: 10,
      creditsRefunded: 10, createdAt: "2031-01-01T00:00:00.000Z",
    });
    const [failed, ok] = (await getJson<UsagePage>("/v1/usage", account.key)).logs;
    expect(ok).toMatchObject({ model: "local-draw-v1", prompt: "prompt 0", status: "200 OK", latency: "1.20s", creditsDeducted: 2 });
    expect(ok!.id).toEqual(expect.any(String));
    expect(new Date(ok!.createdAt).toISOString()).toBe(ok!.createdAt);
    expect(failed).toMatchObject({ model: "flux-1.1-pro", status: "502 Bad Gateway", latency: "60.00s", createdAt: "2031-01-01T00:00:00.000Z" });
  });
});
