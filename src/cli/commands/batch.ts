import { readFile } from "node:fs/promises";
import type { BatchEnvelope, BatchItem, ToolEnvelope } from "../client.ts";
import type { CommandSpec } from "../command.ts";
import { EXIT, UsageError } from "../exit-codes.ts";
import { inlineLocalImages, readStdin } from "../image-input.ts";
import { withProgress } from "../progress.ts";
import { artefactOf, saveArtefactInto, stemFor } from "../results.ts";
import { creditsSummary, printJson, whereIs } from "../summary.ts";

// `pixelgate batch FILE.json`: the POST /v1/batch body from a file or stdin, run in one request.
// Image fields that name local files are sent as data URIs, like the single commands do.

interface BatchBody {
  requests: { tool: string; args?: Record<string, unknown> }[];
}

async function readBatchBody(source: string): Promise<BatchBody> {
  let text: string;
  try {
    text = source === "-" ? (await readStdin()).toString("utf8") : await readFile(source, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not JSON: ${(error as Error).message}`);
  }
  const requests = (body as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests)) throw new UsageError(`${source} must hold {"requests": [{"tool": "...", "args": {...}}, ...]}.`);
  return body as BatchBody;
}

/** Where an item's result went: the file, or why it could not be written. */
type SaveOutcome = { file: string } | { problem: string } | undefined;

function itemLine(item: BatchItem, index: number, outcome: SaveOutcome): string {
  const head = `${String(index + 1).padStart(2)}. ${item.tool}`;
  if (!item.success) {
    const failure = item.data as { message?: string; error?: { code?: string } };
    return `${head}: failed ${item.status}${failure.error?.code ? ` [${failure.error.code}]` : ""} ${failure.message ?? ""}`.trimEnd();
  }
  const data = item.data as ToolEnvelope;
  const saved = outcome && "file" in outcome ? outcome.file : undefined;
  const problem = outcome && "problem" in outcome ? ` (not saved: ${outcome.problem})` : "";
  return `${head}: ${data.message} (${data.deductedCredits} credit${data.deductedCredits === 1 ? "" : "s"}) ${whereIs(artefactOf(data.result), saved)}${problem}`;
}

/**
 * Saves each success into `dir` (-o DIR: as NN-tool.ext), or without -o only the inline ones
 * into the current folder under generated names; a failed save is reported on its line (with
 * the URL, or the inline data printed), never thrown away.
 */
async function saveItems(envelope: BatchEnvelope, dir: string, inlineOnly: boolean): Promise<SaveOutcome[]> {
  return Promise.all(
    envelope.results.map(async (item, index): Promise<SaveOutcome> => {
      const artefact = item.success ? artefactOf((item.data as ToolEnvelope).result) : undefined;
      if (!artefact || (inlineOnly && artefact.kind === "url")) return undefined;
      const name = `${String(index + 1).padStart(2, "0")}-${item.tool}`;
      try {
        return { file: await saveArtefactInto(artefact, dir, inlineOnly ? stemFor(artefact, name) : name) };
      } catch (error) {
        return { problem: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

export const batch: CommandSpec = {
  name: "batch",
  summary: "Run up to 20 tool calls in one request, in parallel (sum of the items' costs).",
  usage: "pixelgate batch FILE.json|- [-o DIR] [options]",
  details: [
    'FILE.json holds the POST /v1/batch body: {"requests": [{"tool": "generate_image", "args": {...}}, ...]};',
    "tools: generate_image, generate_transparent_image, edit_image, remove_background, upscale_image,",
    "text_to_svg, compress_image, convert_format. - reads the body from stdin. Image fields (image,",
    "imageBase64, referenceImages) may name local files. Exit code 1 when some items failed;",
    "retry only those. -o DIR is created before the call; a result that cannot be written there",
    "is listed with its URL (exit code 8). Without -o, inline results (compress, svg) are saved into",
    "the current folder under generated names.",
  ].join("\n"),
  positionals: ["FILE"],
  options: {},
  output: "dir",
  billed: true,
  examples: [
    "pixelgate batch jobs.json -o results/",
    `echo '{"requests":[{"tool":"text_to_svg","args":{"prompt":"a kite"}}]}' | pixelgate batch - --json`,
  ],
  async run(ctx) {
    const body = await readBatchBody(ctx.args.FILE!);
    const requests = await Promise.all(
      body.requests.map(async (item, index) => (item && typeof item.args === "object" && item.args !== null ? { ...item, args: await inlineLocalImages(item.args, `requests.${index}.args.`) } : item)),
    );
    const envelope = await withProgress(`Running ${requests.length} items`, () =>
      ctx.client().batch({ ...body, requests }, { idempotencyKey: ctx.idempotencyKey }),
    );
    // Without -o, inline results (compress, SVG: no hosted copy) are kept in the current folder;
    // --json prints them whole instead.
    const dir = ctx.output ?? (ctx.json ? undefined : process.cwd());
    const saved = dir === undefined ? [] : await withProgress("Saving", () => saveItems(envelope, dir, ctx.output === undefined));
    const failed = envelope.results.filter((item) => !item.success).length;
    const unsaved = saved.filter((outcome) => outcome !== undefined && "problem" in outcome).length;
    if (ctx.json) printJson(envelope);
    else {
      ctx.say(envelope.message);
      envelope.results.forEach((item, index) => ctx.say(itemLine(item, index, saved[index])));
      ctx.say(`${creditsSummary(envelope, ctx.client().lastReplayed)} ${envelope.totalLatency} in all.`);
      saved.forEach((outcome, index) => {
        const artefact = outcome && "problem" in outcome ? artefactOf((envelope.results[index]!.data as ToolEnvelope).result) : undefined;
        if (artefact && artefact.kind !== "url") ctx.say(`${String(index + 1).padStart(2)}. not saved, here it is: ${artefact.kind === "svg" ? artefact.svg : artefact.dataUri}`);
      });
    }
    if (unsaved > 0) process.stderr.write(`pixelgate: ${unsaved} result(s) could not be saved into ${dir}; their URLs (or inline data) are printed above (or in --json).\n`);
    return failed > 0 ? EXIT.failed : unsaved > 0 ? EXIT.notSaved : EXIT.ok;
  },
};
