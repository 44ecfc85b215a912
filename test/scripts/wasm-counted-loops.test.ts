// Counted loops (scripts/wasm-counted-loops.ts) in modules built here byte by byte: a loop that
// moves a counter toward a bound, in each form a compiler writes, is charged its turns before it
// starts, exactly as many as it then runs; a loop of more turns than the fuel left (one that
// would wrap round its 32 bits, or never end) traps before its first turn; a loop with another way out keeps its draw on every turn.

import { describe, expect, it } from "vitest";
import { BIG } from "../../scripts/wasm-counted-loops.ts";
import { CHUNK, meterModule, unmeteredCopy } from "../../scripts/wasm-fuel.ts";
import { TURNS_EXPORT, withLoopCounters } from "../../scripts/wasm-loop-turns.ts";
import { leb, section, sleb, vec, WebAssembly, type WasmGlobal } from "./wasm-module-kit.ts";

const OP = { ne: 0x47, lt_s: 0x48, lt_u: 0x49, gt_s: 0x4a, gt_u: 0x4b, le_s: 0x4c, le_u: 0x4d, ge_s: 0x4e, ge_u: 0x4f } as const;
type Compare = keyof typeof OP;
const [START, BOUND, COUNTER, TURNS, SAVED] = [0, 1, 2, 3, 4]; // params, then locals

/** counter += step, as `local.get; i32.const; i32.add (or i32.sub of -step)` and a tee or set. */
const stepCounter = (step: number, write: "tee" | "set", sub = false) => [0x20, COUNTER, 0x41, ...sleb(sub ? -step : step), sub ? 0x6b : 0x6a, write === "tee" ? 0x22 : 0x21, COUNTER];

/** The ways a loop's last instructions can test the counter (`br_if 0` closing them). */
const TAILS = {
  "counter stepped in the comparison": (step: number, compare: Compare) => [...stepCounter(step, "tee"), 0x20, BOUND, OP[compare]],
  "bound first": (step: number, compare: Compare) => [0x20, BOUND, ...stepCounter(step, "tee"), OP[compare]],
  "stepped, then read": (step: number, compare: Compare) => [...stepCounter(step, "set"), 0x20, COUNTER, 0x20, BOUND, OP[compare]],
  "stepped by i32.sub": (step: number, compare: Compare) => [...stepCounter(step, "tee", true), 0x20, BOUND, OP[compare]],
  "constant bound": (step: number, compare: Compare) => [...stepCounter(step, "tee"), 0x41, ...sleb(100), OP[compare]],
  "counter itself (!= 0)": (step: number) => stepCounter(step, "tee"),
  "test saved, then stepped": (step: number, compare: Compare) => [0x20, COUNTER, 0x20, BOUND, OP[compare], 0x21, SAVED, ...stepCounter(step, "set"), 0x20, SAVED],
  "stepped, test saved": (step: number, compare: Compare) => [...stepCounter(step, "set"), 0x20, COUNTER, 0x20, BOUND, OP[compare], 0x21, SAVED, 0x20, SAVED],
};
type Tail = keyof typeof TAILS;

/**
 * (func (export "run") (param $start i32) (param $bound i32) (result i32)
 *       (local $counter i32) (local $turns i32) (local $saved i32)
 *   counter = start
 *   [block] loop
 *     turns += 1
 *     [early: if (turns >= bound) br 1 (out of the loop)]
 *     <tail> br_if 0 [br 1]
 *   end [end]
 *   turns)
 */
function loopModule(tail: number[], early = false, leave: "end" | "br" = "end"): Uint8Array {
  const body = [
    ...vec([[3, 0x7f]]),
    0x20, START, 0x21, COUNTER,
    ...(early || leave === "br" ? [0x02, 0x40] : []),
    0x03, 0x40,
    0x20, TURNS, 0x41, 1, 0x6a, 0x21, TURNS,
    ...(early ? [0x20, TURNS, 0x20, BOUND, 0x4f, 0x0d, 1] : []),
    ...tail, 0x0d, 0,
    ...(leave === "br" ? [0x0c, 1] : []),
    0x0b,
    ...(early || leave === "br" ? [0x0b] : []),
    0x20, TURNS, 0x0b,
  ];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 2, 0x7f, 0x7f, 1, 0x7f]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...leb(3), ...new TextEncoder().encode("run"), 0x00, 0]])),
    ...section(10, vec([[...leb(body.length), ...body]])),
  ]);
}

