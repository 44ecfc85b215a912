// The work budget's table (fuel.ts): how many loop turns of the metered codecs a call may take,
// from the bytes the memory gate admitted it with. Written by `npm run bench:codecs -- --write`
// (scripts/bench/work-steps-file.ts) from what every bench case spent; a call may spend `margin`
// times the most any recorded case spent per admitted byte, and never less than `margin` x
// `floor` (a small call's codec set-up).

import TABLE from "./work-steps.json" with { type: "json" };

export interface WorkStepsTable {
  about: string;
  margin: number;
  floor: number;
  perAdmittedByte: number;
  cases: { case: string; megapixels: number; steps: number; admitted: number; measured: string }[];
}

export const WORK_STEPS: WorkStepsTable = TABLE;

/** Loop turns a call admitted with `bytes` may take. */
export function workStepsFor(bytes: number): bigint {
  return BigInt(Math.ceil(WORK_STEPS.margin * Math.max(WORK_STEPS.floor, WORK_STEPS.perAdmittedByte * bytes)));
}
