import type { SettingName, SettingStrings } from "./config/settings";
import type { Account, ApiKeyRecord } from "./accounts/repository";
import type { LedgerSnapshot } from "../durable-objects/account-ledger";
import type { UsageMessage } from "./usage/delivery";
import type { AnswerBody } from "./http/json-answer";

/**
 * The worker's environment: the bindings `wrangler types` generates from wrangler.toml
 * (src/config/bindings.d.ts, `npm run types`), with the usage queue's message type and the
 * optional Workers AI binding, plus every setting as the string it arrives as. Read settings
 * through settingsOf (src/config/settings.ts), never from here.
 */
export interface Env extends Omit<WorkerBindings, "USAGE_QUEUE" | SettingName>, SettingStrings {
  /** Usage-log entries on their way from the account ledgers to D1 (usage/delivery.ts). */
  USAGE_QUEUE: Queue<UsageMessage>;
  AI?: Ai;
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
