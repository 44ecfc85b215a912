import type { Env } from "../env";

// The dashboard's settings: wrangler vars and secrets beside the ones in src/env.ts.

export interface DashboardEnv extends Env {
  /** Opening credits of an account made by sign-up; default 50. */
  FREE_SIGNUP_CREDITS?: string;
  GITHUB_CLIENT_ID?: string;
  GITHUB_CLIENT_SECRET?: string;
  GOOGLE_CLIENT_ID?: string;
  GOOGLE_CLIENT_SECRET?: string;
  /** Signs CSRF tokens; when unset a secret is generated once and kept in D1. */
  DASHBOARD_SECRET?: string;
}

export const DEFAULT_FREE_SIGNUP_CREDITS = 50;

export function freeSignupCredits(env: Env): number {
  const raw = (env as DashboardEnv).FREE_SIGNUP_CREDITS;
  const value = raw === undefined || raw.trim() === "" ? DEFAULT_FREE_SIGNUP_CREDITS : Number(raw);
  // A misconfigured var must not break sign-up or hand out a fortune: fall back to the default.
  return Number.isSafeInteger(value) && value >= 0 && value <= 1_000_000 ? value : DEFAULT_FREE_SIGNUP_CREDITS;
}

export type OAuthProviderName = "github" | "google";

export interface OAuthClient {
  provider: OAuthProviderName;
  clientId: string;
  clientSecret: string;
}

/** The providers whose client id and secret are both configured, in display order. */
export function oauthClients(env: Env): OAuthClient[] {
  const e = env as DashboardEnv;
  const clients: OAuthClient[] = [];
  if (e.GITHUB_CLIENT_ID && e.GITHUB_CLIENT_SECRET) clients.push({ provider: "github", clientId: e.GITHUB_CLIENT_ID, clientSecret: e.GITHUB_CLIENT_SECRET });
  if (e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET) clients.push({ provider: "google", clientId: e.GOOGLE_CLIENT_ID, clientSecret: e.GOOGLE_CLIENT_SECRET });
  return clients;
}

export function oauthClient(env: Env, provider: string): OAuthClient | null {
  return oauthClients(env).find((client) => client.provider === provider) ?? null;
}
