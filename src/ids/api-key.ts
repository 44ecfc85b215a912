// API key format: `pg_` + 32 random base62 characters + a 6-character
// base62 CRC32 of the random part. The checksum lets us refuse typos and garbage without a
// database lookup. Keys are stored only as SHA-256 hashes (sha256.ts); people see the
// 12-character prefix.
//
// Node scripts (scripts/start.ts) import this file directly, so its imports carry the .ts
// extension and lead only to modules that import nothing of ours.

import { crc32 } from "./crc32.ts";
import { BASE62, randomBase62 } from "./random.ts";

const KEY_PREFIX = "pg_";
const RANDOM_LENGTH = 32; // 32 * log2(62) ≈ 190 bits
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32, so any CRC32 fits
const KEY_PATTERN = /^pg_[0-9A-Za-z]{38}$/;

export const DISPLAY_PREFIX_LENGTH = 12;

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
