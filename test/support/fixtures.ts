import { exports } from "cloudflare:workers";

// Helpers shared by the route tests: an operator client and throwaway accounts with keys.
// Every test makes its own account (unique email), so tests never depend on each other's state.

export const ADMIN_TOKEN = "test-admin-token";
export const BASE = "https://pixelgate.test";

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(BASE + path, init));
}

export function adminCall(path: string, method = "GET", body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return call(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

let counter = 0;

export interface TestAccount {
  id: string;
  key: string;
  keyId: string;
}

export async function newAccount(options: { credits?: number; plan?: string; name?: string } = {}): Promise<TestAccount> {
  const email = `user${Date.now()}-${++counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const created = await adminCall("/admin/v1/accounts", "POST", {
    name: options.name ?? "Test user",
    email,
    credits: options.credits ?? 100,
    ...(options.plan ? { plan: options.plan } : {}),
  });
  if (created.status !== 201) throw new Error(`account creation failed: ${created.status} ${await created.text()}`);
  const { account } = (await created.json()) as { account: { id: string } };
  const { key, secret } = await newKey(account.id);
  return { id: account.id, key: secret, keyId: key.id };
}

export async function newKey(accountId: string, name = "test"): Promise<{ key: { id: string; prefix: string }; secret: string }> {
  const response = await adminCall(`/admin/v1/accounts/${accountId}/keys`, "POST", { name });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { key: { id: string; prefix: string }; secret: string };
}

export function withKey(key: string, init: RequestInit = {}): RequestInit {
  return { ...init, headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${key}` } };
}
