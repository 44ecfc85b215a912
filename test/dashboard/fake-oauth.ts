// A fake GitHub and Google at the HTTP boundary. test/upstream/outbound.ts (miniflare's
// outboundService) hands it every request the worker or a test makes to their hosts, so the
// dashboard's OAuth code runs unchanged against the providers' documented endpoints:
//   authorize (a redirect back with a code), token exchange (client secret, redirect_uri and the
//   PKCE verifier checked), and the profile (GitHub /user and /user/emails, Google userinfo).
// Stateless: the code carries what the authorize step saw, the token carries the profile.
// Who signs in is chosen by the test with a `login` query parameter on the authorize URL
// (base64url JSON of a FakeOAuthUser), standing in for the provider's own login screen.
//
// Runs in Node (imported by vitest.config.ts) and its constants are imported by tests in
// workerd, so it uses only web-standard APIs.

export const FAKE_OAUTH = {
  github: { clientId: "fake-github-client", clientSecret: "fake-github-secret" },
  google: { clientId: "fake-google-client.apps.googleusercontent.com", clientSecret: "fake-google-secret" },
} as const;

export const FAKE_OAUTH_BINDINGS = {
  GITHUB_CLIENT_ID: FAKE_OAUTH.github.clientId,
  GITHUB_CLIENT_SECRET: FAKE_OAUTH.github.clientSecret,
  GOOGLE_CLIENT_ID: FAKE_OAUTH.google.clientId,
  GOOGLE_CLIENT_SECRET: FAKE_OAUTH.google.clientSecret,
};

export interface FakeOAuthUser {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  picture: string;
}

type Provider = keyof typeof FAKE_OAUTH;

const HOSTS: Record<string, Provider> = {
  "github.com": "github",
  "api.github.com": "github",
  "accounts.google.com": "google",
  "oauth2.googleapis.com": "google",
  "openidconnect.googleapis.com": "google",
};

export function isFakeOAuthHost(hostname: string): boolean {
  return hostname in HOSTS;
}

export function encodeJson(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeJson<T>(text: string): T | null {
  try {
    return JSON.parse(atob(text.replace(/-/g, "+").replace(/_/g, "/"))) as T;
  } catch {
    return null;
  }
}

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

interface CodePayload {
  provider: Provider;
  clientId: string;
  redirectUri: string;
  challenge: string;
  user: FakeOAuthUser;
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function authorize(provider: Provider, url: URL): Response {
  const q = url.searchParams;
  if (q.get("client_id") !== FAKE_OAUTH[provider].clientId) return new Response("unknown client_id", { status: 400 });
  if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
    return new Response("authorization-code flow with S256 PKCE expected", { status: 400 });
  }
  const user = decodeJson<FakeOAuthUser>(q.get("login") ?? "");
  if (!user) return new Response("the test must say who signs in (login=...)", { status: 400 });
  const redirectUri = q.get("redirect_uri") ?? "";
  const code = encodeJson({ provider, clientId: FAKE_OAUTH[provider].clientId, redirectUri, challenge: q.get("code_challenge") ?? "", user } satisfies CodePayload);
  const back = new URL(redirectUri);
  back.searchParams.set("code", code);
  back.searchParams.set("state", q.get("state") ?? "");
  return new Response(null, { status: 302, headers: { Location: back.toString() } });
}

async function token(provider: Provider, request: Request): Promise<Response> {
  // GitHub reports a bad exchange with 200 and an `error` field; Google with 400.
  const refuse = (error: string) => (provider === "github" ? json({ error }) : json({ error }, 400));
  const form = new URLSearchParams(await request.text());
  if (form.get("client_id") !== FAKE_OAUTH[provider].clientId || form.get("client_secret") !== FAKE_OAUTH[provider].clientSecret) {
    return refuse("invalid_client");
  }
  const code = decodeJson<CodePayload>(form.get("code") ?? "");
  if (!code || code.provider !== provider || code.redirectUri !== form.get("redirect_uri")) return refuse("bad_verification_code");
  if ((await s256(form.get("code_verifier") ?? "")) !== code.challenge) return refuse("invalid_grant");
  if (provider === "google" && form.get("grant_type") !== "authorization_code") return refuse("unsupported_grant_type");
  return json({ access_token: `fake_${encodeJson(code.user)}`, token_type: "bearer", scope: "read" });
}

function userOf(request: Request): FakeOAuthUser | null {
  const match = /^Bearer fake_(.+)$/.exec(request.headers.get("Authorization") ?? "");
  return match ? decodeJson<FakeOAuthUser>(match[1]!) : null;
}

function profile(url: URL, request: Request): Response {
  const user = userOf(request);
  if (!user) return json({ message: "Bad credentials" }, 401);
  if (url.hostname === "api.github.com") {
    if (!request.headers.get("User-Agent")) return json({ message: "User-Agent required" }, 403);
    if (url.pathname === "/user") return json({ id: Number(user.id), login: user.name.replace(/\s+/g, "").toLowerCase(), name: user.name, avatar_url: user.picture, email: null });
    if (url.pathname === "/user/emails") return json([{ email: `backup-${user.email}`, primary: false, verified: true }, { email: user.email, primary: true, verified: user.emailVerified }]);
  }
  if (url.pathname === "/v1/userinfo") {
    return json({ sub: user.id, email: user.email, email_verified: user.emailVerified, name: user.name, picture: user.picture });
  }
  return json({ message: "Not Found" }, 404);
}

/** The outbound handler for the provider hosts (see isFakeOAuthHost). */
export async function fakeOAuthOutbound(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const provider = HOSTS[url.hostname]!;
  if (url.pathname === "/login/oauth/authorize" || url.pathname === "/o/oauth2/v2/auth") return authorize(provider, url);
  if (request.method === "POST" && (url.pathname === "/login/oauth/access_token" || url.pathname === "/token")) return token(provider, request);
  return profile(url, request);
}
