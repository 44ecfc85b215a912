import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { displayPrefix, generateApiKey, isWellFormedApiKey } from "../../src/ids/api-key";
import { sha256Hex } from "../../src/ids/sha256";
import { expectError } from "./envelope";
import { adminCall, call, newAccount } from "./fixtures";

// The authentication table, written once and run against every
// authenticated route, so no route can drift from the others in how it treats a key.

/** A key in the right shape whose checksum does not match its random part. */
export function withBrokenChecksum(key: string): string {
  const last = key.at(-1) === "A" ? "B" : "A";
  const broken = key.slice(0, -1) + last;
  if (isWellFormedApiKey(broken)) throw new Error("checksum still matches; the case would prove nothing");
  return broken;
}

/** Puts a key row straight into D1, bypassing the operator API and its key generator. */
export async function plantKeyRow(accountId: string, secret: string): Promise<void> {
  const id = `key_planted_${crypto.randomUUID().replaceAll("-", "")}`;
  await env.DB.prepare("INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(id, accountId, "planted", displayPrefix(secret), await sha256Hex(secret), new Date().toISOString())
    .run();
}

const INVALID_KEYS: Array<{ name: string; key: () => string }> = [
  { name: "garbage", key: () => "not-an-api-key" },
  { name: "malformed (right prefix, too short)", key: () => "pg_abc123" },
  { name: "malformed (bad characters)", key: () => generateApiKey().slice(0, -1) + "-" },
  { name: "wrong checksum", key: () => withBrokenChecksum(generateApiKey()) },
  { name: "well-formed but never issued", key: () => generateApiKey() },
];

const ACCEPTED_HEADERS: Array<{ name: string; headers: (key: string) => Record<string, string> }> = [
  { name: "Authorization: Bearer <key>", headers: (key) => ({ Authorization: `Bearer ${key}` }) },
  { name: "Authorization: <key> (no Bearer)", headers: (key) => ({ Authorization: key }) },
  { name: "x-api-key: <key>", headers: (key) => ({ "x-api-key": key }) },
  { name: "x-api-key: Bearer <key>", headers: (key) => ({ "x-api-key": `Bearer ${key}` }) },
];

export function describeAuthCases(method: string, path: string): void {
  const send = (headers: Record<string, string> = {}) => call(path, { method, headers });

  describe(`${method} ${path} authentication`, () => {
    it("answers 401 missing_api_key when no key is sent", async () => {
      await expectError(await send(), 401, "authentication_error", "missing_api_key");
    });

    for (const { name, key } of INVALID_KEYS) {
      it(`answers 401 invalid_api_key for a ${name} key`, async () => {
        await expectError(await send({ Authorization: `Bearer ${key()}` }), 401, "authentication_error", "invalid_api_key");
      });
    }

    for (const { name, headers } of ACCEPTED_HEADERS) {
      it(`accepts ${name}`, async () => {
        const account = await newAccount();
        const response = await send(headers(account.key));
        expect(response.status).toBe(200);
      });
    }

    it("treats a bare `Authorization: Bearer` as no key: missing, or x-api-key when sent", async () => {
      await expectError(await send({ Authorization: "Bearer" }), 401, "authentication_error", "missing_api_key");
      const account = await newAccount();
      expect((await send({ Authorization: "Bearer ", "x-api-key": account.key })).status).toBe(200);
    });

    it("checks Authorization first: a bad Authorization is refused even with a valid x-api-key", async () => {
      const account = await newAccount();
      const response = await send({ Authorization: "Bearer not-an-api-key", "x-api-key": account.key });
      await expectError(response, 401, "authentication_error", "invalid_api_key");
    });

    it("refuses a revoked key with 401 on the very next request (never 403)", async () => {
      const account = await newAccount();
      expect((await send({ Authorization: `Bearer ${account.key}` })).status).toBe(200);
      expect((await adminCall(`/admin/v1/keys/${account.keyId}`, "DELETE")).status).toBe(200);
      await expectError(await send({ Authorization: `Bearer ${account.key}` }), 401, "authentication_error", "invalid_api_key");
    });

    it("answers 404 account_not_found once the key's account is deleted", async () => {
      const account = await newAccount();
      expect((await send({ Authorization: `Bearer ${account.key}` })).status).toBe(200);
      expect((await adminCall(`/admin/v1/accounts/${account.id}`, "DELETE")).status).toBe(200);
      await expectError(await send({ Authorization: `Bearer ${account.key}` }), 404, "not_found_error", "account_not_found");
    });

    it("refuses a wrong-checksum key before any D1 lookup, even when its hash is stored", async () => {
      const account = await newAccount();
      // Control: a well-formed key planted the same way is found by the lookup, so the planting works.
      const plantedValid = generateApiKey();
      await plantKeyRow(account.id, plantedValid);
      expect((await send({ Authorization: `Bearer ${plantedValid}` })).status).toBe(200);
      // The same planting for a bad-checksum key must not help: the checksum refuses it first.
      const plantedBroken = withBrokenChecksum(generateApiKey());
      await plantKeyRow(account.id, plantedBroken);
      await expectError(await send({ Authorization: `Bearer ${plantedBroken}` }), 401, "authentication_error", "invalid_api_key");
    });
  });
}
