import type { AccountLedger } from "../durable-objects/account-ledger";
import type { Account, ApiKeyRecord } from "./accounts/repository";
import type { LedgerSnapshot } from "../durable-objects/account-ledger";
import type { UsageMessage } from "./usage/delivery";
import type { AnswerBody } from "./http/json-answer";

/** Bindings and vars (wrangler.toml, .dev.vars, secrets). */
export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  LEDGER: DurableObjectNamespace<AccountLedger>;
  AI?: Ai;
  /** Usage-log entries on their way from the account ledgers to D1 (usage/delivery.ts). */
  USAGE_QUEUE: Queue<UsageMessage>;
  DEFAULT_MODEL: string;
  UPSTREAM_TIMEOUT_MS?: string;
  /** How long past the upstream limit a call's hold waits before the ledger settles it as interrupted. */
  HOLD_MARGIN_MS?: string;
  ADMIN_TOKEN?: string;
  PUBLIC_BASE_URL?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  REPLICATE_BASE_URL?: string;
  REPLICATE_API_TOKEN?: string;
  /** The safety screen's second stage (src/safety/moderation.ts): off, llama-guard or openai. */
  MODERATION?: string;
  MODERATION_MODEL?: string;
  MODERATION_BASE_URL?: string;
  MODERATION_API_KEY?: string;
  /** closed (default): a moderation outage refuses the call with 502; open: it serves. */
  MODERATION_FAILURE?: string;
}

/** What authentication puts on the request context. */
export interface Caller {
  account: Account;
  key: ApiKeyRecord;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    caller: Caller;
    /** The ledger's answer when the request's rate-limit slot was taken (free routes). */
    ledger: LedgerSnapshot;
    /** Set once a billed call reserved credits: from then on its answer is kept for Idempotency-Key replays. */
    charged: boolean;
    /** The Idempotency-Key a billed call runs under: released by the ledger if the call is interrupted. */
    idempotency: { key: string; fingerprint: string } | undefined;
    /** A tool's or batch's answer (http/json-answer.ts), written again for an Idempotency-Key replay. */
    answer: AnswerBody | undefined;
  };
}
