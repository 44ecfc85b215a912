import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { oauthClients } from "../../src/auth/oauth-providers";
import { balanceOf } from "../support/tool-calls";
import { encodeJson, FAKE_OAUTH, type FakeOAuthUser } from "./fake-oauth";
import { accountIdOf, freshIdentity, ORIGIN, signUpIn, TestBrowser, visibleText } from "./support";

// GitHub and Google sign-in against the fake providers (fake-oauth.ts) at the HTTP boundary.

type Provider = "github" | "google";

function person(overrides: Partial<FakeOAuthUser> = {}): FakeOAuthUser {
  const id = String(100_000 + Math.floor(Math.random() * 1e9));
  return { id, name: "Octo Person", email: freshIdentity().email, emailVerified: true, picture: `https://avatars.example.com/u/${id}.png`, ...overrides };
}

/** Start in our dashboard; returns the provider URL the browser is sent to. */
async function start(browser: TestBrowser, provider: Provider): Promise<URL> {
  const response = await browser.get(`/dashboard/oauth/${provider}/start`);
  expect(response.status).toBe(302);
  return new URL(response.headers.get("Location")!);
}

/** The person signs in at the provider, which redirects back with a code; returns that callback. */
async function approve(authorize: URL, user: FakeOAuthUser): Promise<string> {
  authorize.searchParams.set("login", encodeJson(user));
  const response = await fetch(authorize.toString(), { redirect: "manual" });
  expect(response.status, await response.clone().text()).toBe(302);
  return response.headers.get("Location")!;
}

async function signInWith(browser: TestBrowser, provider: Provider, user: FakeOAuthUser): Promise<Response> {
  return browser.get(await approve(await start(browser, provider), user));
}

