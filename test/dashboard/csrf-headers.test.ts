import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountIdOf, csrfOf, freshIdentity, PASSWORD, signUpIn, TestBrowser } from "./support";

// Every dashboard form is protected against cross-site requests, and every page carries the
// security headers.

async function keyCount(email: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?").bind(await accountIdOf(email, env.DB)).first<{ n: number }>();
  return row!.n;
}

describe("CSRF", () => {
  it("refuses a signed-in form without a token, with a forged one, from another origin, or with another session's token", async () => {
    const browser = new TestBrowser();
    const email = await signUpIn(browser);
    const other = new TestBrowser();
    await signUpIn(other);
    const othersToken = csrfOf(await (await other.get("/dashboard/keys")).text());
    const goodToken = csrfOf(await (await browser.get("/dashboard/keys")).text());

    const attempts: Array<[string, Response]> = [
      ["no token", await browser.fetch("/dashboard/keys", { method: "POST", body: new URLSearchParams({ name: "x" }), headers: { Origin: "https://pixelgate.test" } })],
      ["forged token", await browser.submit("/dashboard/keys", "/dashboard/keys", { name: "x" }, { csrf: "0".repeat(64) })],
      ["another session's token", await browser.submit("/dashboard/keys", "/dashboard/keys", { name: "x" }, { csrf: othersToken })],
      ["another origin", await browser.submit("/dashboard/keys", "/dashboard/keys", { name: "x" }, { csrf: goodToken, origin: "https://evil.example" })],
    ];
    for (const [what, response] of attempts) {
      expect(response.status, what).toBe(403);
      expect(await response.text(), what).toContain("This form could not be accepted");
    }
    expect(await keyCount(email)).toBe(0);

    // The same request with the page's own token is accepted.
    const accepted = await browser.submit("/dashboard/keys", "/dashboard/keys", { name: "x" }, { csrf: goodToken });
    expect(accepted.status).toBe(303);
    expect(await keyCount(email)).toBe(1);
  });

  it("refuses a cross-site sign-out, sign-in and sign-up (login CSRF)", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const out = await browser.fetch("/dashboard/sign-out", { method: "POST", body: new URLSearchParams({}), headers: { "Sec-Fetch-Site": "cross-site" } });
    expect(out.status).toBe(403);
    expect((await browser.get("/dashboard")).status).toBe(200);

    const email = await signUpIn(new TestBrowser());
    // An attacker's page cannot read our nonce cookie, so its token cannot match.
    const victim = new TestBrowser();
    await victim.get("/dashboard/sign-in");
    const attacker = new TestBrowser();
    const attackersToken = csrfOf(await (await attacker.get("/dashboard/sign-in")).text());
    const forced = await victim.submit("/dashboard/sign-in", "/dashboard/sign-in", { email, password: PASSWORD }, { csrf: attackersToken });
    expect(forced.status).toBe(403);
    const signUp = await new TestBrowser().submit("/dashboard/sign-up", "/dashboard/sign-up", { email: freshIdentity().email, password: PASSWORD }, { origin: "https://evil.example" });
    expect(signUp.status).toBe(403);
  });
});

describe("security headers", () => {
  it("sends a strict CSP, no framing and no-store on pages; the assets are served by the worker", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    for (const path of ["/dashboard", "/dashboard/sign-in", "/dashboard/keys", "/dashboard/usage", "/dashboard/playground/generate", "/dashboard/no-such-page"]) {
      // The sign-in page is for signed-out visitors (signed in, it redirects).
      const response = await (path === "/dashboard/sign-in" ? new TestBrowser() : browser).page(path);
      expect(response.status, path).toBe(path.includes("no-such") ? 404 : 200);
      const csp = response.headers.get("Content-Security-Policy") ?? "";
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain("unsafe-inline");
      expect(response.headers.get("X-Frame-Options"), path).toBe("DENY");
      expect(response.headers.get("X-Content-Type-Options"), path).toBe("nosniff");
      expect(response.headers.get("Cache-Control"), path).toBe("no-store");
      const html = await response.text();
      expect(html.startsWith("<!doctype html>"), path).toBe(true);
      // No inline script or style: the CSP would block them.
      expect(html, path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html, path).not.toMatch(/\sstyle="/);
      expect(html, path).not.toMatch(/https?:\/\/(?!pixelgate\.test)[a-z0-9.-]+\/[^"]*\.(js|css)/);
    }
    expect((await browser.get("/dashboard/no-such-page")).status).toBe(404);
    for (const [path, type] of [["/dashboard/assets/dashboard.css", "text/css"], ["/dashboard/assets/dashboard.js", "text/javascript"]]) {
      const asset = await browser.get(path!);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("Content-Type")).toContain(type);
      expect((await asset.text()).length).toBeGreaterThan(500);
    }
  });
});
