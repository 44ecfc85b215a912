import { Hono } from "hono";
import { ledgerOf } from "../accounts/ledger";
import { revokeKey } from "../accounts/lifecycle";
import { createApiKey, findApiKey, listApiKeys, type ApiKeyRecord } from "../accounts/repository";
import type { AppEnv } from "../env";
import { publicBaseUrl } from "../http/envelope";
import { KeysPage } from "./pages/keys";
import { OverviewPage } from "./pages/overview";
import { UsagePage } from "./pages/usage";
import { playgroundKeyId } from "./playground-call";
import { holdForReveal, openReveal } from "./key-reveal";
import { checkedForm, field, render, signedIn, type DashboardContext, type SignedIn } from "./respond";
import { settingsOf } from "../config/settings";
import { usageCsv } from "./usage-csv";
import { usageDatabaseFor } from "../usage/database";
import { dailySpend, filtersOf, usageForExport, usagePage } from "./usage-query";

// The signed-in pages: overview, API keys, usage log (and its CSV). The key forms answer with a
// redirect (post/redirect/get); what the page after it shows travels in its address: a problem
// code, the revoked key's id, or the one-time token of a new key's secret (key-reveal.ts).

const KEY_PROBLEMS: Record<string, string> = {
  name: "Give the key a name of 1 to 100 characters.",
  "unknown-key": "There is no such key on your account.",
};

async function keysPage(c: DashboardContext, who: SignedIn, extra: { created?: { key: ApiKeyRecord; secret: string }; notice?: string; problem?: string }, status: 200 | 400 | 404 | 410 = 200) {
  const [keys, playgroundKey] = await Promise.all([listApiKeys(c.env.DB, who.session.account.id), playgroundKeyId(c.env.DB, who.session.account.id)]);
  return render(c, <KeysPage viewer={who.viewer} keys={keys} playgroundKeyId={playgroundKey} baseUrl={publicBaseUrl(c)} {...extra} />, status);
}

export const accountPages = new Hono<AppEnv>()
  .get("/", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const id = who.session.account.id;
    const [{ balance }, spend, keys] = await Promise.all([ledgerOf(c.env, id).snapshot(), dailySpend(usageDatabaseFor(c.env, id), id), listApiKeys(c.env.DB, id)]);
    const notice = c.req.query("welcome") !== undefined ? `Your account is ready, with ${settingsOf(c.env).freeSignupCredits} free credits. Create an API key to start.` : undefined;
    const activeKeys = keys.filter((key) => !key.revokedAt).length;
    return render(c, <OverviewPage viewer={who.viewer} balance={balance} spend={spend} activeKeys={activeKeys} baseUrl={publicBaseUrl(c)} notice={notice} />);
  })
  .get("/keys", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const problem = KEY_PROBLEMS[c.req.query("problem") ?? ""];
    const revokedId = c.req.query("revoked");
    const revoked = revokedId ? await findApiKey(c.env.DB, revokedId) : null;
    const notice = revoked && revoked.accountId === who.session.account.id && revoked.revokedAt
      ? `Key “${revoked.name}” (${revoked.prefix}…) is revoked. Requests with it now answer 401.`
      : undefined;
    return keysPage(c, who, { problem, notice }, problem ? 400 : 200);
  })
  .post("/keys", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    const name = field(body, "name").trim();
    if (name === "" || name.length > 100) return c.redirect("/dashboard/keys?problem=name", 303);
    const created = await createApiKey(c.env.DB, who.session.account.id, name);
    const token = await holdForReveal(c.env.DB, who.session, created.key, created.secret);
    return c.redirect(`/dashboard/keys/new/${token}`, 303);
  })
  .get("/keys/new/:token", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    // The secret is in this response only: the page is no-store, and the token is spent.
    const revealed = await openReveal(c.env.DB, who.session, c.req.param("token"));
    const key = revealed ? await findApiKey(c.env.DB, revealed.keyId) : null;
    if (!revealed || !key) {
      const problem = "This key was already shown once (or the link expired). The secret is not kept, so it cannot be shown again: if you did not copy it, revoke the key and create a new one.";
      return keysPage(c, who, { problem }, 410);
    }
    return keysPage(c, who, { created: { key, secret: revealed.secret } });
  })
  .post("/keys/:id/revoke", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    const key = await findApiKey(c.env.DB, c.req.param("id"));
    // Someone else's key id answers exactly like an unknown one.
    if (!key || key.accountId !== who.session.account.id) return c.redirect("/dashboard/keys?problem=unknown-key", 303);
    await revokeKey(c.env, key.id);
    return c.redirect(`/dashboard/keys?revoked=${encodeURIComponent(key.id)}`, 303);
  })
  .get("/usage", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const filters = filtersOf(c.req.query());
    const usage = await usagePage(c.env, who.session.account.id, filters, Number(c.req.query("page") ?? 1));
    return render(c, <UsagePage viewer={who.viewer} filters={filters} usage={usage} />);
  })
  .get("/usage.csv", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const rows = await usageForExport(usageDatabaseFor(c.env, who.session.account.id), who.session.account.id, filtersOf(c.req.query()));
    c.header("Content-Type", "text/csv; charset=utf-8");
    c.header("Content-Disposition", `attachment; filename="pixelgate-usage-${new Date().toISOString().slice(0, 10)}.csv"`);
    return c.body(usageCsv(rows));
  });
