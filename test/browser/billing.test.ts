// Buying credits in a real browser (Debian's Chromium) against the local server of the shared
// global setup, whose payments go to the fake Stripe (test/stripe): a new user opens Billing,
// buys a pack, pays on the fake hosted Checkout page, comes back to the billing page, and sees
// the credits and the purchase, granted by the webhook the fake delivered with its signature.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_FOUND, launchChromium, screenshots, type LaunchedBrowser } from "./chromium.ts";

const baseUrl = (): string => inject("pixelgateUrl");
const fakeStripeUrl = (): string => inject("fakeStripeUrl");

let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM_FOUND) return;
  browser = await launchChromium();
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM_FOUND)("buying credits in Chromium", () => {
  it("goes from the dashboard through the fake Checkout and back, and the credits are there once", async () => {
    await page.goto(`${baseUrl()}/dashboard/sign-up`);
    await page.getByLabel("Name").fill("Billing Tester");
    await page.getByLabel("Email").fill(`billing-${crypto.randomUUID()}@example.com`);
    await page.getByLabel("Password").fill("a long billing password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/dashboard\?welcome$/);
    expect(await page.getByTestId("balance").textContent()).toBe("50");

    await page.getByTestId("get-credits").click();
    await page.waitForURL(/\/dashboard\/billing$/);
    expect(await page.getByRole("link", { name: "Billing" }).getAttribute("aria-current")).toBe("page");
    await screenshots(page, "billing");
    await page.getByRole("button", { name: "Buy 500 credits" }).click();

    // Stripe's side: the fake hosted Checkout page.
    await page.waitForURL((url) => url.href.startsWith(`${fakeStripeUrl()}/pay/`));
    expect(await page.locator("#summary").textContent()).toContain("price_pixelgate_pack_500: 5.00 USD");
    await page.getByRole("button", { name: "Pay" }).click();

    // Back on the billing page, with the webhook already delivered and applied.
    await page.waitForURL(/\/dashboard\/billing\?checkout=done$/);
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Payment received");
    expect(await page.getByTestId("billing-balance").textContent()).toBe("550");
    expect(await page.getByTestId("purchases").textContent()).toMatch(/pack_500\s*\$5\.00\s*500/);
    await screenshots(page, "billing-paid");

    // Reloading the return page grants nothing more; the usage log shows the grant once.
    await page.reload();
    expect(await page.getByTestId("billing-balance").textContent()).toBe("550");
    await page.goto(`${baseUrl()}/dashboard/usage?source=stripe`);
    expect(await page.locator("tbody tr").count()).toBe(1);
  });
});
