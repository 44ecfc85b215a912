import { settingsOf } from "../config/settings";
import type { Env } from "../env";
import { randomBase62 } from "../ids/random";
import { FORMAT_INFO, type InputFormat } from "../codecs/formats";
import { hmacHex, keptSecret } from "./kept-secrets";

// Copies of prepared input images, for a provider that fetches its inputs by URL (large inputs to
// Replicate and OpenAI). Written to R2 under `inputs/` with an unguessable id and served at
// /files/inputs/{id}.{ext}?expires=<unix seconds>&signature=<hex>, where the signature is
// HMAC-SHA256 of "<path>\n<expires>" under FILE_URL_SECRET (unset: a secret generated once and
// kept in D1). A link is good until `expires`, which the caller sets within its own deadline;
// after that, or with any other signature, it answers 404. The adapter deletes its copies when the
// call ends; an R2 lifecycle rule on the `inputs/` prefix (docs/deploy.md) removes any it missed.

const INPUT_PREFIX = "inputs/";
const INPUT_NAME = /^([0-9A-Za-z]{24})\.([a-z]{3,4})$/;
const SECRET_NAME = "input-urls";

type CopyEnv = Pick<Env, "DB" | "FILES"> & Parameters<typeof settingsOf>[0];

export interface InputCopy {
  /** The R2 key, for deleting the copy. */
  key: string;
  /** The signed link, good until `expiresAt`. */
  url: string;
}

function secretOf(env: CopyEnv): Promise<string> {
  return keptSecret(env.DB, SECRET_NAME, settingsOf(env).fileUrlSecret);
}

function signedMessage(name: string, expires: number): string {
  return `/files/inputs/${name}\n${expires}`;
}

/** Stores `bytes` under inputs/ and returns a link to them that expires at `expiresAt` (unix seconds). */
export async function shareInputCopy(env: CopyEnv, baseUrl: string, bytes: Uint8Array, format: InputFormat, expiresAt: number): Promise<InputCopy> {
  const { mime, ext } = FORMAT_INFO[format];
  const name = `${randomBase62(24)}.${ext}`;
  const key = INPUT_PREFIX + name;
  await env.FILES.put(key, bytes, { httpMetadata: { contentType: mime } });
  return { key, url: await signedInputUrl(env, baseUrl, name, expiresAt) };
}

/** The signed link to inputs/`name` (exported for tests that need an expired one). */
export async function signedInputUrl(env: CopyEnv, baseUrl: string, name: string, expiresAt: number): Promise<string> {
  const signature = await hmacHex(await secretOf(env), signedMessage(name, expiresAt));
  return `${baseUrl}/files/inputs/${name}?${new URLSearchParams({ expires: String(expiresAt), signature })}`;
}

export type OpenedInput = { ok: true; object: R2ObjectBody } | { ok: false; reason: string };

/** The copy a link names, when the link is well-formed, signed by us and not expired. */
export async function openInputCopy(env: CopyEnv, name: string, expires: string | undefined, signature: string | undefined, nowMs = Date.now()): Promise<OpenedInput> {
  const expiresAt = Number(expires);
  if (!INPUT_NAME.test(name) || !Number.isSafeInteger(expiresAt) || !signature) return { ok: false, reason: "No such file." };
  const expected = await hmacHex(await secretOf(env), signedMessage(name, expiresAt));
  if (!sameText(expected, signature)) return { ok: false, reason: "This input link is not valid." };
  if (expiresAt * 1000 <= nowMs) return { ok: false, reason: "This input link has expired." };
  const object = await env.FILES.get(INPUT_PREFIX + name);
  return object ? { ok: true, object } : { ok: false, reason: "No such file." };
}

/** Compares without stopping at the first difference. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** Removes copies once the call that shared them is over. Best effort: the lifecycle rule is the backstop. */
export async function deleteInputCopies(env: CopyEnv, copies: readonly InputCopy[]): Promise<void> {
  if (copies.length > 0) await env.FILES.delete(copies.map((copy) => copy.key)).catch(() => undefined);
}
