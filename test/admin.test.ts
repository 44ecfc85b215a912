import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/ids/sha256";
import { expectError, expectParamError } from "./support/envelope";
import { ADMIN_TOKEN, adminCall, call, newAccount, newKey, withKey } from "./support/fixtures";

// The operator API.

interface AccountBody {
  id: string;
  _id: string;
  name: string;
  email: string;
  provider: string;
  plan: string;
  credits: number;
  planValidity: string | null;
  keys?: Array<{ id: string; name: string; prefix: string; createdAt: string; revokedAt: string | null }>;
}

const uniqueEmail = () => `admin-${crypto.randomUUID()}@example.com`;
const createAccount = (body: Record<string, unknown>) => adminCall("/admin/v1/accounts", "POST", body);
const grant = (accountId: string, amount: number) => adminCall(`/admin/v1/accounts/${accountId}/credits`, "POST", { amount, reason: "test" });

async function getAccount(accountId: string): Promise<AccountBody> {
  const response = await adminCall(`/admin/v1/accounts/${accountId}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { account: AccountBody }).account;
}

// One route of each kind; the token check must guard them all. Bodies are JSON so the request
// gets past the Content-Type check and reaches the token check.
const OPERATOR_ROUTES: Array<[method: string, path: string]> = [
  ["POST", "/admin/v1/accounts"],
  ["GET", "/admin/v1/accounts/acct_any"],
  ["POST", "/admin/v1/accounts/acct_any/credits"],
  ["DELETE", "/admin/v1/keys/key_any"],
  ["PATCH", "/admin/v1/models/local-draw-v1"],
];

describe("operator token", () => {
  for (const [method, path] of OPERATOR_ROUTES) {
    const send = (headers: Record<string, string>) =>
      call(path, { method, headers: { ...headers, "Content-Type": "application/json" }, body: method === "GET" || method === "DELETE" ? undefined : "{}" });

    it(`${method} ${path}: missing token → 401 missing_api_key, wrong token → 401 invalid_api_key`, async () => {
      await expectError(await send({}), 401, "authentication_error", "missing_api_key");
      await expectError(await send({ Authorization: `Bearer ${ADMIN_TOKEN}x` }), 401, "authentication_error", "invalid_api_key");
    });
  }

  it("does not accept a customer API key as the operator token", async () => {
    const account = await newAccount();
    await expectError(await call(`/admin/v1/accounts/${account.id}`, withKey(account.key)), 401, "authentication_error", "invalid_api_key");
  });
});

describe("POST /admin/v1/accounts", () => {
  it("creates an account with provider local, plan free and 0 credits by default (201)", async () => {
    const email = uniqueEmail();
    const response = await createAccount({ name: "Grace", email });
    expect(response.status).toBe(201);
    const { success, account } = (await response.json()) as { success: boolean; account: AccountBody };
    expect(success).toBe(true);
    expect(account).toMatchObject({ name: "Grace", email, provider: "local", plan: "free", credits: 0, planValidity: null });
    expect(account.id).toMatch(/^acct_/);
    expect(account._id).toBe(account.id);
    expect(await getAccount(account.id)).toMatchObject({ id: account.id, credits: 0, plan: "free" });
  });

  it("refuses a duplicate email with 400 naming `email`, in any letter case", async () => {
    const email = uniqueEmail();
    expect((await createAccount({ name: "First", email })).status).toBe(201);
    await expectParamError(await createAccount({ name: "Second", email }), "invalid_parameter", "email");
    await expectParamError(await createAccount({ name: "Third", email: email.toUpperCase() }), "invalid_parameter", "email");
  });

  it("refuses concurrent creations with one email: one 201, the rest 400 naming `email` (never 500)", async () => {
    // The duplicate check and the insert are separate steps; racing requests must still get the
    // documented 400, not the UNIQUE constraint surfacing as an internal error.
    const email = uniqueEmail();
    const responses = await Promise.all([1, 2, 3].map((n) => createAccount({ name: `Racer ${n}`, email })));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 400, 400]);
    for (const response of responses.filter((response) => response.status !== 201)) {
      await expectParamError(response, "invalid_parameter", "email");
    }
  });

  it("refuses an unknown plan, a missing name and negative credits with 400 naming the field", async () => {
    await expectParamError(await createAccount({ name: "P", email: uniqueEmail(), plan: "platinum" }), "invalid_parameter", "plan");
    await expectParamError(await createAccount({ email: uniqueEmail() }), "missing_parameter", "name");
    await expectParamError(await createAccount({ name: "P", email: uniqueEmail(), credits: -1 }), "invalid_parameter", "credits");
  });
});

describe("GET /admin/v1/accounts/{id}", () => {
  it("lists the account's keys by 12-character prefix and never their secrets", async () => {
    const account = await newAccount();
    const second = await newKey(account.id, "ci");
    const response = await adminCall(`/admin/v1/accounts/${account.id}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(account.key);
    expect(text).not.toContain(second.secret);
    const { keys = [] } = (JSON.parse(text) as { account: AccountBody }).account;
    expect(keys.map((key) => key.id).sort()).toEqual([account.keyId, second.key.id].sort());
    const ci = keys.find((key) => key.id === second.key.id)!;
    expect(ci).toMatchObject({ name: "ci", prefix: second.secret.slice(0, 12), revokedAt: null });
    expect(ci.createdAt).toEqual(expect.any(String));
  });
});

