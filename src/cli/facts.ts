import type { FieldFacts, PathFacts } from "./openapi-facts.ts";
import { TOOL_FACTS } from "./tool-facts.ts";

// The commands' access to the tool facts (tool-facts.ts, generated from /v1/openapi.json): help
// texts, option choices and limits are built from them instead of being written out again.

export function factsOf(path: string): PathFacts {
  const facts = TOOL_FACTS[path];
  if (!facts) throw new Error(`the service describes no ${path} (run npm run cli:facts)`);
  return facts;
}

export function fieldOf(path: string, field: string): FieldFacts {
  const facts = factsOf(path).fields[field];
  if (!facts) throw new Error(`${path} takes no ${field} (run npm run cli:facts)`);
  return facts;
}

/** A command summary with the path's price: "Compress an image (1 credit)." */
export function priced(text: string, path: string): string {
  return `${text} (${factsOf(path).price}).`;
}

export function choicesOf(path: string, field: string): string[] {
  const choices = fieldOf(path, field).enum;
  if (!choices) throw new Error(`${path} ${field} is not a choice (run npm run cli:facts)`);
  return choices;
}

/** "webp (default), jpeg or png": the choices in words, the default marked. */
export function describeChoices(path: string, field: string, omit: string[] = []): string {
  const fallback = fieldOf(path, field).default;
  const words = choicesOf(path, field).filter((choice) => !omit.includes(choice)).map((choice) => (choice === fallback ? `${choice} (default)` : choice));
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words.at(-1)}` : (words[0] ?? "");
}

/** Refuses, as a bug, a body field the path does not take: the CLI must not drift from the API. */
export function checkBodyFields(path: string, body: Record<string, unknown>): void {
  const known = factsOf(path).fields;
  const unknown = Object.keys(body).filter((name) => !(name in known));
  if (unknown.length > 0) throw new Error(`pixelgate sends ${unknown.join(", ")} to ${path}, which the service does not take; update the CLI.`);
}
