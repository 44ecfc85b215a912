import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifyPassword } from "../../src/auth/password";
import { balanceOf } from "../support/tool-calls";
import { accountIdOf, freshIdentity, PASSWORD, signUpIn, TestBrowser, visibleText } from "./support";

// Email and password accounts: sign-up, sign-in, sign-out, the session cookie, the throttle.

describe("sign-up", () => {
  it("a double-click on \"Create account\" (the form sent twice at once) leaves one account and the person signed in", async () => {
    const browser = new TestBrowser();
    const { email } = freshIdentity();
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await browser.get("/dashboard/sign-up")).text())![1]!;
    const post = () => {
      const body = new FormData();
      for (const [name, value] of Object.entries({ csrf, name: "Double Click", email, password: PASSWORD })) body.set(name, value);
      return browser.fetch("/dashboard/sign-up", { method: "POST", body, headers: { Origin: "https://pixelgate.test" } });
    };
    const answers = await Promise.all([post(), post()]);
    for (const answer of answers) {
      expect(answer.status).toBe(303);
      expect(answer.headers.get("Location")).toBe("/dashboard?welcome");
      expect(answer.headers.getSetCookie().some((cookie) => cookie.startsWith("__Host-pg_session="))).toBe(true);
    }
    // Whichever answer the browser kept, it is signed in to the one account.
    expect((await browser.get("/dashboard")).status).toBe(200);
    const id = await accountIdOf(email, env.DB);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM accounts WHERE email = ?").bind(email).first<number>("n")).toBe(1);
    expect(await balanceOf(id)).toBe(50);

    // The same email with another password is still told the account exists, signed out.
    const other = new TestBrowser();
    const refused = await other.submit("/dashboard/sign-up", "/dashboard/sign-up", { name: "", email, password: "another long password" });
    expect(refused.headers.get("Location")).toBe("/dashboard/sign-up");
    expect(visibleText(await (await other.follow(refused)).text())).toContain("An account with this email already exists.");
    expect((await other.get("/dashboard")).status).toBe(303);
  });

  it("creates a free account with 50 opening credits, a PBKDF2 password and a session", async () => {
    const browser = new TestBrowser();
    const email = await signUpIn(browser);
    const id = await accountIdOf(email, env.DB);
    const account = await env.DB.prepare("SELECT provider, plan FROM accounts WHERE id = ?").bind(id).first();
    expect(account).toEqual({ provider: "local", plan: "free" });
    expect(await balanceOf(id)).toBe(50);

    const stored = await env.DB.prepare("SELECT hash FROM account_passwords WHERE account_id = ?").bind(id).first<{ hash: string }>();
    expect(stored!.hash).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(stored!.hash).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, stored!.hash)).toBe(true);
    expect(await verifyPassword(PASSWORD + "!", stored!.hash)).toBe(false);

    const page = await browser.get("/dashboard?welcome");
    expect(page.status).toBe(200);
    const text = visibleText(await page.text());
    expect(text).toContain("50 free credits");
    expect(text).toContain(email);
  });

  it("sets the session cookie HttpOnly, Secure, SameSite=Lax with the __Host- prefix", async () => {
    const browser = new TestBrowser();
    const { email } = freshIdentity();
    const response = await browser.submit("/dashboard/sign-up", "/dashboard/sign-up", { email, password: PASSWORD });
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith("__Host-pg_session="));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//i);
    // Only the token's hash is stored.
    const token = decodeURIComponent(cookie!.split(";")[0]!.split("=")[1]!);
    const { results } = await env.DB.prepare("SELECT token_hash FROM dashboard_sessions WHERE token_hash = ?").bind(token).all();
    expect(results).toHaveLength(0);
  });

  it("refuses a short password and a taken email with the reason next to the field", async () => {
    const browser = new TestBrowser();
    const short = await browser.submitAndFollow("/dashboard/sign-up", "/dashboard/sign-up", { email: freshIdentity().email, password: "short" });
    expect(short.status).toBe(400);
    expect(visibleText(await short.text())).toContain("Use at least 10 characters.");

    const email = await signUpIn(new TestBrowser());
    // (With the account's own password it would sign in: see the double-click test.)
    const refused = await browser.submit("/dashboard/sign-up", "/dashboard/sign-up", { email: email.toUpperCase(), password: "not the account's password" });
    expect(refused.headers.getSetCookie().some((line) => line.startsWith("__Host-pg_session="))).toBe(false);
    const taken = await browser.follow(refused);
    expect(taken.status).toBe(400);
    const html = await taken.text();
    expect(visibleText(html)).toContain("An account with this email already exists");
    // What was typed comes back (never the password); a reload shows a clean form.
    expect(html).toContain(`value="${email.toUpperCase()}"`);
    const reloaded = await browser.get("/dashboard/sign-up");
    expect(reloaded.status).toBe(200);
    expect(visibleText(await reloaded.text())).not.toContain("already exists");
  });
});

