// The work budget's table (fuel.ts): how many loop turns of the metered codecs a call may take,
// from the bytes the memory gate admitted it with. Written by `npm run bench:codecs -- --write`
// (scripts/bench/work-steps-file.ts) from what every bench case spent; a call may spend `margin`
// times the most any recorded case of its kind spent per admitted byte, and never less than
// `margin` x `floor` (a small call's codec set-up). The kinds are the three places the gate
// admits work: compress and convert (codec), the local upscale (which writes far more pixels
// than it holds), and the model tools' own codec work.

import TABLE from "./work-steps.json" with { type: "json" };

export const WORK_KINDS = ["codec", "upscale", "model"] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

export interface WorkStepsTable {
  about: string;
  margin: number;
  floor: number;
  perAdmittedByte: Record<WorkKind, number>;
  cases: { kind: WorkKind; case: string; megapixels: number; steps: number; admitted: number; measured: string }[];
}

export const WORK_STEPS = TABLE as WorkStepsTable;

/** Loop turns a call of `kind` admitted with `bytes` may take. */
export function workStepsFor(kind: WorkKind, bytes: number): bigint {
  return BigInt(Math.ceil(WORK_STEPS.margin * Math.max(WORK_STEPS.floor, WORK_STEPS.perAdmittedByte[kind] * bytes)));
}
