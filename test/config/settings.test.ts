import { describe, expect, it } from "vitest";
import { DEFAULT_FREE_SIGNUP_CREDITS, DEFAULT_HOLD_MARGIN_MS, DEFAULT_UPSTREAM_TIMEOUT_MS, settingsOf } from "../../src/config/settings";

describe("settings", () => {
  it("parses numbers and falls back to the default for what is unset, not a number or out of range", () => {
    expect(settingsOf({ UPSTREAM_TIMEOUT_MS: "2500", HOLD_MARGIN_MS: "0", FREE_SIGNUP_CREDITS: " 7 " })).toMatchObject({ upstreamTimeoutMs: 2500, holdMarginMs: 0, freeSignupCredits: 7 });
    expect(settingsOf({})).toMatchObject({
      upstreamTimeoutMs: DEFAULT_UPSTREAM_TIMEOUT_MS,
      holdMarginMs: DEFAULT_HOLD_MARGIN_MS,
      freeSignupCredits: DEFAULT_FREE_SIGNUP_CREDITS,
    });
    for (const bad of ["soon", "-5", "0", "Infinity"]) expect(settingsOf({ UPSTREAM_TIMEOUT_MS: bad }).upstreamTimeoutMs).toBe(DEFAULT_UPSTREAM_TIMEOUT_MS);
    for (const bad of ["-1", "later"]) expect(settingsOf({ HOLD_MARGIN_MS: bad }).holdMarginMs).toBe(DEFAULT_HOLD_MARGIN_MS);
    for (const bad of ["", "1.5", "-1", "2000000", "many"]) expect(settingsOf({ FREE_SIGNUP_CREDITS: bad }).freeSignupCredits).toBe(DEFAULT_FREE_SIGNUP_CREDITS);
  });

  it("treats empty text as unset and derives the moderation and sign-in settings", () => {
    const settings = settingsOf({
      PUBLIC_BASE_URL: "",
      OPENAI_BASE_URL: "https://openai.example/v1",
      OPENAI_API_KEY: "sk-1",
      MODERATION: " OpenAI ",
      MODERATION_FAILURE: "Open",
      GITHUB_CLIENT_ID: "id",
      GITHUB_CLIENT_SECRET: "secret",
      GOOGLE_CLIENT_ID: "id",
    });
    expect(settings.publicBaseUrl).toBeUndefined();
    expect(settings.moderation).toEqual({ kind: "openai", model: undefined, baseUrl: "https://openai.example/v1", apiKey: "sk-1", failsOpen: true });
    expect(settings.oauthClients).toEqual([{ provider: "github", clientId: "id", clientSecret: "secret" }]);
    // Unset or unrecognised is the default (Llama Guard where the AI binding is, src/safety); only "off" turns it off.
    expect(settingsOf({ MODERATION: "something-else" }).moderation).toMatchObject({ kind: undefined, failsOpen: false });
    expect(settingsOf({ MODERATION: " OFF " }).moderation).toMatchObject({ kind: "off" });
  });

  it("parses an environment once, and a changed copy afresh", () => {
    const env = { UPSTREAM_TIMEOUT_MS: "1000" };
    expect(settingsOf(env)).toBe(settingsOf(env));
    expect(settingsOf({ ...env, UPSTREAM_TIMEOUT_MS: "3000" }).upstreamTimeoutMs).toBe(3000);
  });
});
