// `npm run eval:safety`: scores the prompt screen (src/safety) against the labelled prompts in
// test/safety/labelled-prompts.ts (the tuning set, where the goal applies: precision and recall
// of at least 0.95 in every category) and test/safety/held-out-prompts.ts (written after tuning
// and never tuned against; printed for information), then both stages of the screen on the
// held-out set with a FAKE second-stage classifier (scripts/safety/two-stages.ts says what that
// number means and does not). Then times the screen on 4,000-character prompts. Exits non-zero when a category of the labelled set misses the goal.
import os from "node:os";
import { SAFETY_CATEGORIES, screenText } from "../src/safety/index.ts";
import { HELD_OUT_PROMPTS } from "../test/safety/held-out-prompts.ts";
import { LABELLED_PROMPTS, type Label, type LabelledPrompt } from "../test/safety/labelled-prompts.ts";
import { fakeClassify } from "../test/safety/fake-classifier.ts";
import { reportTwoStages } from "./safety/two-stages.ts";

const GOAL = 0.95;

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

interface Score {
  perCategory: Map<Label, Counts>;
  misclassified: { prompt: LabelledPrompt; predicted: Label }[];
  refusalAccuracy: number;
}

function score(prompts: LabelledPrompt[]): Score {
  const perCategory = new Map<Label, Counts>(SAFETY_CATEGORIES.map((category) => [category, { tp: 0, fp: 0, fn: 0 }]));
  const misclassified: Score["misclassified"] = [];
  let refusalRight = 0;
  for (const prompt of prompts) {
    const predicted: Label = screenText(prompt.text)?.category ?? "none";
    if ((predicted === "none") === (prompt.label === "none")) refusalRight += 1;
    if (predicted === prompt.label) {
      if (predicted !== "none") perCategory.get(predicted)!.tp += 1;
      continue;
    }
    misclassified.push({ prompt, predicted });
    if (predicted !== "none") perCategory.get(predicted)!.fp += 1;
    if (prompt.label !== "none") perCategory.get(prompt.label)!.fn += 1;
  }
  return { perCategory, misclassified, refusalAccuracy: refusalRight / prompts.length };
}

const ratio = (part: number, whole: number): number => (whole === 0 ? 1 : part / whole);
const fixed = (value: number): string => value.toFixed(3);

/** Prints the table; returns the categories that miss the goal. */
function report(title: string, prompts: LabelledPrompt[]): string[] {
  const { perCategory, misclassified, refusalAccuracy } = score(prompts);
  const innocent = prompts.filter((prompt) => prompt.label === "none").length;
  console.log(`\n${title}: ${prompts.length} prompts (${prompts.length - innocent} harmful, ${innocent} innocent)`);
  console.log("category        support   TP   FP   FN  precision  recall");
  const missed: string[] = [];
  const total: Counts = { tp: 0, fp: 0, fn: 0 };
  for (const [category, counts] of perCategory) {
    const support = prompts.filter((prompt) => prompt.label === category).length;
    const precision = ratio(counts.tp, counts.tp + counts.fp);
    const recall = ratio(counts.tp, counts.tp + counts.fn);
    if (precision < GOAL || recall < GOAL) missed.push(category);
    total.tp += counts.tp;
    total.fp += counts.fp;
    total.fn += counts.fn;
    const row = [category.padEnd(14), String(support).padStart(7), ...[counts.tp, counts.fp, counts.fn].map((n) => String(n).padStart(4))];
    console.log(`${row.join(" ")}  ${fixed(precision).padStart(9)}  ${fixed(recall).padStart(6)}`);
  }
  console.log(`overall (micro) ${" ".repeat(12)}${[total.tp, total.fp, total.fn].map((n) => String(n).padStart(4)).join(" ")}  ${fixed(ratio(total.tp, total.tp + total.fp)).padStart(9)}  ${fixed(ratio(total.tp, total.tp + total.fn)).padStart(6)}`);
  console.log(`refused-or-passed accuracy (category ignored): ${fixed(refusalAccuracy)}`);
  console.log(misclassified.length ? "misclassified:" : "misclassified: none");
  for (const { prompt, predicted } of misclassified) console.log(`  [${prompt.label} -> ${predicted}] ${prompt.text}`);
  return missed;
}

/**
 * Microseconds per screen of `text`: wall-clock mean over the whole loop, and the median of
 * 10 batches in CPU time (process.cpuUsage), which is less disturbed by other work on the machine.
 */
function timeScreen(text: string): { wallMean: number; cpuMedian: number } {
  const batches = 10;
  const perBatch = 200;
  for (let i = 0; i < 300; i += 1) screenText(text);
  const cpu: number[] = [];
  const started = performance.now();
  for (let batch = 0; batch < batches; batch += 1) {
    const before = process.cpuUsage();
    for (let i = 0; i < perBatch; i += 1) screenText(text);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / perBatch);
  }
  const wallMean = ((performance.now() - started) * 1000) / (batches * perBatch);
  cpu.sort((a, b) => a - b);
  return { wallMean, cpuMedian: (cpu[batches / 2 - 1]! + cpu[batches / 2]!) / 2 };
}

function toLength(parts: string[], length: number): string {
  let text = "";
  for (let i = 0; text.length < length; i += 1) text += `${parts[i % parts.length]}. `;
  return text.slice(0, length);
}

const missed = report("Labelled set (tuned against; goal applies)", LABELLED_PROMPTS);
report("Held-out set (written after tuning; information only)", HELD_OUT_PROMPTS);
reportTwoStages(
  "Held-out set",
  HELD_OUT_PROMPTS,
  fakeClassify,
  "a FAKE classifier, test/safety/fake-classifier.ts: a paraphrase lexicon standing in for Llama Guard; its numbers are the fake's, not a real model's",
);

const innocentText = toLength(LABELLED_PROMPTS.filter((prompt) => prompt.label === "none").map((prompt) => prompt.text), 4000);
const mixedText = toLength(LABELLED_PROMPTS.map((prompt) => prompt.text), 4000);
// The tokenizer's worst case: nothing but single letters, each run searched for a spaced-out word.
const spacedLetters = toLength(["q w e r t y u i o p a s d f g h j k l z x c v b n m"], 4000);
console.log(`\nScreening speed (2,000 screens each, one thread, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)} on ${os.availableParallelism()} cores):`);
console.log(`  ${"prompt".padEnd(40)} ${"wall mean".padStart(10)} ${"cpu median".padStart(11)}`);
for (const [name, text] of [["4,000 chars of innocent prompts", innocentText], ["4,000 chars of mixed prompts", mixedText], ["4,000 chars of spaced single letters", spacedLetters]] as const) {
  const { wallMean, cpuMedian } = timeScreen(text);
  console.log(`  ${name.padEnd(40)} ${wallMean.toFixed(1).padStart(7)} µs ${cpuMedian.toFixed(1).padStart(8)} µs`);
}

if (missed.length > 0) {
  console.log(`\nMISSED the goal (precision and recall >= ${GOAL}) in: ${missed.join(", ")}`);
  process.exit(1);
}
console.log(`\nGoal met: precision and recall >= ${GOAL} in every category of the labelled set.`);
