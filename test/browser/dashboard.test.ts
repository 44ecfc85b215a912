// The dashboard in a real browser (Debian's Chromium, headless) against a real local server
// (wrangler dev, started by the shared global setup): a new user signs up, makes a key, calls
// the API with it, sees the call and the balance, revokes the key, and uses the playground.
// Screenshots of each page at phone and desktop widths go to test-output/dashboard/.
// (Page scripts are passed as strings: this file is typed for Node, without the DOM library.)
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_FOUND, launchChromium, screenshots as takeScreenshots, type LaunchedBrowser } from "./chromium.ts";

const baseUrl = (): string => inject("pixelgateUrl");

let browser: LaunchedBrowser;
let page: Page;
let apiKey = "";
const email = `browser-${crypto.randomUUID()}@example.com`;

beforeAll(async () => {
  if (!CHROMIUM_FOUND) return;
  browser = await launchChromium();
  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl() });
  page = await browser.context.newPage();
  page.on("dialog", (dialog) => void dialog.accept());
});

afterAll(async () => {
  await browser?.close();
});

const screenshots = (name: string): Promise<void> => takeScreenshots(page, name);

async function api(route: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${baseUrl()}${route}`, { ...init, headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json", ...init.headers } });
}

async function balanceShown(): Promise<number> {
  await page.goto(`${baseUrl()}/dashboard`);
  return Number(await page.getByTestId("balance").textContent());
}

describe.skipIf(!CHROMIUM_FOUND)("the dashboard in Chromium", () => {
  it("signs up with email and password and lands on the overview with 50 free credits", async () => {
    await page.goto(`${baseUrl()}/dashboard`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await screenshots("sign-in");
    // Keyboard first: the first Tab reaches the skip link.
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Skip to content");

    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Name").fill("Browser Tester");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("short");
    await screenshots("sign-up");
    await page.getByLabel("Password").fill("a long browser password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/dashboard\?welcome$/);
    await expect.poll(() => page.getByRole("status").textContent()).toContain("50 free credits");
    expect(await page.getByTestId("balance").textContent()).toBe("50");
    expect(await page.getByTestId("plan").textContent()).toBe("Free");
    await screenshots("overview-new");
  });

  it("creates a key, shows it once with a working copy button, then only its prefix", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await expect.poll(() => page.getByText("You have no API keys yet.").isVisible()).toBe(true);
    await screenshots("keys-empty");
    await page.getByLabel("Name").fill("browser test");
    await page.getByRole("button", { name: "Create key" }).click();
    apiKey = await page.getByTestId("new-key").inputValue();
    expect(apiKey).toMatch(/^pg_[0-9A-Za-z]{38}$/);
    expect(await page.getByText("It will not be shown again.").isVisible()).toBe(true);
    await page.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => page.evaluate<string>("navigator.clipboard.readText()")).toBe(apiKey);
    await screenshots("keys-created");

    await page.goto(`${baseUrl()}/dashboard/keys`);
    const html = await page.content();
    expect(html).not.toContain(apiKey);
    expect(html).toContain(apiKey.slice(0, 12));
  });

  it("sees a REST call made with the key in the usage table, and the balance drop", async () => {
    const response = await api("/v1/generate", { method: "POST", body: JSON.stringify({ prompt: "a red kite over green hills", model: "local-draw-v1" }) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { deductedCredits: number; userCredits: number };
    expect(body.deductedCredits).toBe(2);
    const requestId = response.headers.get("X-Request-Id")!;

    await page.getByRole("link", { name: "Usage" }).click();
    const row = page.locator(`tr[data-request-id="${requestId}"]`);
    expect(await row.locator("td").nth(1).textContent()).toBe("generate_image");
    expect(await row.locator("td").nth(3).textContent()).toBe("200 OK");
    expect(await row.locator("td").nth(4).textContent()).toBe("2");
    await screenshots("usage");
    await page.getByLabel("Tool").selectOption("compress_image");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => page.getByText("No calls match these filters.").isVisible()).toBe(true);

    expect(await balanceShown()).toBe(48);
    expect(body.userCredits).toBe(48);
    await screenshots("overview-after-call");
  });

  it("revokes the key: the API answers 401 on the next request", async () => {
    expect((await api("/v1/me")).status).toBe(200);
    await page.goto(`${baseUrl()}/dashboard/keys`);
    await page.getByRole("button", { name: /^Revoke key browser test/ }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("is revoked");
    const refused = await api("/v1/me");
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    await screenshots("keys-revoked");
  });

  it("runs the playground: the result image, its cost and the balance left", async () => {
    await page.getByRole("link", { name: "Playground" }).click();
    await page.getByRole("textbox", { name: /^Prompt/ }).fill("a yellow sun over blue mountains");
    await page.getByLabel("Aspect ratio").selectOption("16:9");
    await page.getByRole("button", { name: "Run generate" }).click();
    await page.getByTestId("playground-result").waitFor();
    expect(await page.getByTestId("playground-cost").textContent()).toBe("2 credits");
    expect(await page.getByTestId("playground-balance").textContent()).toBe("46 left");
    type LoadedImage = { decode(): Promise<void>; naturalWidth: number; naturalHeight: number };
    const size = await page.getByTestId("playground-image").evaluate((img: LoadedImage) => img.decode().then(() => [img.naturalWidth, img.naturalHeight]));
    expect(size).toEqual([1024, 576]);
    await screenshots("playground-generate");

    await page.getByRole("link", { name: "Remove background" }).click();
    await page.getByLabel("Model").selectOption("local-cutout-v1");
    await page.getByRole("button", { name: "Run remove background" }).click();
    await page.getByTestId("playground-result").waitFor();
    expect(await page.getByTestId("playground-cost").textContent()).toBe("8 credits");
    await screenshots("playground-remove-background");
    expect(await balanceShown()).toBe(38);
  });

  it("signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/dashboard\/sign-in\?signed-out$/);
    await page.goto(`${baseUrl()}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
  });
});
