// Password hashing for dashboard sign-in: PBKDF2-SHA256 through WebCrypto with a random 16-byte
// salt per password. Workers refuse more than 100,000 PBKDF2 iterations, so the count is exactly
// that (the OWASP figure for SHA-256 is higher; the cap is the platform's). The stored form
// carries its own iteration count, so hashes made today keep verifying if the cost changes.

export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const KEY_BITS = 256;
const SCHEME = "pbkdf2-sha256";

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, KEY_BITS);
  return new Uint8Array(bits);
}

/** "pbkdf2-sha256$100000$<salt>$<key>", both base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const key = await derive(password, salt, PBKDF2_ITERATIONS);
  return [SCHEME, PBKDF2_ITERATIONS, toBase64(salt), toBase64(key)].join("$");
}

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

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return "Your password must not be your email address.";
  return null;
}

/** The account's stored hash, or null (no such account, or one that signs in through OAuth only). */
export async function storedPasswordOf(db: D1Database, accountId: string): Promise<string | null> {
  const row = await db.prepare("SELECT hash FROM account_passwords WHERE account_id = ?").bind(accountId).first<{ hash: string }>();
  return row?.hash ?? null;
}

export async function setPassword(db: D1Database, accountId: string, password: string): Promise<void> {
  await db
    .prepare("INSERT INTO account_passwords (account_id, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at")
    .bind(accountId, await hashPassword(password), new Date().toISOString())
    .run();
}
