import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/accounts/ledger";
import { accountIdOf, signUpIn, TestBrowser, visibleText } from "../dashboard/support";
import { call, newAccount, withKey } from "../support/fixtures";
import { byType, customerAction, deliverAll } from "./support";

// The dashboard's billing page: Checkout and the portal from signed-in forms, purchases listed,
// and the "Get credits" link wherever credits run short.

async function checkout(browser: TestBrowser, offer: string): Promise<Response> {
  return browser.submit("/dashboard/billing", "/dashboard/billing/checkout", { offer });
}

describe("the billing page", () => {
  it("sends a pack to Stripe Checkout and lists the purchase once the webhook granted it", async () => {
    const browser = new TestBrowser();
    const email = await signUpIn(browser);
    const accountId = await accountIdOf(email, env.DB);
    const response = await browser.get("/dashboard/billing");
    // The browser follows the form's redirect to Stripe only if the page's CSP names Stripe.
    expect(response.headers.get("Content-Security-Policy")).toContain("form-action 'self' https://stripe.upstream.test;");
    expect((await browser.get("/dashboard/keys")).headers.get("Content-Security-Policy")).toContain("form-action 'self';");
    const page = visibleText(await response.text());
    expect(page).toContain("Buy 500 credits");
    expect(page).toContain("Choose Pro");
    expect(page).toContain("No purchases yet.");
    const answer = await checkout(browser, "pack_2500");
    expect(answer.status).toBe(303);
    const session = new URL(answer.headers.get("Location")!);
    expect(session.pathname).toMatch(/^\/pay\/cs_test_/);
    await deliverAll(await customerAction(`checkout/${session.pathname.split("/").pop()}/pay`));
    const after = await browser.get("/dashboard/billing?checkout=done");
    const text = visibleText(await after.text());
    expect(text).toContain("Payment received");
    expect(text).toMatch(/pack_2500 \$20\.00 2500/);
    expect((await ledgerOf(env, accountId).snapshot()).balance).toBe(2550); // 50 free at sign-up
  });

  it("offers the customer portal once the account has a plan, and refuses what the table does not sell", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const unknown = await checkout(browser, "pack_free_money");
    expect(unknown.headers.get("Location")).toBe("/dashboard/billing?problem=offer");
    const noPlan = await browser.submit("/dashboard/billing", "/dashboard/billing/portal", {});
    expect(noPlan.headers.get("Location")).toBe("/dashboard/billing?problem=portal");
    const answer = await checkout(browser, "starter");
    const sessionId = new URL(answer.headers.get("Location")!).pathname.split("/").pop()!;
    const deliveries = await customerAction(`checkout/${sessionId}/pay`);
    await deliverAll(deliveries);
    const page = visibleText(await (await browser.get("/dashboard/billing")).text());
    expect(page).toContain("Manage or cancel the plan");
    expect(page).toContain("Starter");
    const portal = await browser.submit("/dashboard/billing", "/dashboard/billing/portal", {});
    expect(portal.status).toBe(303);
    expect(new URL(portal.headers.get("Location")!).pathname).toMatch(/^\/portal\/bps_/);
    expect(byType(deliveries, "invoice.paid")).toBeDefined();
  });

  it("has a Get credits link on the overview, and the API's refusal names the billing page", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    expect(await (await browser.get("/dashboard")).text()).toContain('href="/dashboard/billing" data-testid="get-credits"');
    const account = await newAccount({ credits: 0 });
    const refused = await call("/v1/generate", withKey(account.key, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ prompt: "a kite" }) }));
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: string; message: string }; getCreditsUrl?: string };
    expect(body.error.code).toBe("insufficient_credits");
    expect(body.getCreditsUrl).toBe("https://pixelgate.test/dashboard/billing");
    expect(body.error.message).toContain("Get credits at https://pixelgate.test/dashboard/billing");
  });
});