function run(module: Uint8Array, fuel: bigint, start: number, bound: number) {
  const global = new WebAssembly.Global({ value: "i64", mutable: true }, fuel);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(module), { pixelgate: { fuel: global } });
  const turns = () => (instance.exports.run as (a: number, b: number) => number)(start, bound);
  return { turns, fuel: global as WasmGlobal & { value: bigint } };
}

/** The turns the loop takes, simulated in 32-bit arithmetic: "runs away" past a million. */
function simulate(tail: Tail, step: number, compare: Compare, start: number, bound: number): number | "runs away" {
  const u = (x: number) => x >>> 0;
  const holds: Record<Compare, (a: number, b: number) => boolean> = {
    ne: (a, b) => a !== b, lt_s: (a, b) => a < b, lt_u: (a, b) => u(a) < u(b), gt_s: (a, b) => a > b, gt_u: (a, b) => u(a) > u(b),
    le_s: (a, b) => a <= b, le_u: (a, b) => u(a) <= u(b), ge_s: (a, b) => a >= b, ge_u: (a, b) => u(a) >= u(b),
  };
  let counter = start | 0;
  for (let turns = 1; turns <= 1_000_000; turns++) {
    const before = counter;
    counter = (counter + step) | 0;
    const goesOn =
      tail === "test saved, then stepped" ? holds[compare](before, bound | 0)
      : tail === "counter itself (!= 0)" ? counter !== 0
      : tail === "bound first" ? holds[compare](bound | 0, counter)
      : holds[compare](counter, tail === "constant bound" ? 100 : bound | 0);
    if (!goesOn) return turns;
  }
  return "runs away";
}

const CASES: [Tail, number, Compare, number, number][] = [
  ["counter stepped in the comparison", 1, "ne", 0, 1000],
  ["counter stepped in the comparison", 1, "ne", -5, 3],
  ["counter stepped in the comparison", 4, "ne", 0, 4000],
  ["counter stepped in the comparison", 4, "ne", 0, 4002], // never equal: runs away
  ["counter stepped in the comparison", 1, "ne", 7, 7], // round the whole 2^32: BIG
  ["counter stepped in the comparison", 3, "ne", 0, 999],
  ["counter stepped in the comparison", -2, "ne", 100, 0],
  ["counter stepped in the comparison", 1, "lt_s", -50, 50],
  ["counter stepped in the comparison", 1, "lt_s", 60, 50], // once: the test fails after the first turn
  ["counter stepped in the comparison", 3, "lt_u", 0, 1000],
  ["counter stepped in the comparison", 16, "lt_u", 0, -8], // 0xFFFFFFF8: the counter would wrap
  ["counter stepped in the comparison", 1, "le_u", 0, 1000],
  ["counter stepped in the comparison", 1, "le_u", 0, -1], // <= 0xFFFFFFFF always holds
  ["counter stepped in the comparison", 1, "le_s", -10, 10],
  ["counter stepped in the comparison", -1, "gt_s", 100, -100],
  ["counter stepped in the comparison", -7, "gt_u", 1000, 3],
  ["counter stepped in the comparison", -7, "gt_u", 3, 0], // 3 - 7 wraps to 0xFFFFFFFC
  ["counter stepped in the comparison", -2, "ge_s", 20, -20],
  ["counter stepped in the comparison", -1, "ge_u", 10, 0], // >= 0 always holds
  ["bound first", 1, "gt_u", 0, 500], // 500 > counter
  ["bound first", 2, "ge_s", -100, 100], // 100 >= counter
  ["bound first", -1, "lt_s", 100, 0], // 0 < counter
  ["stepped, then read", 1, "lt_u", 10, 700],
  ["stepped, then read", 2, "ne", 0, 64],
  ["stepped by i32.sub", -1, "ne", 0, 300], // counter - (-1)
  ["stepped by i32.sub", 5, "lt_s", 0, 300],
  ["constant bound", 1, "lt_s", 0, 0],
  ["constant bound", 1, "ne", 200, 0], // up to 100 by wrapping round: runs away
  ["counter itself (!= 0)", -1, "ne", 640, 0],
  ["counter itself (!= 0)", -1, "ne", 0, 0], // from 0: round the whole 2^32
  ["counter itself (!= 0)", -4, "ne", 64, 0],
  ["counter itself (!= 0)", 1, "ne", -9, 0],
  ["test saved, then stepped", 3, "lt_u", 0, 9],
  ["test saved, then stepped", 1, "ne", 5, 5], // the first test fails
  ["test saved, then stepped", 1, "ne", 0, 500],
  ["test saved, then stepped", -1, "gt_s", 10, 0],
  ["test saved, then stepped", 1, "lt_u", -1, 5], // 0xFFFFFFFF < 5 fails at once
  ["test saved, then stepped", 1, "le_u", 0, -1], // <= 0xFFFFFFFF always holds
  ["test saved, then stepped", 4, "ne", 0, 4002],
  ["stepped, test saved", 2, "le_s", 0, 10],
  ["stepped, test saved", -3, "ge_u", 30, 3],
];

