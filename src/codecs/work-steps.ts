// The work budget's table (fuel.ts): how many loop turns of the metered codecs a call may take,
// from the pixels its work reads and writes. Written by `npm run bench:codecs -- --write` or
// `-- --write-work` (scripts/bench/work-steps-file.ts) from what every bench case spent: a rate
// per pixel for each route measured (compress and convert: the input format and the target),
// and for each kind of work the largest rate of its cases (`codec *`, `upscale *`, `model *`),
// which a route not measured on its own takes, and a floor: the most any small case spent (a
// codec's set-up, a palette's search). A call may spend `margin` times the floor plus its rate
// times its pixels.
//
// Pixels, not the memory the gate admits: work grows with the pixels, memory does not (a
// streamed route holds a few rows of a 24 MP photo at a time).

import TABLE from "./work-steps.json" with { type: "json" };

export const WORK_KINDS = ["codec", "upscale", "model"] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

export interface WorkStepsTable {
  about: string;
  margin: number;
  floor: number;
  /** Loop turns per pixel: `codec <input>><target>` per route, `<kind> *` the largest of a kind. */
  perPixel: Record<string, number>;
  cases: { case: string; megapixels: number; rate: string; pixels: number; steps: number; measured: string }[];
}

export const WORK_STEPS = TABLE as WorkStepsTable;

/** The rate a call of `kind` on `route` (compress's and convert's `<input>><target>`) is held to. */
export function workRate(kind: WorkKind, route?: string): string {
  const own = route === undefined ? undefined : `${kind} ${route}`;
  return own !== undefined && own in WORK_STEPS.perPixel ? own : `${kind} *`;
}

/** Loop turns a call of `kind` on `route` whose work reads and writes `pixels` may take. */
export function workStepsFor(kind: WorkKind, pixels: number, route?: string): bigint {
  const rate = WORK_STEPS.perPixel[workRate(kind, route)]!;
  return BigInt(Math.ceil(WORK_STEPS.margin * (WORK_STEPS.floor + rate * pixels)));
}
