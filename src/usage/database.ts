import type { Env } from "../env";

// Where an account's usage log lives. Today every account's log is in the one D1 database
// (binding DB). When the log outgrows one database (docs/capacity.md), this is the seam: map the
// account to one of several D1 bindings (for example by a hash of the account id, with the
// mapping recorded per account so it can move); every reader and writer of the log asks here.

export function usageDatabaseFor(env: Env, _accountId: string): D1Database {
  return env.DB;
}
