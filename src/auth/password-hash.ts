// Password hashing for dashboard sign-in: PBKDF2-SHA256 through WebCrypto with a random 16-byte
// salt per password. Workers refuse more than 100,000 PBKDF2 iterations, so the count is exactly
// that (the OWASP figure for SHA-256 is higher; the cap is the platform's). The stored form
// carries its own iteration count, so hashes made today keep verifying if the cost changes.
// No imports and no Workers types: scripts/start.ts runs this file in Node to seed the
// development account's password. Checking and storing passwords is in password.ts.

export const PBKDF2_ITERATIONS = 100_000;
export const SALT_BYTES = 16;
const KEY_BITS = 256;
export const SCHEME = "pbkdf2-sha256";

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

export async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
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

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return "Your password must not be your email address.";
  return null;
}
