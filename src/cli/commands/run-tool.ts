import type { ToolEnvelope } from "../client.ts";
import type { CommandContext } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { checkBodyFields } from "../facts.ts";
import { artefactOf, saveArtefact, type Artefact } from "../results.ts";
import { withProgress } from "../progress.ts";
import { printJson, toolSummary } from "../summary.ts";

// The part every image command shares: one POST, then save (-o, or without it an inline result
// into the current folder), then JSON or a summary. A paid result is never lost: when saving
// fails, it is printed (the hosted URL, or the inline data) and the exit code says it was not saved.

/** Drops the options the user did not give, so the service applies its own defaults. */
export function definedFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0)));
}

/** Where the result was to go, in words. */
function placeOf(ctx: CommandContext): string {
  const target = ctx.saveTarget;
  if (target?.kind === "dir") return target.generated ? `the current folder (${target.dir})` : target.dir;
  return ctx.output ?? "disk";
}

/** The result printed where it could not be saved: stdout gets what is needed to fetch or keep it. */
function notSaved(ctx: CommandContext, envelope: ToolEnvelope, artefact: Artefact | undefined, error: unknown): number {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(`pixelgate: the call succeeded and was charged, but the result could not be saved to ${placeOf(ctx)} (${reason}).\n`);
  if (ctx.json) printJson(envelope);
  else if (artefact?.kind === "url") process.stdout.write(`URL: ${artefact.url}\n`);
  else if (artefact?.kind === "data") process.stdout.write(`${artefact.dataUri}\n`);
  else if (artefact?.kind === "svg") process.stdout.write(`${artefact.svg}\n`);
  else printJson(envelope);
  return EXIT.notSaved;
}

export async function runTool(ctx: CommandContext, label: string, path: string, body: Record<string, unknown>): Promise<number> {
  const fields = definedFields(body);
  checkBodyFields(path, fields);
  const envelope = await withProgress(label, () => ctx.client().tool(path, fields, { idempotencyKey: ctx.idempotencyKey }));
  const artefact = artefactOf(envelope.result);
  let saved: string | undefined;
  // Without -o only an inline result has a target (saveTargetOf): a hosted one stays a URL.
  const target = ctx.saveTarget;
  if (target !== undefined && (ctx.output !== undefined || artefact?.kind !== "url")) {
    try {
      if (!artefact) throw new Error("the result holds no file");
      saved = await withProgress("Saving", () => saveArtefact(artefact, target, ctx.command));
    } catch (error) {
      return notSaved(ctx, envelope, artefact, error);
    }
  }
  if (ctx.json) return printJson(envelope);
  ctx.say(toolSummary(envelope, artefact, saved, ctx.client().lastReplayed));
  return 0;
}
