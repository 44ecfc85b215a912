// A call's work budget, counted in loop turns of the WASM codecs.
//
// Inside a Worker the clock stands still while synchronous code runs, and a WASM decoder cannot
// be stopped from outside, so a file that makes a decoder's loops run far longer than its size
// would need could keep the isolate, and every request in it, until the platform's CPU limit
// ends them all. Every codec module is therefore metered (scripts/wasm-fuel.ts): each loop turn
// spends one unit from a global the module imports, and the instance traps when it is gone.
//
// A call's instances all draw on one global, its WorkBudget, found through an
// AsyncLocalStorage: the tools run their admitted work inside `budget.run()` (holdingPermit,
// tools/codec-work.ts; the budget follows the pixels the work reads and writes, work-steps.ts),
// and every instance the work creates (native.ts, hevc.ts, wasm.ts) is
// handed that budget's global. A trap with the budget spent is the budget's, and the call is
// answered with `budgetSpentError` (400, refunded) while the isolate goes on serving. The
// TypeScript readers count their rows on the same budget (spendWork). An
// instance made outside any call (a test, a benchmark) gets a budget of its own that never
// runs out.

import { AsyncLocalStorage } from "node:async_hooks";
import { PixelgateError } from "../errors.ts";
import { workStepsFor, type WorkKind } from "./work-steps.ts";

/** The import namespace and name of the fuel global in every metered module. */
const FUEL_IMPORT = { module: "pixelgate", name: "fuel" } as const;

const UNLIMITED = 2n ** 63n - 1n;

export class WorkBudget {
  readonly steps: bigint;
  readonly fuel: WebAssembly.Global;

  constructor(steps: bigint) {
    this.steps = steps;
    this.fuel = new WebAssembly.Global({ value: "i64", mutable: true }, steps);
  }

  /** A budget for work of `kind` (on `route`: compress's and convert's `<input>><target>`) that reads and writes `pixels` (work-steps.ts). */
  static forWork(kind: WorkKind, pixels: number, route?: string): WorkBudget {
    return new WorkBudget(workStepsFor(kind, pixels, route));
  }

  /** Loop turns spent so far. */
  get spent(): bigint {
    return this.steps - this.fuel.value;
  }

  /** Whether a loop found the fuel gone (the metered code traps when it goes below 0). */
  get exhausted(): boolean {
    return this.fuel.value < 0n;
  }

  /**
   * Runs `work` on this budget: every codec instance it creates draws on it. A failure with the
   * budget spent (the trap that stopped the codec, or whatever its caller made of it) comes out
   * as budgetSpentError.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await scope.run(this, work);
    } catch (error) {
      if (this.exhausted) throw budgetSpentError();
      throw error;
    }
  }
}

const scope = new AsyncLocalStorage<WorkBudget>();

/**
 * `start` bound to the budget of the call under way (none: as it is): a reading of a streamed
 * answer begun later, as the client reads it, instantiates its codecs on the call's budget.
 */
export function onCallBudget<A extends unknown[], R>(start: (...args: A) => R): (...args: A) => R {
  const budget = scope.getStore();
  return budget ? (...args) => scope.run(budget, () => start(...args)) : start;
}

/**
 * Work done in TypeScript (the BMP, GIF and TIFF readers), counted on the budget of the call
 * under way in the same units as a loop turn (a row's pixels, a strip's bytes); throws
 * budgetSpentError once it is spent. Outside a call it counts nothing.
 */
export function spendWork(steps: number): void {
  const budget = scope.getStore();
  if (!budget) return;
  budget.fuel.value -= BigInt(Math.ceil(steps));
  if (budget.exhausted) throw budgetSpentError();
}

const metered = new WeakMap<WebAssembly.Module, boolean>();

/**
 * The imports `module` needs besides its own: the fuel of the call under way, or fuel that never
 * runs out. Throws for a module that is not metered (its .wasm was not put through
 * scripts/wasm-fuel.ts: an install whose postinstall did not run), which would run unbounded.
 */
export function fuelImports(module: WebAssembly.Module): WebAssembly.Imports {
  let known = metered.get(module);
  if (known === undefined) {
    known = WebAssembly.Module.imports(module).some((i) => i.module === FUEL_IMPORT.module && i.name === FUEL_IMPORT.name && i.kind === "global");
    metered.set(module, known);
  }
  if (!known) throw new Error("A codec module is not metered: run `npm install` (scripts/patch-codecs.ts meters the codecs' .wasm files).");
  const fuel = scope.getStore()?.fuel ?? new WebAssembly.Global({ value: "i64", mutable: true }, UNLIMITED);
  return { [FUEL_IMPORT.module]: { [FUEL_IMPORT.name]: fuel } };
}

export function budgetSpentError(): PixelgateError {
  return new PixelgateError(
    "image_too_large",
    "The image takes more work to convert than any image of its size should; it was stopped and the credits refunded. Its file may be damaged or made to be slow: re-encode it, or send it smaller.",
    { param: "image" },
  );
}
