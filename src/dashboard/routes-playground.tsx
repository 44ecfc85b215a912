import { Hono } from "hono";
import { ledgerOf } from "../accounts/ledger";
import type { AppEnv } from "../env";
import { PixelgateError } from "../errors";
import { DEFAULT_MODEL_COST, listLiveModels } from "../models/catalog";
import { PlaygroundPage, type ModelChoices } from "./pages/playground";
import { MessagePage } from "./pages/sign-in";
import { checkUploadSize, dataUriOf, inputOfForm, runPlayground, type PictureSources, type PlaygroundOutcome } from "./playground-call";
import { resultDownload } from "./playground-download";
import { claimRun, findRun, findUpload, finishRun, keepUpload, newRunToken, RUN_TOKEN, runResult, type KeptUpload } from "./playground-runs";
import { PLAYGROUND_TOOLS, playgroundTool, type PlaygroundTool } from "./playground-tools";
import { checkedForm, field, render, signedIn, type DashboardContext, type FormBody, type SignedIn } from "./respond";

// The playground pages. A tool's address redirects to a form whose own address carries a fresh
// run token (/playground/{tool}/form/{token}); POST claims the token, runs the tool once and
// redirects to the run's page (post/redirect/get), which reload and Back only show again. Because
// the form's address holds its token, going Back to a form that was used shows it as used, with
// a link to its run and an explicit "run again" (a new token), never a silent second charge; and
// a resubmitted form (same token) is sent to its run without running.

/** The live models for the tool's model field, with their prices. */
async function modelChoices(c: DashboardContext, entry: PlaygroundTool): Promise<ModelChoices> {
  const task = entry.fields.find((field) => field.kind === "model")?.task;
  if (!task) return {};
  const models = await listLiveModels(c.env, task);
  return { [task]: models.map((model) => ({ modelId: model.modelId, label: `${model.name} (${model.costPerReq ?? DEFAULT_MODEL_COST} credits)` })) };
}

function notFound(c: DashboardContext, title: string, message: string) {
  return render(c, <MessagePage title={title} message={message} link={["/dashboard/playground", "Back to the playground"]} />, 404);
}

const runPath = (slug: string, token: string) => `/dashboard/playground/${slug}/runs/${token}`;
const formPath = (slug: string, token: string) => `/dashboard/playground/${slug}/form/${token}`;

/** The form's text as typed (never a file), to refill the form on the run's page. */
function typedValues(entry: PlaygroundTool, body: FormBody): Record<string, string> {
  const names = entry.fields.flatMap((f) => (f.kind === "image" ? [`${f.name}Url`, `${f.name}Sample`] : [f.name]));
  return Object.fromEntries(names.flatMap((name) => (typeof body[name] === "string" && body[name] !== "" ? [[name, body[name] as string]] : [])));
}

type PageExtra = Omit<Parameters<typeof PlaygroundPage>[0], "viewer" | "entry" | "models" | "balance" | "runToken">;

async function formPage(c: DashboardContext, who: SignedIn, entry: PlaygroundTool, extra: PageExtra = {}, runToken = newRunToken()) {
  const [{ balance }, models] = await Promise.all([ledgerOf(c.env, who.session.account.id).snapshot(), modelChoices(c, entry)]);
  return render(c, <PlaygroundPage viewer={who.viewer} entry={entry} models={models} balance={balance} runToken={runToken} {...extra} />);
}

