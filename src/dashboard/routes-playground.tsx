import { Hono } from "hono";
import { ledgerOf } from "../accounts/ledger";
import type { AppEnv } from "../env";
import { DEFAULT_MODEL_COST, listLiveModels } from "../models/catalog";
import { PlaygroundPage, type ModelChoices } from "./pages/playground";
import { MessagePage } from "./pages/sign-in";
import { inputOfForm, runPlayground } from "./playground-call";
import { PLAYGROUND_TOOLS, playgroundTool, type PlaygroundTool } from "./playground-tools";
import { checkedForm, render, signedIn, type DashboardContext } from "./respond";
import { PixelgateError } from "../errors";

// The playground pages: GET shows a tool's form, POST runs it and shows the outcome.

/** The live models for the tool's model field, with their prices. */
async function modelChoices(c: DashboardContext, entry: PlaygroundTool): Promise<ModelChoices> {
  const task = entry.fields.find((field) => field.kind === "model")?.task;
  if (!task) return {};
  const models = await listLiveModels(c.env, task);
  return { [task]: models.map((model) => ({ modelId: model.modelId, label: `${model.name} (${model.costPerReq ?? DEFAULT_MODEL_COST} credits)` })) };
}

function unknownTool(c: DashboardContext) {
  return render(c, <MessagePage title="No such tool" message="The playground has no tool by that name." link={["/dashboard/playground", "Back to the playground"]} />, 404);
}

export const playgroundPages = new Hono<AppEnv>()
  .get("/playground", (c) => c.redirect(`/dashboard/playground/${PLAYGROUND_TOOLS[0]!.slug}`, 303))
  .get("/playground/:tool", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const entry = playgroundTool(c.req.param("tool"));
    if (!entry) return unknownTool(c);
    const [{ balance }, models] = await Promise.all([ledgerOf(c.env, who.session.account.id).snapshot(), modelChoices(c, entry)]);
    return render(c, <PlaygroundPage viewer={who.viewer} entry={entry} models={models} balance={balance} />);
  })
  .post("/playground/:tool", async (c) => {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    const body = await checkedForm(c, who.session);
    if (body instanceof Response) return body;
    const entry = playgroundTool(c.req.param("tool"));
    if (!entry) return unknownTool(c);
    let outcome;
    let input: Record<string, unknown> = {};
    try {
      input = await inputOfForm(entry, body);
      outcome = await runPlayground(c, who.session.account, entry, input);
    } catch (error) {
      if (!(error instanceof PixelgateError)) throw error;
      outcome = { ok: false as const, error };
    }
    const [{ balance }, models] = await Promise.all([ledgerOf(c.env, who.session.account.id).snapshot(), modelChoices(c, entry)]);
    const values = { ...input, sample: body[`imageSample`] === "on" || !entry.fields.some((f) => f.kind === "image") };
    const page = (
      <PlaygroundPage viewer={who.viewer} entry={entry} models={models} balance={balance} values={values}
        output={outcome.ok ? outcome.output : undefined} error={outcome.ok ? undefined : outcome.error} />
    );
    return render(c, page, outcome.ok ? 200 : 400);
  });
