// A call's work budget, counted in loop turns of the WASM codecs.
//
// Inside a Worker the clock stands still while synchronous code runs, and a WASM decoder cannot
// be stopped from outside, so a file that makes a decoder's loops run far longer than its size
// would need could keep the isolate, and every request in it, until the platform's CPU limit
// ends them all. Every codec module is therefore metered (scripts/wasm-fuel.ts): each loop turn
// spends one unit from a global the module imports, and the instance traps when it is gone.
//
// A call's instances all draw on one global, its WorkBudget, found through an
// AsyncLocalStorage. The billed-call path runs every tool's run() inside the budget its tool
// states (billing/billed-call.ts executeCall, ToolDefinition.workBudget: the pixels the work
// reads and writes at its kind's rate, work-steps.ts), batch items each on their own; work that
// is no billed call's (an MCP result's preview, the playground's sample picture) runs on a
// budget of its own the same way. Every instance the work creates (native.ts, hevc.ts, wasm.ts)
// is handed that budget's global. A trap with the budget spent is the budget's, and the call is
// answered with `budgetSpentError` (400, refunded) while the isolate goes on serving. The
// TypeScript readers count their rows on the same budget (spendWork).
//
// Every request runs inside servingRequest (src/index.ts): codec work a request does outside
// any budget of its own (a path that forgot one) draws on the request's ceiling instead, the
// most a codec call on the largest picture the service reads may take, so nothing a request
// starts runs unbounded; the tests watch for such work and fail when they find it
// (watchUnbudgetedWork, test/setup), and elsewhere its first occurrence is logged. An instance made outside any request (a test, a
// benchmark, the fuzzing harness calling the codecs directly) gets a budget of its own that
// never runs out.

import { AsyncLocalStorage } from "node:async_hooks";
import { PixelgateError } from "../errors.ts";
import { HARD_MAX_PIXELS } from "./limits.ts";
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

/** The budget a request's codec work draws on when no call gave it one (see the top). */
class RequestCeiling extends WorkBudget {}

const scope = new AsyncLocalStorage<WorkBudget>();

/**
 * Serves one request: codec work it does outside any budget of its own draws on a ceiling (the
 * most a codec call on a picture of HARD_MAX_PIXELS may take), and is noted for the tests.
 */
export function servingRequest<T>(serve: () => T): T {
  return scope.run(new RequestCeiling(workStepsFor("codec", HARD_MAX_PIXELS)), serve);
}

/** Where codec work outside any budget was found while watching (null: not watching). */
let unbudgeted: string[] | null = null;

/**
 * For the tests (test/setup): from now on, codec work a request does outside any budget of its
 * own is noted (with where it was made). Returns a function that hands out and forgets what was
 * noted since it was last called.
 */
export function watchUnbudgetedWork(): () => string[] {
  unbudgeted ??= [];
  return () => (unbudgeted ? unbudgeted.splice(0) : []);
}

/** Whether work outside any budget was already logged (once an isolate, outside the tests). */
let logged = false;

/** The budget of the work under way: a call's, a request's ceiling (noted), or none. */
function currentBudget(): WorkBudget | undefined {
  const budget = scope.getStore();
  if (budget instanceof RequestCeiling) noteUnbudgeted();
  return budget;
}

/** Work outside any budget: noted for the tests, else logged the first time (a path to give a budget). */
function noteUnbudgeted(): void {
  const where = new Error("codec work outside any budget").stack ?? "codec work outside any budget";
  if (unbudgeted) unbudgeted.push(where);
  else if (!logged) {
    logged = true;
    console.warn(`Codec work ran in a request outside any budget of its own and drew on the request's ceiling: ${where}`);
  }
}

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
 * budgetSpentError once it is spent. Outside any request it counts nothing.
 */
export function spendWork(steps: number): void {
  const budget = currentBudget();
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
  const fuel = currentBudget()?.fuel ?? new WebAssembly.Global({ value: "i64", mutable: true }, UNLIMITED);
  return { [FUEL_IMPORT.module]: { [FUEL_IMPORT.name]: fuel } };
}

export function budgetSpentError(): PixelgateError {
  return new PixelgateError(
    "image_too_large",
    "The image takes more work to convert than any image of its size should; it was stopped and the credits refunded. Its file may be damaged or made to be slow: re-encode it, or send it smaller.",
    { param: "image" },
  );
}
