// Two families of fake upstream models for load scripts (`npm run stress`, `npm run bench:batch`),
// understood by the OpenAI and Replicate fakes. Like every scenario they are chosen by the
// upstream model name, so one fake serves several rates at once and needs no configuration:
//
//   fake/delay-<ms>                         a real image after a fixed delay (I/O-bound, like a
//                                           real model call)
//   fake/chaos-p<percent>[-s<seed>][-d<ms>] per request, with probability <percent>/100, one of
//                                           FAKE_FAILURES picked uniformly; otherwise a real image
//                                           (after <ms>, default 0). <seed> starts the generator
//                                           so two rows with the same rate fail differently.
//
// Pure (no Node or Workers APIs): the fakes run it in Node, tests and scripts import the names.
import { prng } from "../support/prng.ts";

/** What a chaos request can do instead of answering an image, each an existing common scenario. */
export const FAKE_FAILURES = ["http-500", "http-400", "hang", "malformed-json", "not-an-image"] as const;
export type FakeFailure = (typeof FAKE_FAILURES)[number];

export interface FakePlan {
  /** Wait this long before answering (or before failing). */
  delayMs: number;
  /** Absent: answer a real image. */
  failure?: FakeFailure;
}

/** Longest delay a name may ask for: a typo must not park a connection for ever. */
const MAX_DELAY_MS = 60_000;

export function delayModel(ms: number): string {
  return `fake/delay-${Math.round(ms)}`;
}

export function chaosModel(percent: number, seed = 1, delayMs = 0): string {
  return `fake/chaos-p${Math.round(percent)}-s${seed}${delayMs > 0 ? `-d${Math.round(delayMs)}` : ""}`;
}

/** One generator per model name, so a name's sequence does not depend on other names' traffic. */
const generators = new Map<string, () => number>();
/** What every chaos and delay name did so far, for a script's report. */
const tally = new Map<string, number>();

/** The plan for this request, or undefined when `model` is no chaos or delay name. */
export function planFor(model: string): FakePlan | undefined {
  const delay = /^fake\/delay-(\d+)$/.exec(model);
  if (delay) return count(model, { delayMs: Math.min(MAX_DELAY_MS, Number(delay[1])) });
  const chaos = /^fake\/chaos-p(\d+)(?:-s(\d+))?(?:-d(\d+))?$/.exec(model);
  if (!chaos) return undefined;
  const percent = Math.min(100, Number(chaos[1]));
  const delayMs = Math.min(MAX_DELAY_MS, Number(chaos[3] ?? 0));
  let next = generators.get(model);
  if (!next) generators.set(model, (next = prng(Number(chaos[2] ?? 1))));
  const fails = next() * 100 < percent;
  const failure = fails ? FAKE_FAILURES[Math.floor(next() * FAKE_FAILURES.length)] : undefined;
  return count(model, failure ? { delayMs, failure } : { delayMs });
}

function count(model: string, plan: FakePlan): FakePlan {
  const key = `${model} ${plan.failure ?? "image"}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  return plan;
}

/** Requests answered so far per "<model> <failure|image>". */
export function chaosTally(): ReadonlyMap<string, number> {
  return tally;
}
