// What one clause of an edit instruction asks for. Each edit has head words that name it
// ("blur", "sepia", "crop") and words it understands around them ("strong", "left", "square").
// A clause must name exactly one edit, and every other word in it must be one that edit or
// the shared filler list understands: "make the sky brighter" is refused because of "sky",
// since brightening the whole image is not what was asked.

import { PixelgateError } from "../../../errors.ts";
import type { EditOperation } from "../edit.ts";
import { supportedList, type Clause, type Token, type Unit } from "./grammar.ts";
import { EDITS, LIGHT, STRONG, type EditRecogniser } from "./recognisers.ts";

/** Words any clause may contain without changing its meaning. */
const FILLERS = new Set(
  ("please pls kindly can could would will you u i we id im want wanna need like love me my our make made " +
    "it its this that these those the a an image images photo photos picture pictures pic pics img whole " +
    "entire full to of in on for so is be look looks version thanks thank thx into just now overall apply " +
    "add give do at by s effect filter style convert change turn set should let lets get have hi hello ok okay").split(" "),
);

type NumberToken = Extract<Token, { kind: "number" }>;

/** A clause seen by one recogniser: its words, and helpers that read amounts or refuse. */
export class ClauseView {
  readonly clause: Clause;
  /** The edit's name, for messages. */
  readonly edit: string;
  readonly param: string;
  readonly words: Set<string>;
  constructor(clause: Clause, edit: string, param: string) {
    this.clause = clause;
    this.edit = edit;
    this.param = param;
    this.words = new Set(clause.tokens.flatMap((t) => (t.kind === "word" ? [t.word] : [])));
  }

  has(...words: string[]): boolean {
    return words.some((w) => this.words.has(w));
  }

  /** "light", "strong" or "normal", from words such as "slightly" or "heavy". */
  intensity(): "light" | "normal" | "strong" {
    if (this.has(...STRONG)) return "strong";
    return this.has(...LIGHT) ? "light" : "normal";
  }

  /** The clause's one number, if any, in one of `units`; refuses ratios and a second number. */
  amount(units: readonly Unit[], what: string): NumberToken | undefined {
    const numbers = this.clause.tokens.filter((t) => t.kind !== "word");
    if (!numbers.length) return undefined;
    const [first] = numbers;
    if (numbers.length > 1 || first!.kind !== "number" || !units.includes(first!.unit)) {
      this.fail(`"${numbers.map((t) => t.text).join(" ")}" is not ${what}.`);
    }
    return first as NumberToken;
  }

  /** Refuses any number or ratio, for edits that take no amount. */
  noAmount(): void {
    const extra = this.clause.tokens.find((t) => t.kind !== "word");
    if (extra) this.fail(`"${this.edit}" takes no amount, so "${extra.text}" cannot be applied.`);
  }

  fail(reason: string): never {
    throw new PixelgateError("invalid_parameter", `Cannot apply "${this.clause.text}": ${reason} ${supportedList()}`, {
      param: this.param,
    });
  }
}

/** The edit one clause asks for; null for a clause of courtesy alone ("thanks", "please"). */
export function recogniseClause(clause: Clause, param: string): EditOperation | null {
  const words = clause.tokens.flatMap((t) => (t.kind === "word" ? [t.word] : []));
  if (words.length === clause.tokens.length && words.every((w) => FILLERS.has(w))) return null;
  const naming = (pick: (r: EditRecogniser) => ReadonlySet<string> | undefined) =>
    EDITS.filter((r) => words.some((w) => pick(r)?.has(w)));
  let candidates = naming((r) => r.heads);
  if (!candidates.length) candidates = naming((r) => r.weakHeads);
  if (candidates.length !== 1) {
    const detail =
      candidates.length > 1
        ? `it names ${candidates.map((r) => r.name).join(" and ")} at once; give each edit its own phrase.`
        : "it names no edit the local editor knows.";
    throw new PixelgateError("invalid_parameter", `Cannot apply "${clause.text}": ${detail} ${supportedList()}`, { param });
  }
  const edit = candidates[0]!;
  const view = new ClauseView(clause, edit.name, param);
  const unknown = words.filter((w) => !FILLERS.has(w) && !edit.heads.has(w) && !edit.weakHeads?.has(w) && !edit.words.has(w));
  if (unknown.length) {
    view.fail(`the local editor cannot follow "${[...new Set(unknown)].join(" ")}" here (it recognised ${edit.name}, which works on the whole image).`);
  }
  return edit.build(view);
}
