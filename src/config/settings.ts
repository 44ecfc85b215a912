import { z } from "zod";

// The worker's settings: wrangler.toml [vars], .dev.vars and secrets arrive as strings on the
// environment; this is the one place they are read. Each is parsed here, once per environment
// object, into the typed `Settings` the rest of the service uses. A value that does not parse
// falls back to its default (a misconfigured var must not take the service down, nor hand out
// a fortune). Binding types (D1, R2, queue, Durable Object) come from `npm run types`
// (`wrangler types`, written to bindings.d.ts beside this file).
//
// Node scripts (scripts/eval-safety.ts) import this file directly: its only import is zod.

/** Text that counts as unset when empty. */
const text = z.string().optional().transform((value) => value || undefined);

/** An http(s) URL; unset when empty or not one. */
const httpUrl = z.preprocess((value) => value || undefined, z.url({ protocol: /^https?$/ }).optional().catch(undefined));

/** A number of milliseconds: Number(value), with `fallback` when unset, not a number or out of range. */
function milliseconds(fallback: number, allowZero: boolean) {
  const number = z.coerce.number();
  return (allowZero ? number.nonnegative() : number.positive()).catch(fallback);
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;
/** A hold lives for the upstream limit plus this, unless HOLD_MARGIN_MS says otherwise. */
export const DEFAULT_HOLD_MARGIN_MS = 30_000;
export const DEFAULT_FREE_SIGNUP_CREDITS = 50;
const MAX_FREE_SIGNUP_CREDITS = 1_000_000;

/** Every setting, by the name it has on the environment. */
const SETTINGS_SCHEMA = z.object({
  /** The image model a generation uses when it names none. */
  DEFAULT_MODEL: text,
  /** How long one upstream call may take. */
  UPSTREAM_TIMEOUT_MS: milliseconds(DEFAULT_UPSTREAM_TIMEOUT_MS, false),
  /** How long past the upstream limit a call's hold waits before the ledger settles it as interrupted. */
  HOLD_MARGIN_MS: milliseconds(DEFAULT_HOLD_MARGIN_MS, true),
  /** The operator API's bearer token; unset, the operator API is closed. */
  ADMIN_TOKEN: text,
  /** Host for returned file URLs; unset, the request's own origin. */
  PUBLIC_BASE_URL: text,
  /** Signs the short-lived links to input copies sent to providers; unset, one is generated once and kept in D1. */
  FILE_URL_SECRET: text,
  OPENAI_BASE_URL: text,
  OPENAI_API_KEY: text,
  REPLICATE_BASE_URL: text,
  REPLICATE_API_TOKEN: text,
  /**
   * The safety screen's second stage (src/safety/moderation.ts): off, llama-guard or openai.
   * Unset (or not one of those): Llama Guard wherever the AI binding is, none without it.
   */
  MODERATION: z.preprocess((value) => (typeof value === "string" ? value.trim().toLowerCase() : value), z.enum(["off", "llama-guard", "openai"]).optional().catch(undefined)),
  MODERATION_MODEL: text,
  MODERATION_BASE_URL: text,
  MODERATION_API_KEY: text,
  /** closed (default): a moderation outage refuses the call with 502; open: it serves. */
  MODERATION_FAILURE: z.preprocess((value) => (typeof value === "string" ? value.trim().toLowerCase() : value), z.enum(["closed", "open"]).catch("closed")),
  /** Opening credits of an account made by dashboard sign-up (plan free). */
  FREE_SIGNUP_CREDITS: z.preprocess(
    (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : DEFAULT_FREE_SIGNUP_CREDITS),
    z.number().int().min(0).max(MAX_FREE_SIGNUP_CREDITS).catch(DEFAULT_FREE_SIGNUP_CREDITS),
  ),
  GITHUB_CLIENT_ID: text,
  GITHUB_CLIENT_SECRET: text,
  GOOGLE_CLIENT_ID: text,
  GOOGLE_CLIENT_SECRET: text,
  /** Signs the dashboard's CSRF tokens; unset, a secret is generated once and kept in D1. */
  DASHBOARD_SECRET: text,
  /** Selling credits through Stripe (docs/billing.md): on only when both secrets are set. */
  STRIPE_SECRET_KEY: text,
  STRIPE_WEBHOOK_SECRET: text,
  /** Tests only: the Stripe API elsewhere than api.stripe.com (the fake Stripe server). */
  STRIPE_API_URL: httpUrl,
  /** Where "Get credits" leads while Stripe is off. */
  GET_CREDITS_URL: httpUrl,
});

/** The settings' names: as strings, they are part of the worker's Env (src/env.ts). */
export type SettingName = keyof z.input<typeof SETTINGS_SCHEMA>;
/** The settings as they arrive: strings, any of them missing. */
export type SettingStrings = { [Name in SettingName]?: string };

export type OAuthProviderName = "github" | "google";

export interface OAuthClient {
  provider: OAuthProviderName;
  clientId: string;
  clientSecret: string;
}

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Where the Stripe API is reached; null for api.stripe.com. */
  apiUrl: URL | null;
}

