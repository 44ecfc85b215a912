import { settingsOf, type OAuthClient, type OAuthProviderName, type SettingStrings } from "../config/settings";

// The two OAuth providers, each as its documented endpoints: the authorization-code flow with
// PKCE (S256; Google requires it for this flow to be safe in public, GitHub accepts it), the
// code exchanged server-side with the client secret, then the profile read with the token.

export interface OAuthProfile {
  provider: OAuthProviderName;
  /** The provider's stable user id. */
  subject: string;
  email: string | null;
  /** Only a verified email may link to an existing account or create one. */
  emailVerified: boolean;
  name: string;
  picture: string | null;
}

export class OAuthFailure extends Error {
  constructor(
    message: string,
    readonly status: 400 | 502 = 502,
  ) {
    super(message);
    this.name = "OAuthFailure";
  }
}

export const OAUTH_ENDPOINTS = {
  github: {
    label: "GitHub",
    authorize: "https://github.com/login/oauth/authorize",
    token: "https://github.com/login/oauth/access_token",
    scope: "read:user user:email",
  },
  google: {
    label: "Google",
    authorize: "https://accounts.google.com/o/oauth2/v2/auth",
    token: "https://oauth2.googleapis.com/token",
    scope: "openid email profile",
  },
} as const;

/** The providers whose client id and secret are both configured, in display order. */
export function oauthClients(env: SettingStrings): OAuthClient[] {
  return settingsOf(env).oauthClients;
}

export function oauthClient(env: SettingStrings, provider: string): OAuthClient | null {
  return oauthClients(env).find((client) => client.provider === provider) ?? null;
}

const GITHUB_API = "https://api.github.com";
const GOOGLE_USERINFO = "https://openidconnect.googleapis.com/v1/userinfo";
const TIMEOUT_MS = 10_000;

export function authorizationUrl(client: OAuthClient, redirectUri: string, state: string, codeChallenge: string): string {
  const endpoint = OAUTH_ENDPOINTS[client.provider];
  const url = new URL(endpoint.authorize);
  url.searchParams.set("client_id", client.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", endpoint.scope);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  if (client.provider === "google") url.searchParams.set("prompt", "select_account");
  return url.toString();
}

async function providerJson(label: string, url: string, init: RequestInit): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw new OAuthFailure(`${label} did not answer. Try again in a moment.`);
  }
  const body = await response.json().catch(() => null);
  if (!response.ok || body === null || typeof body !== "object") {
    // A 4xx is about this sign-in (a stale or forged code); a 5xx is the provider's trouble.
    const ours = response.status >= 400 && response.status < 500;
    throw new OAuthFailure(`${label} refused the sign-in (HTTP ${response.status}). Start again.`, ours ? 400 : 502);
  }
  return body as Record<string, unknown>;
}

/** Exchanges the authorization code (and PKCE verifier) for an access token. */
export async function exchangeCode(client: OAuthClient, code: string, redirectUri: string, codeVerifier: string): Promise<string> {
  const endpoint = OAUTH_ENDPOINTS[client.provider];
  const body = new URLSearchParams({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    code,
    redirect_uri: redirectUri,
    grant_type: "authorization_code",
    code_verifier: codeVerifier,
  });
  const answer = await providerJson(endpoint.label, endpoint.token, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body,
  });
  // GitHub answers 200 with {error} for a bad code.
  if (typeof answer.access_token !== "string" || answer.access_token === "") {
    throw new OAuthFailure(`${endpoint.label} did not accept the sign-in code. Start again.`, 400);
  }
  return answer.access_token;
}

export async function fetchProfile(provider: OAuthProviderName, accessToken: string): Promise<OAuthProfile> {
  return provider === "github" ? githubProfile(accessToken) : googleProfile(accessToken);
}

async function githubProfile(token: string): Promise<OAuthProfile> {
  const headers = { Authorization: `Bearer ${token}`, Accept: "application/vnd.github+json", "User-Agent": "Pixelgate" };
  const user = await providerJson("GitHub", `${GITHUB_API}/user`, { headers });
  // The profile's `email` is only the public one, verified or not: the emails list says which is
  // the primary address and whether GitHub verified it.
  const emails = await providerJson("GitHub", `${GITHUB_API}/user/emails`, { headers }).catch(() => null);
  const list = Array.isArray(emails) ? (emails as Array<Record<string, unknown>>) : [];
  const primary = list.find((entry) => entry.primary === true && typeof entry.email === "string");
  if (typeof user.id !== "number" && typeof user.id !== "string") throw new OAuthFailure("GitHub sent a profile without an id.");
  return {
    provider: "github",
    subject: String(user.id),
    email: primary ? String(primary.email) : null,
    emailVerified: primary?.verified === true,
    name: stringOr(user.name, stringOr(user.login, "GitHub user")),
    picture: httpsUrlOrNull(user.avatar_url),
  };
}

async function googleProfile(token: string): Promise<OAuthProfile> {
  const info = await providerJson("Google", GOOGLE_USERINFO, { headers: { Authorization: `Bearer ${token}` } });
  if (typeof info.sub !== "string" || info.sub === "") throw new OAuthFailure("Google sent a profile without an id.");
  return {
    provider: "google",
    subject: info.sub,
    email: typeof info.email === "string" ? info.email : null,
    emailVerified: info.email_verified === true,
    name: stringOr(info.name, "Google user"),
    picture: httpsUrlOrNull(info.picture),
  };
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 200) : fallback;
}

/** Only https URLs are kept: the picture is shown on our pages. */
function httpsUrlOrNull(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 2000) return null;
  try {
    return new URL(value).protocol === "https:" ? value : null;
  } catch {
    return null;
  }
}
