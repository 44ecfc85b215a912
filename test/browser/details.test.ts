// The dashboard's details as a person meets them in Debian's Chromium, with the page script and
// without it: a double click on "Create account", Back to a used playground form then Run, a
// 40 MB upload, and the pages at phone width (the chart's labels, a 4,100-character prompt in
// the usage log, the focus ring's contrast, axe's rules on the keys page, the Copy button).
// (Page scripts are passed as strings: this file is typed for Node, without the DOM library.)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_FOUND, launchChromium, PHONE, screenshots, type LaunchedBrowser } from "./chromium.ts";

const baseUrl = (): string => inject("pixelgateUrl");
const PASSWORD = "a long browser password";
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

// A 40 MB file on disk, as a person would pick it (its bytes never matter: it must not be sent).
const scratch = mkdtempSync(path.join(os.tmpdir(), "pixelgate-upload-"));
const HUGE = path.join(scratch, "holiday.png");
writeFileSync(HUGE, new Uint8Array(40 * 1024 * 1024));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const pathOf = (page: Page): string => new URL(page.url()).pathname;

/** Signs up with a double click on "Create account", as an impatient person does. */
async function signUpWithDoubleClick(page: Page, email: string): Promise<void> {
  await page.goto(`${baseUrl()}/dashboard/sign-up`);
  await page.getByLabel("Name").fill("Double Clicker");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).dblclick();
  await page.waitForURL(/\/dashboard\?welcome$/);
  await page.goto(`${baseUrl()}/dashboard`);
  expect(pathOf(page)).toBe("/dashboard");
  expect(await page.getByTestId("balance").textContent()).toBe("50");
}

async function balance(page: Page): Promise<number> {
  const tab = await page.context().newPage();
  await tab.goto(`${baseUrl()}/dashboard`);
  const shown = Number(await tab.getByTestId("balance").textContent());
  await tab.close();
  return shown;
}

/** WCAG contrast of two "rgb(r, g, b)" colours. */
function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, bl] = css.match(/\d+/g)!.slice(0, 3).map((n) => Number(n) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high! + 0.05) / (low! + 0.05);
}

