// API key format: `pg_` + 32 random base62 characters + a 6-character
// base62 CRC32 of the random part. The checksum lets us refuse typos and garbage without a
// database lookup. Keys are stored only as SHA-256 hashes; people see the 12-character prefix.
//
// Node scripts (scripts/start.ts) import this file directly, so its imports carry the .ts
// extension and lead only to import-free modules.

import { crc32 } from "../codecs/crc32.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PREFIX = "pg_";
const RANDOM_LENGTH = 32; // 32 * log2(62) ≈ 190 bits
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32, so any CRC32 fits
const KEY_PATTERN = /^pg_[0-9A-Za-z]{38}$/;

export const DISPLAY_PREFIX_LENGTH = 12;

/** Uniform random base62 string: bytes >= 248 are rejected so every character is equally likely. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksumOf(randomPart: string): string {
  let value = crc32(new TextEncoder().encode(randomPart));
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A fresh API key secret. Shown to its owner once; only its hash is stored. */
export function generateApiKey(): string {
  const randomPart = randomBase62(RANDOM_LENGTH);
  return KEY_PREFIX + randomPart + checksumOf(randomPart);
}

/** True when the value has the key shape and its checksum matches: cheap, no I/O. */
export function isWellFormedApiKey(value: string): boolean {
  if (!KEY_PATTERN.test(value)) return false;
  const randomPart = value.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return value.slice(KEY_PREFIX.length + RANDOM_LENGTH) === checksumOf(randomPart);
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** SHA-256 as lowercase hex, of text (UTF-8) or of bytes. */
export async function sha256Hex(value: string | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", typeof value === "string" ? new TextEncoder().encode(value) : value);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