export interface Settings {
  defaultModel: string | undefined;
  upstreamTimeoutMs: number;
  holdMarginMs: number;
  adminToken: string | undefined;
  publicBaseUrl: string | undefined;
  fileUrlSecret: string | undefined;
  openai: { baseUrl: string | undefined; apiKey: string | undefined };
  replicate: { baseUrl: string | undefined; apiToken: string | undefined };
  moderation: {
    /** As configured; undefined when MODERATION is unset (the default depends on the AI binding). */
    kind: "off" | "llama-guard" | "openai" | undefined;
    model: string | undefined;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    /** A moderation outage lets the word list's verdict stand (MODERATION_FAILURE=open). */
    failsOpen: boolean;
  };
  freeSignupCredits: number;
  /** The sign-in providers whose client id and secret are both configured, in display order. */
  oauthClients: OAuthClient[];
  dashboardSecret: string | undefined;
  /** Null unless both Stripe secrets are set. */
  stripe: StripeSettings | null;
  getCreditsUrl: string | null;
}

function parseSettings(source: SettingStrings): Settings {
  const raw = SETTINGS_SCHEMA.parse(pick(source));
  const oauthClients: OAuthClient[] = [];
  if (raw.GITHUB_CLIENT_ID && raw.GITHUB_CLIENT_SECRET) oauthClients.push({ provider: "github", clientId: raw.GITHUB_CLIENT_ID, clientSecret: raw.GITHUB_CLIENT_SECRET });
  if (raw.GOOGLE_CLIENT_ID && raw.GOOGLE_CLIENT_SECRET) oauthClients.push({ provider: "google", clientId: raw.GOOGLE_CLIENT_ID, clientSecret: raw.GOOGLE_CLIENT_SECRET });
  return {
    defaultModel: raw.DEFAULT_MODEL,
    upstreamTimeoutMs: raw.UPSTREAM_TIMEOUT_MS,
    holdMarginMs: raw.HOLD_MARGIN_MS,
    adminToken: raw.ADMIN_TOKEN,
    publicBaseUrl: raw.PUBLIC_BASE_URL,
    fileUrlSecret: raw.FILE_URL_SECRET,
    openai: { baseUrl: raw.OPENAI_BASE_URL, apiKey: raw.OPENAI_API_KEY },
    replicate: { baseUrl: raw.REPLICATE_BASE_URL, apiToken: raw.REPLICATE_API_TOKEN },
    moderation: {
      kind: raw.MODERATION,
      model: raw.MODERATION_MODEL,
      baseUrl: raw.MODERATION_BASE_URL ?? raw.OPENAI_BASE_URL,
      apiKey: raw.MODERATION_API_KEY ?? raw.OPENAI_API_KEY,
      failsOpen: raw.MODERATION_FAILURE === "open",
    },
    freeSignupCredits: raw.FREE_SIGNUP_CREDITS,
    oauthClients,
    dashboardSecret: raw.DASHBOARD_SECRET,
    stripe: raw.STRIPE_SECRET_KEY && raw.STRIPE_WEBHOOK_SECRET
      ? { secretKey: raw.STRIPE_SECRET_KEY, webhookSecret: raw.STRIPE_WEBHOOK_SECRET, apiUrl: raw.STRIPE_API_URL ? new URL(raw.STRIPE_API_URL) : null }
      : null,
    getCreditsUrl: raw.GET_CREDITS_URL ?? null,
  };
}

/** Only the settings' own names, each a string or missing (the environment also holds bindings). */
function pick(source: SettingStrings): Record<string, string | undefined> {
  const picked: Record<string, string | undefined> = {};
  for (const name of Object.keys(SETTINGS_SCHEMA.shape) as SettingName[]) {
    const value = source[name];
    picked[name] = typeof value === "string" ? value : undefined;
  }
  return picked;
}

const parsed = new WeakMap<object, Settings>();

/** The environment's settings, parsed on first use and kept for that environment object. */
export function settingsOf(env: SettingStrings): Settings {
  let settings = parsed.get(env);
  if (!settings) {
    settings = parseSettings(env);
    parsed.set(env, settings);
  }
  return settings;
}
