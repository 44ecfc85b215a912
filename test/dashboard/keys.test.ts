import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/ids/sha256";
import { call, withKey } from "../support/fixtures";
import { csrfOf, signUpIn, TestBrowser, visibleText } from "./support";

// API keys from the dashboard: the full value once, the list, revocation effective at once.
// Every form answers with a redirect, so reloading the page after it repeats nothing.

async function keyCount(browser: TestBrowser): Promise<number> {
  return [...(await (await browser.get("/dashboard/keys")).text()).matchAll(/<tr data-key-id=/g)].length;
}

async function createKey(browser: TestBrowser, name: string): Promise<{ secret: string; keyId: string; html: string; location: string }> {
  const answer = await browser.submit("/dashboard/keys", "/dashboard/keys", { name });
  expect(answer.status).toBe(303);
  const location = answer.headers.get("Location")!;
  expect(location).toMatch(/^\/dashboard\/keys\/new\/[0-9A-Za-z]{32}$/);
  const response = await browser.get(location);
  expect(response.status).toBe(200);
  const html = await response.text();
  const secret = /data-testid="new-key"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*data-testid="new-key"/.exec(html);
  expect(secret).not.toBeNull();
  const value = secret![1] ?? secret![2]!;
  const row = new RegExp(`<tr data-key-id="([^"]+)"><th scope="row">${name}`).exec(html);
  expect(row, "the new key is listed").not.toBeNull();
  return { secret: value, keyId: row![1]!, html, location };
}

describe("API keys page", () => {
  it("shows an empty state, then the new key in full exactly once with a warning and a copy button", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const empty = visibleText(await (await browser.get("/dashboard/keys")).text());
    expect(empty).toContain("You have no API keys yet.");

    const { secret, html } = await createKey(browser, "laptop");
    expect(secret).toMatch(/^pg_[0-9A-Za-z]{38}$/);
    expect(visibleText(html)).toContain("It will not be shown again.");
    expect(html).toContain('data-copy="new-key"');

    // Any later view shows the prefix only.
    const later = await (await browser.get("/dashboard/keys")).text();
    expect(later).not.toContain('data-testid="new-key"');
    expect(later).not.toContain(secret);
    expect(later).toContain(secret.slice(0, 12));
    expect(visibleText(later)).toContain("laptop");
  });

  it("shows the secret on the first GET after the redirect only: reload says it was shown and makes no second key", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const { secret, location } = await createKey(browser, "once");
    const reload = await browser.get(location);
    expect(reload.status).toBe(410);
    const html = await reload.text();
    expect(html).not.toContain(secret);
    expect(visibleText(html)).toContain("already shown once");
    expect(await keyCount(browser)).toBe(1);

  });

  it("keeps the waiting secret sealed, under a hashed token, for the session that made the key only", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const answer = await browser.submit("/dashboard/keys", "/dashboard/keys", { name: "sealed" });
    const location = answer.headers.get("Location")!;
    const token = location.split("/").pop()!;
    const row = await env.DB.prepare("SELECT token_hash, sealed FROM key_reveals WHERE token_hash = ?").bind(await sha256Hex(token)).first<{ token_hash: string; sealed: string }>();
    expect(row, "the row is found by the token's hash").not.toBeNull();
    expect(row!.sealed).not.toMatch(/pg_/);

    // Another signed-in browser with the address sees nothing and does not spend the view.
    const other = new TestBrowser();
    await signUpIn(other);
    const stranger = await other.get(location);
    expect(stranger.status).toBe(410);
    expect(await stranger.text()).not.toMatch(/value="pg_/);
    const mine = await browser.get(location);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toMatch(/data-testid="new-key"/);
    expect(await env.DB.prepare("SELECT 1 FROM key_reveals WHERE token_hash = ?").bind(await sha256Hex(token)).first()).toBeNull();
  });

  it("lists name, prefix, created and last used; revocation makes the API answer 401 on the next request", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const { secret, keyId } = await createKey(browser, "ci-runner");

    const me = await call("/v1/me", withKey(secret));
    expect(me.status).toBe(200);
    const listed = await (await browser.get("/dashboard/keys")).text();
    const row = new RegExp(`<tr data-key-id="${keyId}">([\\s\\S]*?)</tr>`).exec(listed)![1]!;
    const cells = [...row.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((match) => visibleText(match[1]!).trim());
    expect(cells[0]).toBe("ci-runner");
    expect(cells[1]).toBe(`${secret.slice(0, 12)}…`);
    expect(cells[2]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    // last_used_at is written in the background after the request.
    expect(cells[3]).toMatch(/^(\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC|never)$/);

    const answer = await browser.submit("/dashboard/keys", `/dashboard/keys/${keyId}/revoke`, {});
    expect(answer.status).toBe(303);
    // The page after a revoke is the keys page, not the revoke action's address.
    expect(answer.headers.get("Location")).toBe(`/dashboard/keys?revoked=${keyId}`);
    const revoked = await browser.follow(answer);
    expect(revoked.status).toBe(200);
    expect(visibleText(await revoked.text())).toContain("is revoked");

    const after = await call("/v1/me", withKey(secret));
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    const generate = await call("/v1/generate", withKey(secret, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ prompt: "a kite" }) }));
    expect(generate.status).toBe(401);
  });

  it("cannot revoke another account's key", async () => {
    const owner = new TestBrowser();
    await signUpIn(owner);
    const { secret, keyId } = await createKey(owner, "mine");
    const intruder = new TestBrowser();
    await signUpIn(intruder);
    const token = csrfOf(await (await intruder.get("/dashboard/keys")).text());
    const attempt = await intruder.follow(await intruder.submit("/dashboard/keys", `/dashboard/keys/${keyId}/revoke`, {}, { csrf: token }));
    expect(attempt.status).toBe(400);
    expect(visibleText(await attempt.text())).toContain("There is no such key on your account.");
    // Nor does the revoked notice tell anything about someone else's key.
    expect(visibleText(await (await intruder.get(`/dashboard/keys?revoked=${keyId}`)).text())).not.toContain("is revoked");
    expect((await call("/v1/me", withKey(secret))).status).toBe(200);
  });

  it("asks for a name", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const response = await browser.submitAndFollow("/dashboard/keys", "/dashboard/keys", { name: "   " });
    expect(response.status).toBe(400);
    expect(visibleText(await response.text())).toContain("Give the key a name");
  });
});
