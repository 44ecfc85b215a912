import { describe, expect, it } from "vitest";
import { call, withKey } from "../support/fixtures";
import { csrfOf, signUpIn, TestBrowser, visibleText } from "./support";

// API keys from the dashboard: the full value once, the list, revocation effective at once.

async function createKey(browser: TestBrowser, name: string): Promise<{ secret: string; keyId: string; html: string }> {
  const response = await browser.submit("/dashboard/keys", "/dashboard/keys", { name });
  expect(response.status).toBe(200);
  const html = await response.text();
  const secret = /data-testid="new-key"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*data-testid="new-key"/.exec(html);
  expect(secret).not.toBeNull();
  const value = secret![1] ?? secret![2]!;
  const row = new RegExp(`<tr data-key-id="([^"]+)"><th scope="row">${name}`).exec(html);
  expect(row, "the new key is listed").not.toBeNull();
  return { secret: value, keyId: row![1]!, html };
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
    expect(later).not.toContain(secret);
    expect(later).toContain(secret.slice(0, 12));
    expect(visibleText(later)).toContain("laptop");
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

    const revoked = await browser.submit("/dashboard/keys", `/dashboard/keys/${keyId}/revoke`, {});
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
    const attempt = await intruder.submit("/dashboard/keys", `/dashboard/keys/${keyId}/revoke`, {}, { csrf: token });
    expect(attempt.status).toBe(404);
    expect((await call("/v1/me", withKey(secret))).status).toBe(200);
  });

  it("asks for a name", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const response = await browser.submit("/dashboard/keys", "/dashboard/keys", { name: "   " });
    expect(response.status).toBe(400);
    expect(visibleText(await response.text())).toContain("Give the key a name");
  });
});