describe.skipIf(!CHROMIUM_FOUND)("with the page script", () => {
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("a double click on \"Create account\" signs in to one account", async () => {
    await signUpWithDoubleClick(page, `double-${crypto.randomUUID()}@example.com`);
  });

  it("Back to a used playground form says so, keeps the prompt, and only \"Run generate again\" charges again", async () => {
    await page.goto(`${baseUrl()}/dashboard/playground/generate`);
    await page.getByRole("textbox", { name: /^Prompt/ }).fill("an orange kite over a lake");
    await page.locator("#pg-model").selectOption("local-draw-v1");
    await page.getByRole("button", { name: "Run generate" }).click();
    await page.waitForURL(/\/runs\/[0-9A-Za-z]{24}$/);
    const firstRun = pathOf(page);
    expect(await page.getByRole("button", { name: "Run generate again" }).isVisible()).toBe(true);
    expect(await balance(page)).toBe(48);

    await page.goBack();
    expect(pathOf(page)).toMatch(/\/dashboard\/playground\/generate\/form\/[0-9A-Za-z]{24}$/);
    expect(await page.getByTestId("form-used").textContent()).toContain("You already ran this form.");
    expect(await page.getByRole("link", { name: "See that run" }).getAttribute("href")).toBe(firstRun);
    expect(await page.getByRole("textbox", { name: /^Prompt/ }).inputValue()).toBe("an orange kite over a lake");
    expect(await page.getByRole("button", { name: /^Run generate$/ }).count()).toBe(0);
    await screenshots(page, "playground-form-used");
    expect(await balance(page)).toBe(48);

    await page.getByRole("button", { name: "Run generate again" }).click();
    await page.waitForURL((url) => url.pathname.includes("/runs/") && url.pathname !== firstRun);
    expect(await page.getByTestId("playground-cost").textContent()).toBe("2 credits");
    expect(await balance(page)).toBe(46);
  });

  it("a 40 MB file is named with its size and the limit, and the form is not sent", async () => {
    await page.goto(`${baseUrl()}/dashboard/playground/compress`);
    const formAddress = pathOf(page);
    await page.locator("#pg-image-file").setInputFiles(HUGE);
    const note = page.locator("#pg-image-file-size");
    expect(await note.textContent()).toBe("“holiday.png” is 40 MB; files can be at most 20 MB. Choose a smaller file.");
    await page.getByRole("button", { name: "Run compress" }).click();
    await expect.poll(() => page.locator("#live").textContent()).toContain("at most 20 MB");
    expect(pathOf(page)).toBe(formAddress);
    await screenshots(page, "playground-file-too-large");
    expect(await balance(page)).toBe(46);
  });

  it("at phone width: the chart's y label is inside the chart, the focus ring has 3:1 contrast, axe finds nothing on the pages", async () => {
    // Spend over 50 credits today so the y axis reads 100 (three digits at the phone's label size).
    await page.goto(`${baseUrl()}/dashboard/keys`);
    await page.getByLabel("Name").fill("chart");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.getByTestId("new-key").inputValue();
    const me = (await (await fetch(`${baseUrl()}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { id?: string; user?: { id: string } };
    const accountId = me.user?.id ?? me.id;
    const grant = await fetch(`${baseUrl()}/admin/v1/accounts/${accountId}/credits`, {
      method: "POST", headers: { Authorization: `Bearer ${inject("adminToken")}`, "Content-Type": "application/json" }, body: JSON.stringify({ amount: 100 }),
    });
    expect(grant.status).toBe(200);
    for (let spent = 4; spent <= 60; ) {
      const response = await fetch(`${baseUrl()}/v1/text-to-svg`, {
        method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: JSON.stringify({ prompt: `a star ${spent}`, model: "local-svg-v1" }),
      });
      expect(response.status).toBe(200);
      spent += ((await response.json()) as { deductedCredits: number }).deductedCredits;
    }
    await page.setViewportSize(PHONE);
    // The chart reads the usage log, which the ledger delivers to D1 within a second or so.
    await expect.poll(async () => {
      await page.goto(`${baseUrl()}/dashboard`);
      return Number(await page.locator(".chart svg").getAttribute("data-total"));
    }, { timeout: 20_000 }).toBeGreaterThan(60);
    const label = page.locator(".chart svg text").first();
    expect(await label.textContent()).toBe("100");
    const [labelBox, chartBox] = [await label.boundingBox(), await page.locator(".chart svg").boundingBox()];
    expect(labelBox!.x).toBeGreaterThanOrEqual(chartBox!.x);
    await screenshots(page, "overview-phone-chart");

    // Keyboard focus on a button: its ring against the white card behind it.
    await page.goto(`${baseUrl()}/dashboard/keys`);
    await page.getByLabel("Name").focus();
    await page.keyboard.press("Tab");
    const ring = await page.evaluate<{ tag: string; color: string; width: string }>(
      "(() => { const s = getComputedStyle(document.activeElement); return { tag: document.activeElement.tagName, color: s.outlineColor, width: s.outlineWidth }; })()",
    );
    expect(ring.tag).toBe("BUTTON");
    expect(ring.width).toBe("3px");
    expect(contrast(ring.color, "rgb(255, 255, 255)")).toBeGreaterThanOrEqual(3);

    for (const route of ["/dashboard/keys", "/dashboard", "/dashboard/usage", "/dashboard/playground/generate"]) {
      await page.goto(`${baseUrl()}${route}`);
      await page.evaluate(AXE);
      const result = await page.evaluate<{ passes: number; violations: Array<{ id: string; nodes: unknown[] }> }>(
        "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] } }).then((r) => ({ passes: r.passes.length, violations: r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target) })) }))",
      );
      expect(result.passes, `axe checked ${route}`).toBeGreaterThan(10);
      expect(result.violations, route).toEqual([]);
    }
  });
});

describe.skipIf(!CHROMIUM_FOUND)("without the page script", () => {
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium({ javaScriptEnabled: false });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("a double click on \"Create account\" (both forms sent) still signs in to one account", async () => {
    await signUpWithDoubleClick(page, `double-nojs-${crypto.randomUUID()}@example.com`);
  });

  it("the new key's page shows no Copy button that could not work", async () => {
    await page.goto(`${baseUrl()}/dashboard/keys`);
    await page.getByLabel("Name").fill("no script");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("new-key").waitFor();
    expect(await page.getByRole("button", { name: "Copy" }).count()).toBe(0);
    expect(await page.locator("[data-copy]").isHidden()).toBe(true);
  });

  it("a 40 MB upload is answered with a page naming the size and the limit, not JSON, and charges nothing", async () => {
    await page.goto(`${baseUrl()}/dashboard/playground/compress`);
    await page.locator("#pg-image-file").setInputFiles(HUGE);
    const answer = page.waitForResponse((response) => response.request().method() === "POST");
    await page.getByRole("button", { name: "Run compress" }).click();
    expect((await answer).status()).toBe(413);
    await page.getByRole("heading", { name: "The file is too large" }).waitFor();
    const text = await page.locator("main").innerText();
    expect(text).toContain("this one was 40 MB");
    expect(text).toContain("Files can be at most 20 MB. Nothing was run and nothing was charged");
    expect(text).not.toContain('"success"');
    await screenshots(page, "playground-upload-too-large-no-script");
    expect(await balance(page)).toBe(50);
  });

  it("a 4,100-character prompt keeps its usage row short on a phone", async () => {
    const prompt = "a kite with a very long tail over the sea, ".repeat(100).slice(0, 4_100);
    await page.goto(`${baseUrl()}/dashboard/playground/generate`);
    await page.getByRole("textbox", { name: /^Prompt/ }).fill(prompt);
    await page.getByRole("button", { name: "Run generate" }).click();
    await page.getByTestId("prompt-too-long").waitFor();
    await page.setViewportSize(PHONE);
    await page.goto(`${baseUrl()}/dashboard/usage`);
    const row = page.locator("tr[data-request-id]").first();
    expect(await row.locator("td.prompt").innerText()).toContain("All 4,100 characters");
    expect((await row.boundingBox())!.height).toBeLessThan(400);
    await screenshots(page, "usage-long-prompt");
  });
});
