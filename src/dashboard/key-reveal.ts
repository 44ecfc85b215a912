import type { ApiKeyRecord } from "../accounts/repository";
import { randomBase62 } from "../ids/random";
import { sha256Hex } from "../ids/sha256";
import type { DashboardSession } from "../auth/session";

// A new key's secret, shown exactly once on the page the key form redirects to. The POST seals
// the secret in D1 for a few minutes under a random token that only the redirect's address
// carries; the first GET of that address with the same session opens and deletes it, so reload,
// Back or a copied address show "already shown" rather than the secret or a second key.
//
// Why D1 and not a cookie: deleting the row makes the view truly single-use (a cookie can be
// replayed from a copy until it expires), and the secret never travels in a header. The row is
// sealed under a key derived from the token, which D1 never sees, and only the token's hash is
// stored, so the table alone reveals nothing.

const REVEAL_TTL_MS = 5 * 60 * 1000;
export const REVEAL_TOKEN = /^[0-9A-Za-z]{32}$/;

async function sealingKey(token: string): Promise<CryptoKey> {
  const material = new TextEncoder().encode(`pixelgate key reveal\n${token}`);
  const digest = await crypto.subtle.digest("SHA-256", material);
  return crypto.subtle.importKey("raw", digest, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/** Holds the secret for its one view; returns the token for the redirect's address. */
export async function holdForReveal(db: D1Database, session: DashboardSession, key: ApiKeyRecord, secret: string): Promise<string> {
  const token = randomBase62(32);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await sealingKey(token), new TextEncoder().encode(secret)));
  const now = Date.now();
  await db.batch([
    db.prepare("DELETE FROM key_reveals WHERE expires_at <= ?").bind(now),
    db.prepare("INSERT INTO key_reveals (token_hash, session_hash, key_id, sealed, expires_at) VALUES (?, ?, ?, ?, ?)")
      .bind(await sha256Hex(token), session.tokenHash, key.id, `${toBase64(iv)}.${toBase64(sealed)}`, now + REVEAL_TTL_MS),
  ]);
  return token;
}

/** The key id and secret, once: null when the token is unknown, expired, used, or another session's. */
export async function openReveal(db: D1Database, session: DashboardSession, token: string): Promise<{ keyId: string; secret: string } | null> {
  if (!REVEAL_TOKEN.test(token)) return null;
  const row = await db
    .prepare("DELETE FROM key_reveals WHERE token_hash = ? AND session_hash = ? RETURNING key_id, sealed, expires_at")
    .bind(await sha256Hex(token), session.tokenHash)
    .first<{ key_id: string; sealed: string; expires_at: number }>();
  if (!row || row.expires_at <= Date.now()) return null;
  const [iv, sealed] = row.sealed.split(".").map((part) => Uint8Array.from(atob(part), (char) => char.charCodeAt(0)));
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: iv! }, await sealingKey(token), sealed!);
  return { keyId: row.key_id, secret: new TextDecoder().decode(plain) };
}
