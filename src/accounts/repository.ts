import { displayPrefix, generateApiKey } from "../ids/api-key";
import { randomBase62 } from "../ids/random";
import { sha256Hex } from "../ids/sha256";
import { PixelgateError } from "../errors";
import type { Plan } from "./plans";

export { PLANS, type Plan } from "./plans";

// D1 access for accounts and API keys. The balance is not here: it lives in AccountLedger.

export const PROVIDERS = ["google", "github", "local"] as const;
export type SignInProvider = (typeof PROVIDERS)[number];

export interface Account {
  id: string;
  name: string;
  email: string;
  provider: SignInProvider;
  plan: Plan;
  planValidity: string | null;
  billingCycle: string;
  profilePicture: string | null;
  openingCredits: number;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

interface AccountRow {
  id: string;
  name: string;
  email: string;
  provider: SignInProvider;
  plan: Plan;
  plan_validity: string | null;
  billing_cycle: string;
  profile_picture: string | null;
  opening_credits: number;
  created_at: string;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

const ACCOUNT_COLUMNS =
  "id, name, email, provider, plan, plan_validity, billing_cycle, profile_picture, opening_credits, created_at";
const KEY_COLUMNS = "id, account_id, name, prefix, created_at, revoked_at, last_used_at";

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    provider: row.provider,
    plan: row.plan,
    planValidity: row.plan_validity,
    billingCycle: row.billing_cycle,
    profilePicture: row.profile_picture,
    openingCredits: row.opening_credits,
    createdAt: row.created_at,
  };
}

function toKey(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export interface NewAccount {
  name: string;
  email: string;
  provider: SignInProvider;
  plan: Plan;
  credits: number;
  planValidity?: string | null;
  profilePicture?: string | null;
}

/**
 * Inserts the account. `together` gives statements to write in the same transaction as the
 * account row (a sign-up's password), so no one ever sees the account without them.
 */
export async function createAccount(
  db: D1Database,
  input: NewAccount,
  together: (accountId: string, createdAt: string) => D1PreparedStatement[] = () => [],
): Promise<Account> {
  const row: AccountRow = {
    id: "acct_" + randomBase62(20),
    name: input.name,
    email: input.email,
    provider: input.provider,
    plan: input.plan,
    plan_validity: input.planValidity ?? null,
    billing_cycle: "monthly",
    profile_picture: input.profilePicture ?? null,
    opening_credits: input.credits,
    created_at: new Date().toISOString(),
  };
  try {
    const insert = db
      .prepare(`INSERT INTO accounts (${ACCOUNT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .bind(row.id, row.name, row.email, row.provider, row.plan, row.plan_validity, row.billing_cycle,
        row.profile_picture, row.opening_credits, row.created_at);
    await db.batch([insert, ...together(row.id, row.created_at)]);
  } catch (error) {
    // The UNIQUE index is the only race-free duplicate check: two concurrent sign-ups both pass
    // any read-before-write.
    if (/UNIQUE constraint failed: accounts\.email/.test(String(error))) {
      throw new PixelgateError("invalid_parameter", "An account with this email already exists.", { param: "email" });
    }
    throw error;
  }
  return toAccount(row);
}

export async function findAccount(db: D1Database, id: string): Promise<Account | null> {
  const row = await db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`).bind(id).first<AccountRow>();
  return row ? toAccount(row) : null;
}

/** The account with this email (as given, trimmed), for sign-in by password or by a verified OAuth email. */
export async function accountByEmail(db: D1Database, email: string): Promise<Account | null> {
  const row = await db.prepare("SELECT id FROM accounts WHERE email = ?").bind(email.trim()).first<{ id: string }>();
  return row ? findAccount(db, row.id) : null;
}

/** Removes the account row only: its keys stay so they can answer 404 account_not_found. */
export async function deleteAccount(db: D1Database, id: string): Promise<boolean> {
  const result = await db.prepare("DELETE FROM accounts WHERE id = ?").bind(id).run();
  return result.meta.changes > 0;
}

export async function createApiKey(
  db: D1Database,
  accountId: string,
  name: string,
  secret: string = generateApiKey(),
): Promise<{ key: ApiKeyRecord; secret: string }> {
  const key: ApiKeyRecord = {
    id: "key_" + randomBase62(20),
    accountId,
    name,
    prefix: displayPrefix(secret),
    createdAt: new Date().toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await db
    .prepare(`INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
    .bind(key.id, accountId, name, key.prefix, await sha256Hex(secret), key.createdAt)
    .run();
  return { key, secret };
}

export async function listApiKeys(db: D1Database, accountId: string): Promise<ApiKeyRecord[]> {
  const { results } = await db
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`)
    .bind(accountId)
    .all<KeyRow>();
  return results.map(toKey);
}

export async function findApiKey(db: D1Database, keyId: string): Promise<ApiKeyRecord | null> {
  const row = await db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).bind(keyId).first<KeyRow>();
  return row ? toKey(row) : null;
}

/** Marks the key revoked; returns the key, or null when there is no such key. Idempotent. */
export async function revokeApiKey(db: D1Database, keyId: string): Promise<ApiKeyRecord | null> {
  const row = await db
    .prepare(`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING ${KEY_COLUMNS}`)
    .bind(new Date().toISOString(), keyId)
    .first<KeyRow>();
  return row ? toKey(row) : null;
}

/** The key with this hash and its account (null when the account was deleted). */
export async function findKeyByHash(
  db: D1Database,
  hash: string,
): Promise<{ key: ApiKeyRecord; account: Account | null } | null> {
  const row = await db
    .prepare(
      `SELECT k.id AS key_id, k.account_id, k.name AS key_name, k.prefix, k.created_at AS key_created_at,
              k.revoked_at, k.last_used_at, a.*
         FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id
        WHERE k.hash = ?`,
    )
    .bind(hash)
    .first<Record<string, unknown>>();
  if (!row) return null;
  const key = toKey({
    id: row.key_id as string,
    account_id: row.account_id as string,
    name: row.key_name as string,
    prefix: row.prefix as string,
    created_at: row.key_created_at as string,
    revoked_at: row.revoked_at as string | null,
    last_used_at: row.last_used_at as string | null,
  });
  return { key, account: row.id == null ? null : toAccount(row as unknown as AccountRow) };
}

export async function touchApiKey(db: D1Database, keyId: string, at: string): Promise<void> {
  await db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?").bind(at, keyId).run();
}
