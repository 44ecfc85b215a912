// Reload, Back and Forward after every dashboard form, in Debian's Chromium against a real local
// server: each form answers with a redirect, so the page a person reloads or returns to is a GET
// and nothing is repeated. Checked by counting what a repeat would add: accounts signed up, keys,
// credits, usage entries. Also the playground's kept upload, downloads, TIFF and prompt count.
// (Page scripts are passed as strings: this file is typed for Node, without the DOM library.)
import sharp from "sharp";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_FOUND, launchChromium, screenshots, type LaunchedBrowser } from "./chromium.ts";

const baseUrl = (): string => inject("pixelgateUrl");
const email = `resubmit-${crypto.randomUUID()}@example.com`;
const PASSWORD = "a long browser password";

let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM_FOUND) return;
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on("dialog", (dialog) => void dialog.accept());
});

afterAll(async () => {
  await browser?.close();
});

const path = (): string => new URL(page.url()).pathname + new URL(page.url()).search;

/** Reads a page in a second tab, so the first keeps its history for Back and Forward. */
async function inSecondTab<T>(route: string, read: (tab: Page) => Promise<T>): Promise<T> {
  const tab = await browser.context.newPage();
  await tab.goto(`${baseUrl()}${route}`);
  const value = await read(tab);
  await tab.close();
  return value;
}

const balance = () => inSecondTab("/dashboard", async (tab) => Number(await tab.getByTestId("balance").textContent()));
const keyRows = () => inSecondTab("/dashboard/keys", (tab) => tab.locator("tr[data-key-id]").count());
const usageRows = () => inSecondTab("/dashboard/usage", (tab) => tab.locator("tr[data-request-id]").count());

