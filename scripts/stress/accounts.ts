// The accounts and keys `npm run stress` spends from, made with the operator API, and the
// client-side view of each key's 60-per-60-s window, so ordinary traffic stays under the limit and
// only the deliberate bursts meet a 429.
import type { Rng } from "./calls.ts";

export type AccountKind = "normal" | "poor" | "burst";

export interface Key {
  secret: string;
  /** The 12-character prefix the usage log records. */
  prefix: string;
  accountId: string;
  /** When each window slot this client used was taken (ms). */
  slots: number[];
}

export interface Account {
  id: string;
  kind: AccountKind;
  startCredits: number;
  keys: Key[];
  /** Used only to read the balance at the end (GET /v1/me), so its window is always free. */
  auditKey: Key;
}

/** Below the limit of 60, with room for clock drift between this process and the worker. */
const WINDOW_BUDGET = 54;
const WINDOW_MS = 61_000;

export async function admin<T>(baseUrl: string, token: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** The balance the account's ledger holds now (GET /admin/v1/accounts/{id}, not rate-limited). */
export async function ledgerBalance(baseUrl: string, token: string, accountId: string): Promise<number> {
  const response = await fetch(`${baseUrl}/admin/v1/accounts/${accountId}`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET /admin/v1/accounts/${accountId} answered ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { account: { credits: number } }).account.credits;
}

export async function newKey(baseUrl: string, token: string, accountId: string, name: string): Promise<Key> {
  const made = await admin<{ key: { prefix: string }; secret: string }>(baseUrl, token, `/admin/v1/accounts/${accountId}/keys`, { name });
  return { secret: made.secret, prefix: made.key.prefix, accountId, slots: [] };
}

export async function createAccount(baseUrl: string, token: string, kind: AccountKind, credits: number, keyCount: number, n: number): Promise<Account> {
  const made = await admin<{ account: { id: string } }>(baseUrl, token, "/admin/v1/accounts", {
    name: `stress ${kind} ${n}`,
    email: `stress-${kind}-${n}-${Date.now()}@example.com`,
    credits,
  });
  const id = made.account.id;
  const keys: Key[] = [];
  for (let i = 0; i < keyCount; i++) keys.push(await newKey(baseUrl, token, id, `stress key ${i}`));
  const auditKey = await newKey(baseUrl, token, id, "stress audit");
  return { id, kind, startCredits: await ledgerBalance(baseUrl, token, id), keys, auditKey };
}

/** Slots this client used on the key within the last window. */
export function windowUsed(key: Key, now = Date.now()): number {
  while (key.slots.length > 0 && key.slots[0]! < now - WINDOW_MS) key.slots.shift();
  return key.slots.length;
}

/** A key of an account of `kind` with room for `slots` more requests, its slots taken; or undefined. */
export function takeKey(accounts: Account[], kind: AccountKind, slots: number, rng: Rng): Key | undefined {
  const now = Date.now();
  const candidates = accounts.filter((account) => account.kind === kind).flatMap((account) => account.keys).filter((key) => windowUsed(key, now) + slots <= WINDOW_BUDGET);
  if (candidates.length === 0) return undefined;
  const key = candidates[Math.floor(rng() * candidates.length)]!;
  for (let i = 0; i < slots; i++) key.slots.push(now);
  return key;
}
