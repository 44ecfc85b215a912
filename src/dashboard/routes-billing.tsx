import { Hono } from "hono";
import { ledgerOf } from "../accounts/ledger";
import type { AppEnv } from "../env";
import { publicBaseUrl } from "../http/envelope";
import { offerNamed } from "../payments/catalog";
import { checkoutUrl, portalUrl } from "../payments/checkout";
import { settingsOf } from "../config/settings";
import { BILLING_PATH, stripePageOrigins } from "../payments/links";
import { dashboardCsp } from "./headers";
import { BillingPage } from "./pages/billing";
import { checkedForm, field, render, signedIn, type DashboardContext } from "./respond";

// The billing page and its two forms, which send the browser to Stripe (Checkout, the customer
// portal) and back here. What is granted is decided by the webhook alone (src/payments/webhook.ts).

const NOTICES: Record<string, string> = {
  done: "Payment received. The credits are added as soon as Stripe confirms it, usually within seconds: reload this page to see them.",
  cancelled: "Checkout was cancelled; nothing was charged.",
};
const PROBLEMS: Record<string, string> = {
  offer: "That is not something this service sells.",
  stripe: "Stripe could not be reached just now; nothing was charged. Try again in a moment.",
  portal: "There is no plan bought through Stripe to manage yet.",
};

function billingUrl(c: DashboardContext): string {
  return publicBaseUrl(c) + BILLING_PATH;
}

/** Stripe's answer as a redirect; a Stripe failure as the page's problem, never a 500. */
async function toStripe(c: DashboardContext, destination: () => Promise<string>, problem: string): Promise<Response> {
  try {
    return c.redirect(await destination(), 303);
  } catch (error) {
    console.error(`[${c.get("requestId")}] billing: Stripe refused or failed`, error);
    return c.redirect(`${BILLING_PATH}?problem=${problem}`, 303);
  }
}

export const billingPages = new Hono<AppEnv>()
  .get("/billing", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const settings = settingsOf(c.env);
    const ledger = ledgerOf(c.env, who.session.account.id);
    const [{ balance }, billing] = await Promise.all([ledger.snapshot(), settings.stripe ? ledger.billing(50) : null]);
    const view = {
      balance,
      stripe: billing,
      getCreditsUrl: settings.getCreditsUrl,
      notice: NOTICES[c.req.query("checkout") ?? ""],
      problem: PROBLEMS[c.req.query("problem") ?? ""],
    };
    if (settings.stripe) c.header("Content-Security-Policy", dashboardCsp(stripePageOrigins(settings.stripe)));
    return render(c, <BillingPage viewer={who.viewer} view={view} />, view.problem ? 400 : 200);
  })
  .post("/billing/checkout", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    const offer = offerNamed(field(body, "offer"));
    if (!offer || !settingsOf(c.env).stripe) return c.redirect(`${BILLING_PATH}?problem=offer`, 303);
    return toStripe(c, () => checkoutUrl(c.env, who.session.account, offer, billingUrl(c)), "stripe");
  })
  .post("/billing/portal", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    if (!settingsOf(c.env).stripe) return c.redirect(`${BILLING_PATH}?problem=portal`, 303);
    return toStripe(c, () => portalUrl(c.env, who.session.account, billingUrl(c)), "portal");
  });