describe("wasm-fuel: counted loops are charged their turns before they start", () => {
  for (const [tail, step, compare, start, bound] of CASES) {
    const expected = simulate(tail, step, compare, start, bound);
    it(`${tail}, step ${step}, ${compare}, from ${start} to ${bound}: ${expected === "runs away" ? "more than a million, traps before its first turn on a billion" : `${expected} turns`}`, () => {
      const module = loopModule(TAILS[tail](step, compare));
      const metered = meterModule(module);
      expect(WebAssembly.validate(metered)).toBe(true);
      const fuel = 1_000_000_000n;
      const loop = run(metered, fuel, start, bound);
      if (expected === "runs away") {
        // Charged its 2^32 - x turns, or BIG when it would wrap round or never end: no turn drawn.
        expect(() => loop.turns()).toThrow(WebAssembly.RuntimeError);
        expect(loop.fuel.value < 0n).toBe(true);
      } else {
        expect(loop.turns()).toBe(expected);
        expect(fuel - loop.fuel.value).toBe(BigInt(expected)); // counted, not drawn a chunk at a time
        expect(run(unmeteredCopy(metered), 0n, start, bound).turns()).toBe(expected);
      }
    });
  }

  it("a loop whose br_if 0 is followed by a br out of it is counted too", () => {
    const metered = meterModule(loopModule(TAILS["counter stepped in the comparison"](1, "lt_u"), false, "br"));
    const loop = run(metered, 10_000n, 0, 300);
    expect(loop.turns()).toBe(300);
    expect(10_000n - loop.fuel.value).toBe(300n);
  });

  it("charges BIG, which no budget holds, for a loop that would wrap round or never end", () => {
    const loop = run(meterModule(loopModule(TAILS["counter stepped in the comparison"](4, "ne"))), 2n ** 39n, 0, 4002);
    expect(() => loop.turns()).toThrow(WebAssembly.RuntimeError);
    expect(loop.fuel.value).toBe(2n ** 39n - BIG);
  });

  it("traps before the loop's first turn when the fuel left is less than its turns", () => {
    const metered = meterModule(loopModule(TAILS["counter stepped in the comparison"](1, "lt_u")));
    const loop = run(metered, 999n, 0, 1000);
    expect(() => loop.turns()).toThrow(WebAssembly.RuntimeError);
    expect(loop.fuel.value).toBe(-1n);
    expect(run(metered, 1000n, 0, 1000).turns()).toBe(1000);
  });

  it("a loop with another way out keeps a draw on every turn, a chunk at a time", () => {
    const metered = meterModule(loopModule(TAILS["counter stepped in the comparison"](1, "lt_u"), true));
    const loop = run(metered, 10_000n, 0, 100_000); // leaves by the early exit at turn 100,000... if the fuel lasted
    expect(() => loop.turns()).toThrow(WebAssembly.RuntimeError);
    const early = run(metered, 10_000n, 0, 300); // leaves early at turn 300
    expect(early.turns()).toBe(300);
    expect(10_000n - early.fuel.value).toBe(BigInt(Math.ceil(300 / CHUNK) * CHUNK));
  });
});

describe("wasm-loop-turns: a turn counter on each loop of a metered module (npm run bench:loops)", () => {
  for (const early of [false, true]) {
    it(`counts a ${early ? "drawing" : "counted"} loop's turns and says which it is`, () => {
      const { module, loops } = withLoopCounters(meterModule(loopModule(TAILS["counter stepped in the comparison"](1, "lt_u"), early)));
      expect(loops).toEqual([{ func: 0, loop: 0, draws: early }]);
      const global = new WebAssembly.Global({ value: "i64", mutable: true }, 1_000_000n);
      const instance = new WebAssembly.Instance(new WebAssembly.Module(module), { pixelgate: { fuel: global } });
      expect((instance.exports.run as (a: number, b: number) => number)(0, 300)).toBe(300);
      expect((instance.exports[`${TURNS_EXPORT}0`] as WasmGlobal).value).toBe(300n);
    });
  }
});
