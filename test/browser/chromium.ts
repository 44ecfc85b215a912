// Debian's Chromium (apt, installed by .ci/run), driven by playwright-core: never a browser
// downloaded by Playwright. Each run gets a fresh profile directory, removed afterwards.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Without the browser, the browser tests are skipped with a note, so `npm test` on a fresh machine
 * still runs everything else. REQUIRE_CHROMIUM=1 (for CI) makes a missing browser a failure.
 */
export const CHROMIUM_FOUND = existsSync(CHROMIUM);
if (!CHROMIUM_FOUND) {
  const note = `No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`;
  if (process.env.REQUIRE_CHROMIUM === "1") throw new Error(note);
  console.warn(`SKIPPING the browser tests. ${note}`);
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh browser; `javaScriptEnabled: false` is a person whose browser runs no script. */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}): Promise<LaunchedBrowser> {
  // Playwright takes the profile directory as an argument (it refuses --user-data-dir in args).
  const profile = mkdtempSync(path.join(os.tmpdir(), "pixelgate-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: DESKTOP,
    timeout: 60_000,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go for review (gitignored). */
export const SCREENSHOTS = path.resolve(import.meta.dirname, "../../test-output/dashboard");

/** Phone and desktop screenshots of the current page, and no sideways scrolling on the phone. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const [label, size] of [["phone", PHONE], ["desktop", DESKTOP]] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
    if (label === "phone") {
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
      expect(overflow, `${name} fits a phone's width`).toBeLessThanOrEqual(0);
    }
  }
}
