import type { CommandContext } from "../command.ts";
import { artefactOf, saveArtefact } from "../results.ts";
import { withProgress } from "../progress.ts";
import { printJson, toolSummary } from "../summary.ts";

// The part every image command shares: one POST, then save (-o), then JSON or a summary.

/** Drops the options the user did not give, so the service applies its own defaults. */
export function definedFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0)));
}

export async function runTool(ctx: CommandContext, label: string, path: string, body: Record<string, unknown>): Promise<number> {
  const envelope = await withProgress(label, () => ctx.client().tool(path, definedFields(body), { idempotencyKey: ctx.idempotencyKey }));
  const artefact = artefactOf(envelope.result);
  let saved: string | undefined;
  if (ctx.output !== undefined) {
    if (!artefact) throw new Error("The result holds no file to save.");
    saved = await withProgress("Saving", () => saveArtefact(artefact, ctx.output!));
  }
  if (ctx.json) return printJson(envelope);
  ctx.say(toolSummary(envelope, artefact, saved));
  if (ctx.client().lastReplayed) ctx.say("Replayed the first answer to this Idempotency-Key: nothing was charged this time.");
  return 0;
}
