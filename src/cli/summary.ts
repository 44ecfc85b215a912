import type { ToolEnvelope } from "./client.ts";
import type { Artefact } from "./results.ts";

// What a person reads after a command: what was done, what it cost, what is left, where the
// result is. Scripts use --json instead, so this wording is free to change.

/** Prints the raw response for --json and returns the success exit code. */
export function printJson(body: unknown): 0 {
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** Facts the message leaves out: the saving for compress, the size for convert, model and seed. */
function details(result: Record<string, unknown>): string | undefined {
  if (typeof result.savedPercentage === "string") return `${result.savedPercentage} saved.`;
  if (typeof result.targetFormat === "string" && typeof result.width === "number") return `${result.width}x${result.height}, ${result.originalSize} -> ${result.convertedSize}.`;
  if (typeof result.model === "string" && typeof result.seed === "number") return `Model ${result.model}, seed ${result.seed}, ${result.latency}.`;
  return undefined;
}

/** What a replayed answer (Idempotency-Key) adds to the summary. */
export const REPLAY_NOTE = "Replayed the first answer to this Idempotency-Key: nothing was charged this time.";

export function whereIs(artefact: Artefact | undefined, saved: string | undefined): string {
  if (saved) return `Saved: ${saved}`;
  if (!artefact) return "No file in the result.";
  if (artefact.kind === "url") return `URL: ${artefact.url}`;
  const size = artefact.kind === "svg" ? artefact.svg.length : Math.floor((artefact.dataUri.length * 3) / 4);
  return `Inline result (${kilobytes(size)}): save it with -o FILE, or see it with --json.`;
}

/** The credits line: what this call took, or for a replay that it took nothing. */
export function creditsSummary(envelope: { deductedCredits: number; userCredits: number }, replayed: boolean): string {
  if (replayed) return `Credits: nothing charged this time (a replay of the first answer; the balance was ${envelope.userCredits} after it).`;
  return `Credits: ${envelope.deductedCredits} spent, ${envelope.userCredits} left.`;
}

export function toolSummary(envelope: ToolEnvelope, artefact: Artefact | undefined, saved: string | undefined, replayed: boolean): string {
  const lines = [envelope.message];
  const extra = details(envelope.result);
  if (extra) lines.push(extra);
  lines.push(creditsSummary(envelope, replayed));
  lines.push(whereIs(artefact, saved));
  if (replayed) lines.push(REPLAY_NOTE);
  return lines.join("\n");
}