describe("OAuth sign-in", () => {
  it("sends the browser to GitHub and Google with the code flow, a state and an S256 PKCE challenge", async () => {
    for (const provider of ["github", "google"] as const) {
      const url = await start(new TestBrowser(), provider);
      expect(url.origin).toBe(provider === "github" ? "https://github.com" : "https://accounts.google.com");
      expect(url.searchParams.get("client_id")).toBe(FAKE_OAUTH[provider].clientId);
      expect(url.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/dashboard/oauth/${provider}/callback`);
      expect(url.searchParams.get("response_type")).toBe("code");
      expect(url.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    }
    const page = await (await new TestBrowser().get("/dashboard/sign-in")).text();
    expect(visibleText(page)).toContain("Sign in with GitHub");
    expect(visibleText(page)).toContain("Sign in with Google");
  });

  it("creates a free GitHub account with the verified email and profile picture, and signs in to it again", async () => {
    const user = person();
    const browser = new TestBrowser();
    const done = await signInWith(browser, "github", user);
    expect(done.status).toBe(303);
    expect(done.headers.get("Location")).toBe("/dashboard");
    const id = await accountIdOf(user.email, env.DB);
    const row = await env.DB.prepare("SELECT provider, plan, name, profile_picture FROM accounts WHERE id = ?").bind(id).first();
    expect(row).toEqual({ provider: "github", plan: "free", name: user.name, profile_picture: user.picture });
    expect(await balanceOf(id)).toBe(50);
    const overview = await (await browser.get("/dashboard")).text();
    expect(overview).toContain(`src="${user.picture}"`);

    // Again, from another browser, even with a changed email at GitHub: the same account.
    const again = new TestBrowser();
    expect((await signInWith(again, "github", { ...user, email: freshIdentity().email })).status).toBe(303);
    expect(visibleText(await (await again.get("/dashboard")).text())).toContain(user.email);
  });

  it("links Google to an existing account with the same verified email, keeping its picture", async () => {
    const email = await signUpIn(new TestBrowser());
    const id = await accountIdOf(email, env.DB);
    const browser = new TestBrowser();
    const done = await signInWith(browser, "google", person({ email: email.toUpperCase() }));
    expect(done.status).toBe(303);
    const accounts = await env.DB.prepare("SELECT id, provider, profile_picture FROM accounts WHERE email = ?").bind(email).all<{ id: string; provider: string; profile_picture: string }>();
    expect(accounts.results).toHaveLength(1);
    expect(accounts.results[0]!.id).toBe(id);
    expect(accounts.results[0]!.profile_picture).toMatch(/^https:\/\/avatars\.example\.com\//);
    const link = await env.DB.prepare("SELECT account_id FROM oauth_identities WHERE provider = 'google' AND account_id = ?").bind(id).first();
    expect(link).not.toBeNull();
    expect(visibleText(await (await browser.get("/dashboard")).text())).toContain(email);
  });

  it("refuses an unverified email: no account is created or linked", async () => {
    const email = await signUpIn(new TestBrowser());
    for (const provider of ["github", "google"] as const) {
      const browser = new TestBrowser();
      const refused = await signInWith(browser, provider, person({ email, emailVerified: false }));
      expect(refused.status).toBe(400);
      expect(visibleText(await refused.text())).toContain("did not confirm a verified email");
      expect((await browser.get("/dashboard")).status).toBe(303);
    }
    const fresh = person({ emailVerified: false });
    expect((await signInWith(new TestBrowser(), "google", fresh)).status).toBe(400);
    expect(await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(fresh.email).first()).toBeNull();
  });

  it("refuses a callback whose state does not match this browser's, a replayed one, and a cancelled one", async () => {
    const user = person();
    // State mismatch: the callback carries a state the browser did not start.
    const browser = new TestBrowser();
    await start(browser, "github");
    const othersCallback = await approve(await start(new TestBrowser(), "github"), user);
    const mismatch = await browser.get(othersCallback);
    expect(mismatch.status).toBe(400);
    expect(visibleText(await mismatch.text())).toContain("does not belong to this browser");
    expect(mismatch.headers.getSetCookie().some((line) => line.startsWith("__Host-pg_session="))).toBe(false);

    // The callback without the state cookie at all (another browser, or a forged link).
    const stranger = await new TestBrowser().get(othersCallback);
    expect(stranger.status).toBe(400);

    // Replay: a callback that already signed someone in cannot be used twice.
    const honest = new TestBrowser();
    const callback = await approve(await start(honest, "google"), user);
    const cookie = honest.cookies.get("__Host-pg_oauth")!;
    expect((await honest.get(callback)).status).toBe(303);
    const replayer = new TestBrowser();
    replayer.cookies.set("__Host-pg_oauth", cookie);
    expect((await replayer.get(callback)).status).toBe(400);

    const cancelled = new TestBrowser();
    const url = await start(cancelled, "github");
    const back = await cancelled.get(`/dashboard/oauth/github/callback?error=access_denied&state=${url.searchParams.get("state")}`);
    expect(back.status).toBe(400);
    expect(await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(user.email).first()).not.toBeNull();
  });

  it("refuses a code the provider does not accept", async () => {
    // GitHub answers a bad exchange with 200 and `error`, Google with 400: both end the same way.
    for (const [provider, message] of [["github", "did not accept the sign-in code"], ["google", "refused the sign-in (HTTP 400)"]] as const) {
      const browser = new TestBrowser();
      const callback = new URL(await approve(await start(browser, provider), person()));
      callback.searchParams.set("code", encodeJson({ forged: true }));
      const refused = await browser.get(callback.toString());
      expect(refused.status, provider).toBe(400);
      expect(visibleText(await refused.text()), provider).toContain(message);
      expect(browser.cookies.has("__Host-pg_session"), provider).toBe(false);
    }
  });

  it("offers only the providers whose client id and secret are both configured", async () => {
    expect(oauthClients(env).map((client) => client.provider)).toEqual(["github", "google"]);
    expect(oauthClients({ ...env, GOOGLE_CLIENT_SECRET: undefined } as typeof env).map((client) => client.provider)).toEqual(["github"]);
    expect(oauthClients({ ...env, GITHUB_CLIENT_ID: "", GOOGLE_CLIENT_ID: undefined } as typeof env)).toEqual([]);
    const unknown = await new TestBrowser().get("/dashboard/oauth/gitlab/start");
    expect(unknown.status).toBe(404);
  });
});
