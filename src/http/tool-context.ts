import type { Context } from "hono";
import type { Account } from "../accounts/repository";
import type { AppEnv } from "../env";
import type { Family, ToolContext } from "../tools/types";
import type { UsageSource } from "../usage/log";
import { publicBaseUrl } from "./envelope";

/** What a tool run needs from the request it serves: REST, batch, MCP and the dashboard alike. */
export function toolContext(c: Context<AppEnv>, family: Family, account: Account, source: UsageSource): ToolContext {
  return {
    env: c.env,
    family,
    account,
    requestId: c.var.requestId,
    source,
    baseUrl: publicBaseUrl(c),
    startedAt: Date.now(),
    idempotency: c.var.idempotency,
    waitUntil: (work) => c.executionCtx.waitUntil(work),
  };
}