export const playgroundPages = new Hono<AppEnv>()
  .get("/playground", (c) => c.redirect(formPath(PLAYGROUND_TOOLS[0]!.slug, newRunToken()), 303))
  .get("/playground/:tool", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const entry = playgroundTool(c.req.param("tool"));
    if (!entry) return notFound(c, "No such tool", "The playground has no tool by that name.");
    return c.redirect(formPath(entry.slug, newRunToken()), 303);
  })
  .get("/playground/:tool/form/:token", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const entry = playgroundTool(c.req.param("tool"));
    if (!entry) return notFound(c, "No such tool", "The playground has no tool by that name.");
    const token = c.req.param("token");
    if (!RUN_TOKEN.test(token)) return c.redirect(formPath(entry.slug, newRunToken()), 303);
    const used = await findRun(c.env.DB, who.session.account.id, token);
    if (!used) return formPage(c, who, entry, {}, token);
    // This form was sent already (the person came Back to it): say so; its button runs anew.
    const sameTool = used.tool === entry.slug;
    return formPage(c, who, entry, { used: { href: runPath(used.tool, used.token) }, ...(sameTool ? { values: used.form, upload: used.upload } : {}) });
  })
  .post("/playground/:tool", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    const entry = playgroundTool(c.req.param("tool"));
    if (!entry) return notFound(c, "No such tool", "The playground has no tool by that name.");
    const account = who.session.account;
    // A form from before run tokens, or a hand-made post, still runs once, just without the guard.
    const token = RUN_TOKEN.test(field(body, "run")) ? field(body, "run") : newRunToken();
    if (!(await claimRun(c.env, account.id, token, entry.slug, typedValues(entry, body)))) {
      const earlier = await findRun(c.env.DB, account.id, token);
      return c.redirect(runPath(earlier?.tool ?? entry.slug, token), 303);
    }
    let upload: KeptUpload | null = null;
    const pictures: PictureSources = {
      async fresh(name, file) {
        checkUploadSize(name, file.size);
        upload = await keepUpload(c.env.FILES, account.id, token, file);
        return dataUriOf(new Uint8Array(await file.arrayBuffer()), file.type);
      },
      async kept(name, reference) {
        const found = await findUpload(c.env.FILES, account.id, reference);
        if (!found) throw new PixelgateError("invalid_parameter", "The file of the last run is no longer kept; choose it again.", { param: name });
        upload = found.upload;
        return dataUriOf(found.bytes, found.type);
      },
    };
    let outcome: PlaygroundOutcome;
    try {
      outcome = await runPlayground(c, account, entry, await inputOfForm(entry, body, pictures));
    } catch (error) {
      // Recorded before answering, so the run's page says it failed rather than "still running".
      const recorded = error instanceof PixelgateError ? error : new PixelgateError("internal_error", "Something failed on our side. Try again in a moment.");
      await finishRun(c.env, account.id, token, upload, { ok: false, error: recorded });
      if (!(error instanceof PixelgateError)) throw error;
      return c.redirect(runPath(entry.slug, token), 303);
    }
    await finishRun(c.env, account.id, token, upload, outcome);
    return c.redirect(runPath(entry.slug, token), 303);
  })
  .get("/playground/:tool/runs/:token", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const entry = playgroundTool(c.req.param("tool"));
    const run = entry ? await findRun(c.env.DB, who.session.account.id, c.req.param("token")) : null;
    if (!entry || !run || run.tool !== entry.slug) return notFound(c, "No such run", "There is no such playground run on your account (runs are kept for 7 days).");
    const output = run.state === "done" ? await runResult(c.env.FILES, who.session.account.id, run.token) : null;
    return formPage(c, who, entry, { run, values: run.form, upload: run.upload, output: output ?? undefined, error: run.error ?? undefined });
  })
  .get("/playground/:tool/runs/:token/download", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const output = RUN_TOKEN.test(c.req.param("token")) ? await runResult(c.env.FILES, who.session.account.id, c.req.param("token")) : null;
    const download = output ? await resultDownload(c.env.FILES, output.result) : null;
    if (!download) return notFound(c, "Nothing to download", "This run has no result file (it failed, or it is older than 7 days).");
    const name = `pixelgate-${c.req.param("tool")}-${c.req.param("token").slice(0, 8)}.${download.extension}`;
    return c.body(download.bytes, 200, { "Content-Type": download.mime, "Content-Disposition": `attachment; filename="${name}"` });
  });
