// `npm start` as a newcomer runs it, offline: its own port and state directory (PORT,
// PERSIST_TO), settings from the environment so no .dev.vars is written. What it prints before
// the banner must be short and calm (no migration tables, no stack traces), and the development
// account must sign in to the dashboard with the password the banner prints.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/ids/api-key.ts";
import { ChildGroup, childEnv, freePort, sleep } from "../../scripts/bench/processes.ts";

const state = mkdtempSync(path.join(os.tmpdir(), "pixelgate-start-"));
let start: ChildGroup | undefined;

afterAll(async () => {
  await start?.stop(3_000);
  rmSync(state, { recursive: true, force: true });
});

/** Cookies a browser would keep: name=value from each Set-Cookie, deletions applied. */
function keepCookies(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
    if (value === "" || /max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

describe("npm start", () => {
  it("prints a few set-up lines and the banner, and the development account signs in with the printed password", { timeout: 300_000 }, async () => {
    const port = await freePort();
    const password = "a start test password";
    start = new ChildGroup("npm start", "node", ["scripts/start.ts"], childEnv({
      PORT: String(port), PERSIST_TO: state, DEV_API_KEY: generateApiKey(), DEV_PASSWORD: password, ADMIN_TOKEN: "start-test-admin",
    }), 1_000);
    const deadline = Date.now() + 240_000;
    while (!start.output().some((line) => line.includes("Operator API:")) && start.running && Date.now() < deadline) await sleep(250);
    const lines = start.output();
    const bannerAt = lines.findIndex((line) => line.startsWith("Pixelgate is running at"));
    expect(bannerAt, start.tail()).toBeGreaterThan(0);

    const before = lines.slice(0, bannerAt);
    const migrations = readdirSync(path.join(import.meta.dirname, "../../migrations")).filter((name) => name.endsWith(".sql")).length;
    expect(before).toContain(`Applied ${migrations} local D1 migrations.`);
    for (const alarming of [/ENOTFOUND/, /Error/, /^\s+at /, /[┌├└]/, /Unable to fetch/]) {
      expect(before.filter((line) => alarming.test(line)), String(alarming)).toEqual([]);
    }
    // One line per set-up step and wrangler's own start-up (its bindings table, twice): no more.
    expect(before.length, before.join("\n")).toBeLessThan(50);

    const local = `http://localhost:${port}`;
    const banner = lines.slice(bannerAt).join("\n");
    expect(banner).toContain(`sign in as dev@localhost with the password ${password}`);
    expect(banner).toContain(`CLI: PIXELGATE_URL=${local} PIXELGATE_API_KEY=`);

    // Sign in as a browser would: the form's CSRF token and cookie, then the POST.
    const jar = new Map<string, string>();
    const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const form = await fetch(`${local}/dashboard/sign-in`, { redirect: "manual" });
    keepCookies(jar, form);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signedIn = await fetch(`${local}/dashboard/sign-in`, {
      method: "POST", redirect: "manual", headers: { Cookie: cookie(), Origin: local },
      body: new URLSearchParams({ csrf, email: "dev@localhost", password }),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("Location")).toBe("/dashboard");
    keepCookies(jar, signedIn);
    const overview = await (await fetch(`${local}/dashboard`, { redirect: "manual", headers: { Cookie: cookie() } })).text();
    expect(overview).toContain('data-testid="balance">1000<');
  });
});