describe("POST /admin/v1/accounts/{id}/credits", () => {
  it("grants and debits credits, and the key sees the new balance", async () => {
    const account = await newAccount({ credits: 100 });
    expect(await (await grant(account.id, 50)).json()).toEqual({ success: true, credits: 150 });
    expect(await (await grant(account.id, -30)).json()).toEqual({ success: true, credits: 120 });
    expect((await getAccount(account.id)).credits).toBe(120);
    const me = (await (await call("/v1/me", withKey(account.key))).json()) as { user: { credits: number } };
    expect(me.user.credits).toBe(120);
  });

  it("refuses a debit beyond the balance with 400 and leaves the balance unchanged", async () => {
    const account = await newAccount({ credits: 20 });
    await expectParamError(await grant(account.id, -21), "invalid_parameter", "amount");
    expect((await getAccount(account.id)).credits).toBe(20);
    // Exactly the balance is allowed: zero is a valid balance.
    expect(await (await grant(account.id, -20)).json()).toEqual({ success: true, credits: 0 });
  });
});

describe("API keys", () => {
  it("creates a key (201) whose secret works on the very next request", async () => {
    const account = await newAccount();
    const response = await adminCall(`/admin/v1/accounts/${account.id}/keys`, "POST", { name: "laptop" });
    expect(response.status).toBe(201);
    const { key, secret } = (await response.json()) as { key: { id: string; name: string; prefix: string }; secret: string };
    expect(secret).toMatch(/^pg_[0-9A-Za-z]{38}$/);
    expect(key).toMatchObject({ name: "laptop", prefix: secret.slice(0, 12) });
    const me = await call("/v1/me", withKey(secret));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe(account.id);
  });

  it("stores only the SHA-256 of the secret: no column holds the secret", async () => {
    const account = await newAccount();
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(account.keyId).first<Record<string, unknown>>();
    expect(row?.hash).toBe(await sha256Hex(account.key));
    for (const value of Object.values(row ?? {})) expect(String(value)).not.toContain(account.key);
  });

  it("revokes a key: 401 on the next request, revokedAt set, the account's other keys unaffected", async () => {
    const account = await newAccount();
    const other = await newKey(account.id);
    const revoked = await adminCall(`/admin/v1/keys/${account.keyId}`, "DELETE");
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { key: { revokedAt: string | null } }).key.revokedAt).toEqual(expect.any(String));
    await expectError(await call("/v1/me", withKey(account.key)), 401, "authentication_error", "invalid_api_key");
    expect((await call("/v1/me", withKey(other.secret))).status).toBe(200);
  });

  it("deleting an account makes every one of its keys answer 404 account_not_found", async () => {
    const account = await newAccount();
    const other = await newKey(account.id);
    const deleted = await adminCall(`/admin/v1/accounts/${account.id}`, "DELETE");
    expect(await deleted.json()).toEqual({ success: true, id: account.id });
    for (const secret of [account.key, other.secret]) {
      await expectError(await call("/v1/me", withKey(secret)), 404, "not_found_error", "account_not_found");
    }
    await expectError(await adminCall(`/admin/v1/accounts/${account.id}`), 404, "not_found_error", "not_found");
  });
});

describe("unknown ids", () => {
  const UNKNOWN: Array<[method: string, path: string, body?: unknown]> = [
    ["GET", "/admin/v1/accounts/acct_doesnotexist"],
    ["DELETE", "/admin/v1/accounts/acct_doesnotexist"],
    ["POST", "/admin/v1/accounts/acct_doesnotexist/credits", { amount: 5 }],
    ["POST", "/admin/v1/accounts/acct_doesnotexist/keys", { name: "k" }],
    ["DELETE", "/admin/v1/keys/key_doesnotexist"],
  ];
  for (const [method, path, body] of UNKNOWN) {
    it(`${method} ${path} → 404 not_found_error`, async () => {
      await expectError(await adminCall(path, method, body), 404, "not_found_error", "not_found");
    });
  }
});
