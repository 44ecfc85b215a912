import { derive, fromBase64, PBKDF2_ITERATIONS, SALT_BYTES, SCHEME } from "./password-hash";

// Checking and storing dashboard passwords (the hash itself is password-hash.ts).

/**
 * Whether the password matches the stored hash, compared in constant time. With no stored hash
 * (unknown email, or an account without a password) a throwaway hash is still computed, so the
 * answer takes as long as for a real account and does not reveal which emails exist.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split("$") ?? [];
  const iterations = Number(parts[1]);
  if (parts.length !== 4 || parts[0] !== SCHEME || !Number.isSafeInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS) {
    await derive(password, new Uint8Array(SALT_BYTES), PBKDF2_ITERATIONS);
    return false;
  }
  const expected = fromBase64(parts[3]!);
  const actual = await derive(password, fromBase64(parts[2]!), iterations);
  return actual.length === expected.length && crypto.subtle.timingSafeEqual(actual, expected);
}

/** The account's stored hash, or null (no such account, or one that signs in through OAuth only). */
export async function storedPasswordOf(db: D1Database, accountId: string): Promise<string | null> {
  const row = await db.prepare("SELECT hash FROM account_passwords WHERE account_id = ?").bind(accountId).first<{ hash: string }>();
  return row?.hash ?? null;
}

/** The statement that stores a password hash (made by hashPassword) for the account. */
export function storePasswordHash(db: D1Database, accountId: string, hash: string, at = new Date().toISOString()): D1PreparedStatement {
  return db
    .prepare("INSERT INTO account_passwords (account_id, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at")
    .bind(accountId, hash, at);
}
