import type { Env } from "../env";
import { ledgerOf } from "./ledger";
import { deleteAccount, findApiKey, revokeApiKey, type ApiKeyRecord } from "./repository";

// Revoking a key and deleting an account touch two stores: D1 (the record) and the account's
// ledger (which refuses the key on every request, even where a worker still has it cached).
// The ledger goes first, so that once either step has happened the key no longer works.

export async function revokeKey(env: Env, keyId: string): Promise<ApiKeyRecord | null> {
  const key = await findApiKey(env.DB, keyId);
  if (!key) return null;
  await ledgerOf(env, key.accountId).revokeKey(key.id);
  return revokeApiKey(env.DB, key.id);
}

/** Deletes the account; its keys then answer 404 account_not_found. False when there is none. */
export async function closeAccount(env: Env, accountId: string): Promise<boolean> {
  const exists = await env.DB.prepare("SELECT 1 FROM accounts WHERE id = ?").bind(accountId).first();
  if (!exists) return false;
  await ledgerOf(env, accountId).close();
  return deleteAccount(env.DB, accountId);
}