describe("sign-in and sign-out", () => {
  it("signs in with the right password, refuses a wrong one the same way as an unknown email", async () => {
    const email = await signUpIn(new TestBrowser());
    const browser = new TestBrowser();

    const wrong = await browser.submitAndFollow("/dashboard/sign-in", "/dashboard/sign-in", { email, password: "not the password" });
    expect(wrong.status).toBe(401);
    const unknown = await browser.submitAndFollow("/dashboard/sign-in", "/dashboard/sign-in", { email: freshIdentity().email, password: "not the password" });
    expect(unknown.status).toBe(401);
    const message = "That email and password do not match an account.";
    expect(visibleText(await wrong.text())).toContain(message);
    expect(visibleText(await unknown.text())).toContain(message);
    expect((await browser.get("/dashboard")).status).toBe(303);

    const right = await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email, password: PASSWORD });
    expect(right.status).toBe(303);
    expect(right.headers.get("Location")).toBe("/dashboard");
    const overview = await browser.get("/dashboard");
    expect(overview.status).toBe(200);
    expect(visibleText(await overview.text())).toContain(email);
  });

  it("sign-out deletes the session server-side: the old cookie no longer works", async () => {
    const browser = new TestBrowser();
    const email = await signUpIn(browser);
    const stolen = browser.cookies.get("__Host-pg_session")!;
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM dashboard_sessions WHERE account_id = ?").bind(await accountIdOf(email, env.DB)).first<{ n: number }>();
    expect(before!.n).toBe(1);

    const out = await browser.submit("/dashboard", "/dashboard/sign-out", {});
    expect(out.status).toBe(303);
    expect(out.headers.get("Location")).toBe("/dashboard/sign-in?signed-out");
    expect(browser.cookies.has("__Host-pg_session")).toBe(false);
    const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM dashboard_sessions WHERE account_id = ?").bind(await accountIdOf(email, env.DB)).first<{ n: number }>();
    expect(after!.n).toBe(0);

    // Replaying the copied cookie: treated as signed out.
    const replay = new TestBrowser();
    replay.cookies.set("__Host-pg_session", stolen);
    const page = await replay.get("/dashboard/keys");
    expect(page.status).toBe(303);
    expect(page.headers.get("Location")).toBe("/dashboard/sign-in");
  });

  it("sends signed-out visitors of every account page to sign-in", async () => {
    const browser = new TestBrowser();
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/usage", "/dashboard/usage.csv", "/dashboard/playground/generate"]) {
      const response = await browser.get(path);
      expect(response.status, path).toBe(303);
      expect(response.headers.get("Location"), path).toBe("/dashboard/sign-in");
    }
  });
});

describe("the one-time flash after a refused form", () => {
  it("is read once, and a forged one is ignored", async () => {
    const browser = new TestBrowser();
    const answer = await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email: freshIdentity().email, password: "not the password" });
    expect(answer.status).toBe(303);
    const flash = browser.cookies.get("__Host-pg_flash")!;
    expect(flash).toMatch(/^[\w-]+\.[0-9a-f]{64}$/);
    expect((await browser.get("/dashboard/sign-in")).status).toBe(401);
    expect((await browser.get("/dashboard/sign-in")).status).toBe(200);

    const body = btoa(JSON.stringify({ status: 401, problems: { form: "Call +1 555 0100 to unlock your account" }, values: {} })).replace(/=+$/, "");
    browser.cookies.set("__Host-pg_flash", `${body}.${flash.split(".")[1]}`);
    const forged = await browser.get("/dashboard/sign-in");
    expect(forged.status).toBe(200);
    expect(visibleText(await forged.text())).not.toContain("unlock your account");
  });
});

describe("sign-in throttle", () => {
  it("refuses the 11th failed attempt for one email within 15 minutes, even with the right password", async () => {
    const email = await signUpIn(new TestBrowser());
    for (let attempt = 1; attempt <= 10; attempt++) {
      // A new IP each time: it is the email's counter that fills up.
      const response = await new TestBrowser().submitAndFollow("/dashboard/sign-in", "/dashboard/sign-in", { email, password: `guess ${attempt}` });
      expect(response.status, `attempt ${attempt}`).toBe(401);
    }
    const throttled = new TestBrowser();
    const answer = await throttled.submit("/dashboard/sign-in", "/dashboard/sign-in", { email, password: PASSWORD });
    expect(answer.headers.getSetCookie().some((line) => line.startsWith("__Host-pg_session="))).toBe(false);
    const blocked = await throttled.follow(answer);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(Number(blocked.headers.get("Retry-After"))).toBeLessThanOrEqual(15 * 60);
    expect(visibleText(await blocked.text())).toContain("Too many attempts");
  });

  it("refuses an IP after 30 failures across many emails", async () => {
    const ip = freshIdentity().ip;
    for (let attempt = 1; attempt <= 30; attempt++) {
      const response = await new TestBrowser(ip).submitAndFollow("/dashboard/sign-in", "/dashboard/sign-in", { email: freshIdentity().email, password: "wrong password" });
      expect(response.status, `attempt ${attempt}`).toBe(401);
    }
    const email = await signUpIn(new TestBrowser());
    const blocked = await new TestBrowser(ip).submitAndFollow("/dashboard/sign-in", "/dashboard/sign-in", { email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    // Another IP with the same email is not affected.
    const elsewhere = await new TestBrowser().submit("/dashboard/sign-in", "/dashboard/sign-in", { email, password: PASSWORD });
    expect(elsewhere.status).toBe(303);
  });
});