describe.skipIf(!CHROMIUM_FOUND)("reload and Back after each dashboard form", () => {
  it("sign-up: reload and Back keep the one account with its 50 credits", async () => {
    await page.goto(`${baseUrl()}/dashboard/sign-up`);
    await page.getByLabel("Name").fill("Resubmit Tester");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/dashboard\?welcome$/);
    await page.reload();
    expect(path()).toBe("/dashboard?welcome");
    await page.goBack();
    // The sign-up page is a GET; signed in, it sends the person on to the overview.
    expect(path()).toMatch(/^\/dashboard(\?welcome)?$/);
    expect(await balance()).toBe(50);
  });

  it("sign-in: a refused attempt shows its reason once; reload shows a clean form and sends nothing", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/sign-in\?signed-out$/);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard\/sign-in$/);
    expect(await page.getByRole("alert").first().textContent()).toContain("do not match");
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    await page.reload();
    expect(path()).toBe("/dashboard/sign-in");
    expect(await page.getByText("do not match").count()).toBe(0);

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.reload();
    expect(path()).toBe("/dashboard");
    await page.goBack();
    expect(path()).toMatch(/^\/dashboard(\/sign-in)?$/);
    await page.goto(`${baseUrl()}/dashboard`);
    expect(path()).toBe("/dashboard");
  });

  let keyPrefix = "";

  it("key create: the secret shows once; reload, Back and Forward make no second key and never show it again", async () => {
    await page.goto(`${baseUrl()}/dashboard/keys`);
    await page.getByLabel("Name").fill("reload test");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL(/\/dashboard\/keys\/new\/[0-9A-Za-z]{32}$/);
    const secret = await page.getByTestId("new-key").inputValue();
    expect(secret).toMatch(/^pg_/);
    keyPrefix = secret.slice(0, 12);
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByText("already shown once").isVisible()).toBe(true);
    await screenshots(page, "keys-already-shown");
    await page.goBack();
    expect(path()).toBe("/dashboard/keys");
    expect(await page.content()).not.toContain(secret);
    await page.goForward();
    expect(await page.content()).not.toContain(secret);
    expect(await keyRows()).toBe(1);
  });

  it("key revoke: the address is the keys page; reload and Back revoke nothing else", async () => {
    await page.goto(`${baseUrl()}/dashboard/keys`);
    await page.getByRole("button", { name: /^Revoke key reload test/ }).click();
    await page.waitForURL(/\/dashboard\/keys\?revoked=/);
    expect(path()).not.toMatch(/\/revoke$/);
    expect(await page.getByRole("status").textContent()).toContain(`(${keyPrefix}…) is revoked`);
    await page.reload();
    expect(path()).toMatch(/^\/dashboard\/keys\?revoked=/);
    await page.goBack();
    expect(path()).toBe("/dashboard/keys");
    expect(await keyRows()).toBe(1);
  });

  it("playground run: reload, Back and Forward show the run without running or charging again", async () => {
    await page.goto(`${baseUrl()}/dashboard/playground/generate`);
    await page.getByRole("textbox", { name: /^Prompt/ }).fill("a green kite over a beach");
    await page.locator("#pg-model").selectOption("local-draw-v1");
    await page.getByRole("button", { name: "Run generate" }).click();
    await page.waitForURL(/\/dashboard\/playground\/generate\/runs\/[0-9A-Za-z]{24}$/);
    const runPage = path();
    expect(await page.getByTestId("playground-cost").textContent()).toBe("2 credits");
    expect(await balance()).toBe(48);
    await page.reload();
    expect(path()).toBe(runPage);
    expect(await page.getByTestId("playground-cost").textContent()).toBe("2 credits");
    await page.goBack();
    // The form's own address (it carries the run token): it says it was used.
    expect(path()).toBe(`/dashboard/playground/generate/form/${runPage.split("/").pop()}`);
    expect(await page.getByTestId("form-used").isVisible()).toBe(true);
    await page.goForward();
    expect(path()).toBe(runPage);
    expect(await balance()).toBe(48);
    // The playground key is listed now; the usage log has the one call.
    expect(await usageRows()).toBe(1);

    const download = page.waitForEvent("download");
    await page.getByTestId("playground-download").click();
    expect((await download).suggestedFilename()).toMatch(/^pixelgate-generate-[0-9A-Za-z]{8}\.png$/);
  });

  it("playground re-run: the uploaded file is what the second run uses, not the sample", async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 20, g: 120, b: 200 } } }).png().toBuffer();
    await page.goto(`${baseUrl()}/dashboard/playground/compress`);
    await page.locator("#pg-image-file").setInputFiles({ name: "blue.png", mimeType: "image/png", buffer: png });
    await page.getByRole("button", { name: "Run compress" }).click();
    await page.waitForURL(/\/runs\//);
    type LoadedImage = { decode(): Promise<void>; naturalWidth: number };
    const width = () => page.getByTestId("playground-image").evaluate((img: LoadedImage) => img.decode().then(() => img.naturalWidth));
    expect(await width()).toBe(64);
    expect(await page.getByTestId("kept-upload").isChecked()).toBe(true);
    await screenshots(page, "playground-kept-upload");
    const first = path();
    await page.getByRole("button", { name: "Run compress again" }).click();
    await page.waitForURL((url) => url.pathname.includes("/runs/") && url.pathname !== first);
    expect(await width()).toBe(64);
    expect(await balance()).toBe(46);
  });

  it("playground TIFF result: no broken image, a note and a download", async () => {
    await page.goto(`${baseUrl()}/dashboard/playground/convert-format`);
    await page.locator("#pg-targetFormat").selectOption("tiff");
    await page.getByRole("button", { name: "Run convert" }).click();
    await page.waitForURL(/\/runs\//);
    expect(await page.getByTestId("playground-image").count()).toBe(0);
    expect(await page.getByTestId("no-preview").textContent()).toContain("cannot be previewed");
    await screenshots(page, "playground-tiff");
    const download = page.waitForEvent("download");
    await page.getByTestId("playground-download").click();
    expect((await download).suggestedFilename()).toMatch(/\.tiff$/);
  });

  it("playground prompt: a live count, and an over-long prompt is held back whole, not cut or sent", async () => {
    await page.goto(`${baseUrl()}/dashboard/playground/generate`);
    const prompt = page.getByRole("textbox", { name: /^Prompt/ });
    await prompt.fill("x".repeat(4_001));
    expect(await page.getByTestId("prompt-count").textContent()).toBe("4,001 / 4,000 characters: 1 too many");
    expect((await prompt.inputValue()).length).toBe(4_001);
    const before = await balance();
    await page.getByRole("button", { name: "Run generate" }).click();
    await expect.poll(() => page.locator("#live").textContent()).toContain("The prompt has 4,001 characters; the limit is 4,000.");
    expect(path()).toMatch(/^\/dashboard\/playground\/generate\/form\//);
    await screenshots(page, "playground-prompt-too-long");
    await prompt.fill("a short prompt");
    expect(await page.getByTestId("prompt-count").textContent()).toBe("14 / 4,000 characters");
    expect(await balance()).toBe(before);
  });
});
