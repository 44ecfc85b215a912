// The two stages of the safety screen on one labelled set: the word list alone, then the word
// list followed by a moderation classifier that sees only what the word list passed (as
// src/safety/moderation.ts runs it). The classifier here is the FAKE one from
// test/safety/fake-classifier.ts (a paraphrase lexicon, not a model), so the second stage's
// numbers show the plumbing, not what Llama Guard or another real model would catch.
import { screenText, type SafetyCategory } from "../../src/safety/index.ts";
import type { LabelledPrompt } from "../../test/safety/labelled-prompts.ts";

type Classifier = (text: string) => SafetyCategory | null;

interface StageCounts {
  harmful: number;
  innocent: number;
  caught: number;
  rightCategory: number;
  falseRefusals: number;
}

function count(prompts: LabelledPrompt[], verdictOf: (text: string) => SafetyCategory | null): StageCounts {
  const counts: StageCounts = { harmful: 0, innocent: 0, caught: 0, rightCategory: 0, falseRefusals: 0 };
  for (const prompt of prompts) {
    const verdict = verdictOf(prompt.text);
    if (prompt.label === "none") {
      counts.innocent += 1;
      if (verdict) counts.falseRefusals += 1;
      continue;
    }
    counts.harmful += 1;
    if (verdict) counts.caught += 1;
    if (verdict === prompt.label) counts.rightCategory += 1;
  }
  return counts;
}

const percent = (part: number, whole: number): string => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;

export function reportTwoStages(title: string, prompts: LabelledPrompt[], classifier: Classifier, classifierName: string): void {
  const wordList = count(prompts, (text) => screenText(text)?.category ?? null);
  const both = count(prompts, (text) => screenText(text)?.category ?? classifier(text));
  const secondOnly = prompts.filter((prompt) => !screenText(prompt.text) && classifier(prompt.text) !== null);
  console.log(`\n${title}: both stages (second stage: ${classifierName})`);
  console.log("stage                          harmful refused   right category   innocent refused");
  const row = (name: string, c: StageCounts) =>
    console.log(`${name.padEnd(30)} ${`${c.caught}/${c.harmful} ${percent(c.caught, c.harmful)}`.padStart(15)}   ${`${c.rightCategory}/${c.harmful}`.padStart(14)}   ${`${c.falseRefusals}/${c.innocent} ${percent(c.falseRefusals, c.innocent)}`.padStart(16)}`);
  row("word list alone", wordList);
  row("word list, then the classifier", both);
  console.log(`the classifier saw ${prompts.filter((prompt) => !screenText(prompt.text)).length} of ${prompts.length} prompts (what the word list passed) and refused ${secondOnly.length} of them:`);
  for (const prompt of secondOnly) console.log(`  [${prompt.label} -> ${classifier(prompt.text)}] ${prompt.text}`);
}
