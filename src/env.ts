import type { AccountLedger } from "../durable-objects/account-ledger";
import type { Account, ApiKeyRecord } from "./accounts/repository";
import type { LedgerSnapshot } from "../durable-objects/account-ledger";

/** Bindings and vars (wrangler.toml, .dev.vars, secrets). */
export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  LEDGER: DurableObjectNamespace<AccountLedger>;
  AI?: Ai;
  DEFAULT_MODEL: string;
  UPSTREAM_TIMEOUT_MS?: string;
  ADMIN_TOKEN?: string;
  PUBLIC_BASE_URL?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  REPLICATE_BASE_URL?: string;
  REPLICATE_API_TOKEN?: string;
}

/** What authentication puts on the request context. */
export interface Caller {
  account: Account;
  key: ApiKeyRecord;
  /** The ledger's answer for this request's rate-limit slot (balance and window). */
  ledger: LedgerSnapshot;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    caller: Caller;
    /** Set on /playground and /auth so errors use that family's envelope. */
    family: "v1" | "playground";
  };
}
