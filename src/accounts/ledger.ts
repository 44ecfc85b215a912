import type { Env } from "../env";

/** The account's ledger Durable Object (balance and key windows), addressed by account id. */
export function ledgerOf(env: Env, accountId: string) {
  return env.LEDGER.getByName(accountId);
}
