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
import { checkedForm, field, render, signedIn, type DashboardContext, type SignedIn } from "./respond";
import { freeSignupCredits } from "./settings";
import { usageCsv } from "./usage-csv";
import { dailySpend, filtersOf, usageForExport, usagePage } from "./usage-query";

// The signed-in pages: overview, API keys, usage log (and its CSV).

async function keysPage(c: DashboardContext, who: SignedIn, extra: { created?: { key: ApiKeyRecord; secret: string }; notice?: string; problem?: string }, status: 200 | 400 | 404 = 200) {
  const [keys, playgroundKey] = await Promise.all([listApiKeys(c.env.DB, who.session.account.id), playgroundKeyId(c.env.DB, who.session.account.id)]);
  return render(c, <KeysPage viewer={who.viewer} keys={keys} playgroundKeyId={playgroundKey} baseUrl={publicBaseUrl(c)} {...extra} />, status);
}

export const accountPages = new Hono<AppEnv>()
  .get("/", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const id = who.session.account.id;
    const [{ balance }, spend, keys] = await Promise.all([ledgerOf(c.env, id).snapshot(), dailySpend(c.env.DB, id), listApiKeys(c.env.DB, id)]);
    const notice = c.req.query("welcome") !== undefined ? `Your account is ready, with ${freeSignupCredits(c.env)} free credits. Create an API key to start.` : undefined;
    const activeKeys = keys.filter((key) => !key.revokedAt).length;
    return render(c, <OverviewPage viewer={who.viewer} balance={balance} spend={spend} activeKeys={activeKeys} baseUrl={publicBaseUrl(c)} notice={notice} />);
  })
  .get("/keys", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    return keysPage(c, who, {});
  })
  .post("/keys", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    const name = field(body, "name").trim();
    if (name === "" || name.length > 100) return keysPage(c, who, { problem: "Give the key a name of 1 to 100 characters." }, 400);
    // The secret goes into this one response and nowhere else; the page is no-store.
    const created = await createApiKey(c.env.DB, who.session.account.id, name);
    return keysPage(c, who, { created });
  })
  .post("/keys/:id/revoke", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    const key = await findApiKey(c.env.DB, c.req.param("id"));
    // Someone else's key id answers exactly like an unknown one.
    if (!key || key.accountId !== who.session.account.id) return keysPage(c, who, { problem: "There is no such key on your account." }, 404);
    await revokeKey(c.env, key.id);
    return keysPage(c, who, { notice: `Key “${key.name}” (${key.prefix}…) is revoked. Requests with it now answer 401.` });
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
    const rows = await usageForExport(c.env.DB, who.session.account.id, filtersOf(c.req.query()));
    c.header("Content-Type", "text/csv; charset=utf-8");
    c.header("Content-Disposition", `attachment; filename="pixelgate-usage-${new Date().toISOString().slice(0, 10)}.csv"`);
    return c.body(usageCsv(rows));
  });
