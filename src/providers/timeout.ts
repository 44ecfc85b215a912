import type { Env } from "../env";

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;

/** How long one upstream call may take (UPSTREAM_TIMEOUT_MS, 60 s when unset or not a number). */
export function upstreamTimeoutOf(env: Pick<Env, "UPSTREAM_TIMEOUT_MS">): number {
  const configured = Number(env.UPSTREAM_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_UPSTREAM_TIMEOUT_MS;
}
