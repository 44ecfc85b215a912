// Counted loops: the loops of a WebAssembly function whose number of turns is known when they
// start, so scripts/wasm-fuel.ts can charge all their turns at once, before the loop, instead of
// drawing on every turn. Most of a codec's time goes to such loops (a row of pixels, a block of
// coefficients, a run of bytes), and a draw in them costs a decrement and a branch on every turn.
//
// A loop is counted when, as the compiler lays out a C `for` loop (rotated: the test at the end):
//   - its only way back is a `br_if 0` as its last instruction (or just before a last `br` out
//     of the loop, which leaves it as the end would), whose condition compares a
//     counter local with a bound (a local the loop never writes, or a constant) using
//     `!=`, `<`, `<=`, `>` or `>=` (signed or unsigned), or is the counter itself (`!= 0`);
//   - the counter's one write in the loop is `counter = counter + step` (or `- step`, a
//     constant) at the loop's own level (not inside a block, an `if` or an inner loop), so
//     it happens once on every turn, before the condition reads it;
//   - nothing inside leaves it or starts its next turn early: no branch to a label outside it
//     or to its own label (but the last), no `return`, no tail call.
// Its turns are then a function of the counter's value at the start and the bound, computed in
// 64 bits (chargeCode). When that arithmetic says the counter would wrap around its 32 bits
// before the loop ends (a loop that would run for ever or 2^32 turns), the charge is BIG, which
// no budget holds: the loop traps before its first turn. Anything else keeps a draw per turn.

import { Reader, skipImmediates, Writer } from "./wasm-binary.ts";

const OP = {
  block: 0x02, loop: 0x03, if: 0x04, try: 0x06, end: 0x0b, br: 0x0c, brIf: 0x0d, brTable: 0x0e, return: 0x0f,
  returnCall: 0x12, returnCallIndirect: 0x13, delegate: 0x18,
  localGet: 0x20, localSet: 0x21, localTee: 0x22, globalGet: 0x23, globalSet: 0x24,
  i32Const: 0x41, i64Const: 0x42, i32Add: 0x6a, i32Sub: 0x6b,
  brOnNull: 0xd5, brOnNonNull: 0xd6,
} as const;
const EMPTY_BLOCK = 0x40;
/** A charge no budget holds. */
export const BIG = 2n ** 40n;

/** One instruction of a function body, with the immediates the metering reads. */
export interface Instruction {
  op: number;
  /** Its first byte (the opcode) and the byte after its last immediate. */
  at: number;
  end: number;
  /** local.get/set/tee's local; global.get/set's global; br/br_if's label; i32.const's value; a block's first type byte. */
  index: number;
  /** br_table's labels, its default last. */
  labels?: number[];
}

const opensBlock = (op: number) => op === OP.block || op === OP.loop || op === OP.if || op === OP.try;

/** The instructions of a function body, read from `r` (after its locals) to the body's end. */
export function readInstructions(r: Reader): Instruction[] {
  const out: Instruction[] = [];
  while (!r.done) {
    const at = r.at;
    const op = r.byte();
    let index = 0;
    let labels: number[] | undefined;
    if (opensBlock(op)) {
      index = r.bytes[r.at]!;
      r.skipLeb();
    } else if (op === OP.br || op === OP.brIf || (op >= OP.localGet && op <= OP.globalSet)) index = r.u32();
    else if (op === OP.brTable) labels = Array.from({ length: r.u32() + 1 }, () => r.u32());
    else if (op === OP.i32Const) index = r.s32();
    else skipImmediates(r, op);
    out.push({ op, at, end: r.at, index, ...(labels ? { labels } : {}) });
  }
  return out;
}

/** The index of each block's, loop's and if's `end`, by the index of its opening instruction. */
export function matchingEnds(code: Instruction[]): Map<number, number> {
  const ends = new Map<number, number>();
  const open: number[] = [];
  code.forEach((instruction, i) => {
    if (opensBlock(instruction.op)) open.push(i);
    else if ((instruction.op === OP.end || instruction.op === OP.delegate) && open.length > 0) ends.set(open.pop()!, i);
  });
  return ends;
}

type Comparison = "ne" | "lt" | "le" | "gt" | "ge";
const COMPARISONS: Record<number, { compare: Comparison; signed: boolean }> = {
  0x47: { compare: "ne", signed: false },
  0x48: { compare: "lt", signed: true }, 0x49: { compare: "lt", signed: false },
  0x4a: { compare: "gt", signed: true }, 0x4b: { compare: "gt", signed: false },
  0x4c: { compare: "le", signed: true }, 0x4d: { compare: "le", signed: false },
  0x4e: { compare: "ge", signed: true }, 0x4f: { compare: "ge", signed: false },
};
const MIRRORED: Record<Comparison, Comparison> = { ne: "ne", lt: "gt", le: "ge", gt: "lt", ge: "le" };

/** A counted loop: `counter` moves by `step` each turn and the loop goes on while `counter <compare> bound`. */
export interface CountedLoop {
  counter: number;
  step: number;
  bound: { local: number } | { value: number };
  compare: Comparison;
  signed: boolean;
  /** The test reads the counter before the turn's step (a test saved in a local, the step after it). */
  testedBeforeStep: boolean;
}

type Operand = { kind: "get"; local: number; first: number } | { kind: "const"; value: number; first: number } | { kind: "step"; local: number; step: number; first: number };

/** `counter = counter ± constant` ending with the set or tee at `i`: its step, or null. */
function stepAt(code: Instruction[], i: number): { local: number; step: number } | null {
  const write = code[i];
  if (!write || (write.op !== OP.localSet && write.op !== OP.localTee) || i < 3) return null;
  const [get, constant, add] = [code[i - 3]!, code[i - 2]!, code[i - 1]!];
  if (get.op !== OP.localGet || get.index !== write.index || constant.op !== OP.i32Const || (add.op !== OP.i32Add && add.op !== OP.i32Sub)) return null;
  const step = add.op === OP.i32Add ? constant.index : -constant.index;
  return step !== 0 && Math.abs(step) <= 2 ** 30 ? { local: write.index, step } : null;
}

/** The operand whose last instruction is `i`: a local, a constant, or a counter's step as a tee. */
function operandAt(code: Instruction[], i: number): Operand | null {
  const instruction = code[i];
  if (!instruction) return null;
  if (instruction.op === OP.localGet) return { kind: "get", local: instruction.index, first: i };
  if (instruction.op === OP.i32Const) return { kind: "const", value: instruction.index, first: i };
  const step = instruction.op === OP.localTee ? stepAt(code, i) : null;
  return step ? { kind: "step", ...step, first: i - 3 } : null;
}

/** The loop opened at `start` and closed at `end` as a CountedLoop, or null when it is not one. */
export function countedLoop(code: Instruction[], start: number, end: number): CountedLoop | null {
  if (code[start]!.index !== EMPTY_BLOCK || end - start < 3) return null;
  // The way back: a `br_if 0` last, or just before a last `br` out of the loop (the compiler's
  // way to go on where the code goes on, which is then where the loop ends).
  const leaves = ({ op, index }: Instruction) => op === OP.br && index > 0;
  const back = leaves(code[end - 1]!) ? end - 2 : end - 1;
  if (code[back]!.op !== OP.brIf || code[back]!.index !== 0) return null;

  // Writes, exits and early turns anywhere in the loop (a write inside a block, an `if` or an
  // inner loop is at -1: it may happen on some turns only, or several times).
  const writes = new Map<number, number[]>();
  let depth = 0;
  for (let i = start + 1; i < back; i++) {
    const { op, index, labels } = code[i]!;
    if (opensBlock(op)) depth++;
    else if (op === OP.end) depth--;
    else if ((op === OP.br || op === OP.brIf) && index >= depth) return null;
    else if (op === OP.brTable && labels!.some((label) => label >= depth)) return null;
    else if (op === OP.return || op === OP.returnCall || op === OP.returnCallIndirect || op === OP.delegate || op === OP.brOnNull || op === OP.brOnNonNull) return null;
    else if (op === OP.localSet || op === OP.localTee) writes.set(index, [...(writes.get(index) ?? []), depth > 0 ? -1 : i]);
  }
  const writtenOnceAt = (local: number) => {
    const at = writes.get(local);
    return at?.length === 1 && at[0] !== -1 ? at[0]! : null;
  };

  // The condition: `counter ± step` teed (the counter itself, != 0), or two operands compared,
  // there or earlier in the turn into a local the br_if reads (`saved`).
  let tested = back - 1;
  let saved = false;
  const read = code[tested]!;
  if (read.op === OP.localGet) {
    const at = writtenOnceAt(read.index);
    if (at === null || code[at]!.op !== OP.localSet) return null;
    [tested, saved] = [at - 1, true];
  }
  let left: Operand | null;
  let right: Operand | null;
  let comparison: { compare: Comparison; signed: boolean };
  const tail = saved ? null : operandAt(code, tested);
  if (tail?.kind === "step" && tail.first > start) {
    [left, right, comparison] = [tail, { kind: "const", value: 0, first: tail.first }, { compare: "ne", signed: false }];
  } else {
    const compared = COMPARISONS[code[tested]!.op];
    right = operandAt(code, tested - 1);
    left = right && operandAt(code, right.first - 1);
    if (!compared || !left || !right || left.first <= start) return null;
    comparison = compared;
  }

  // Which operand is the counter: the one written once, by a step at the loop's level; before
  // the test reads it, or (a saved test) after: then the test sees the counter before its step.
  const counterOf = (operand: Operand) => {
    if (operand.kind === "const") return null;
    const at = writtenOnceAt(operand.local);
    const step = at === null ? null : stepAt(code, at);
    if (!step) return null;
    if (operand.kind === "step" ? at === operand.first + 3 : at! < operand.first) return { ...step, before: false };
    return saved && at! > tested ? { ...step, before: true } : null;
  };
  const boundOf = (operand: Operand, counter: number): CountedLoop["bound"] | null => {
    if (operand.kind === "const") return { value: operand.value };
    return operand.kind === "get" && operand.local !== counter && !writes.has(operand.local) ? { local: operand.local } : null;
  };
  for (const [counterSide, boundSide, compare] of [
    [left, right, comparison.compare],
    [right, left, MIRRORED[comparison.compare]],
  ] as const) {
    const step = counterOf(counterSide);
    const bound = step && boundOf(boundSide, step.local);
    if (!step || !bound) continue;
    const upward = compare === "lt" || compare === "le";
    const downward = compare === "gt" || compare === "ge";
    if ((upward && step.step < 0) || (downward && step.step > 0)) return null; // runs until it wraps
    return { counter: step.local, step: step.step, bound, compare, signed: comparison.signed, testedBeforeStep: step.before };
  }
  return null;
}

/**
 * The code that charges `loop`'s turns to the fuel global `fuel` and traps when that goes below
 * zero, using the i64 local `turns`; it goes right before the loop, with nothing on the stack
 * left or taken.
 */
export function chargeCode(loop: CountedLoop, fuel: number, turns: number): Uint8Array {
  const w = new Writer();
  const { signed } = loop;
  const extend = signed ? 0xac : 0xad; // i64.extend_i32_s / _u
  const i64 = (value: bigint) => w.byte(OP.i64Const).s64(value);
  // Where the counter starts, as the test sees it: one step back when the test comes before the step.
  const start = () => {
    w.byte(OP.localGet).u32(loop.counter).byte(extend);
    if (loop.testedBeforeStep) i64(BigInt(loop.step)), w.byte(0x7d); // i64.sub
  };
  const start32 = () => {
    w.byte(OP.localGet).u32(loop.counter);
    if (loop.testedBeforeStep) w.byte(OP.i32Const).s32(loop.step).byte(OP.i32Sub);
  };
  const i32Bound = () => ("local" in loop.bound ? w.byte(OP.localGet).u32(loop.bound.local) : w.byte(OP.i32Const).s32(loop.bound.value));
  const bound = () => ("local" in loop.bound ? (w.byte(OP.localGet).u32(loop.bound.local), w.byte(extend)) : i64(signed ? BigInt(loop.bound.value) : BigInt(loop.bound.value >>> 0)));
  const size = BigInt(Math.abs(loop.step));
  const setTurns = () => w.byte(OP.localSet).u32(turns);
  const getTurns = () => w.byte(OP.localGet).u32(turns);
  // By the step's size: a shift and a mask when it is a power of two (most steps), else i64.div_u and i64.rem_u.
  const shift = (size & (size - 1n)) === 0n ? BigInt(size.toString(2).length - 1) : null;
  const divide = () => (shift === null ? (i64(size), w.byte(0x80)) : (i64(shift), w.byte(0x88))); // i64.shr_u
  const remainder = () => (shift === null ? (i64(size), w.byte(0x82)) : (i64(size - 1n), w.byte(0x83))); // i64.and

  w.byte(OP.globalGet).u32(fuel);
  if (loop.compare === "ne") {
    // Turns until counter + k*step == bound (mod 2^32): the distance over the step, when the step divides it.
    if (loop.step > 0) i32Bound(), start32();
    else start32(), i32Bound();
    w.byte(OP.i32Sub).byte(0xad); // i64.extend_i32_u
    setTurns();
    getTurns();
    if (size > 1n) divide();
    i64(BIG);
    getTurns(), w.byte(0x50), w.byte(0x45); // distance != 0: i64.eqz, i32.eqz
    if (size > 1n) getTurns(), remainder(), w.byte(0x50), w.byte(0x71); // the remainder is 0: i64.eqz, i32.and
  } else {
    // Turns until the counter passes the limit (the bound, or one past it for <= and >=), at least one.
    const upward = loop.compare === "lt" || loop.compare === "le";
    const limit = () => {
      bound();
      if (loop.compare === "le") i64(1n), w.byte(0x7c); // i64.add
      if (loop.compare === "ge") i64(1n), w.byte(0x7d); // i64.sub
    };
    const distance = () => (upward ? (limit(), start()) : (start(), limit()));
    distance(), w.byte(0x7d); // i64.sub
    if (size > 1n) i64(size - 1n), w.byte(0x7c), divide(); // rounded up: + (size - 1), divided
    i64(1n);
    distance(), w.byte(0x55); // the limit not reached yet: i64.gt_s
    w.byte(0x1b); // select
    setTurns();
    // Where the counter ends: past its 32 bits means it wrapped, and the count is off.
    getTurns();
    i64(BIG);
    start(), getTurns();
    if (size > 1n) i64(size), w.byte(0x7e); // i64.mul
    w.byte(upward ? 0x7c : 0x7d); // i64.add / i64.sub
    const [low, high] = signed ? [-(2n ** 31n), 2n ** 31n - 1n] : [0n, 2n ** 32n - 1n];
    if (upward) i64(high), w.byte(0x57); // i64.le_s
    else i64(low), w.byte(0x59); // i64.ge_s
  }
  w.byte(0x1b); // select: the turns, or BIG
  w.byte(0x7d); // i64.sub
  w.byte(OP.localTee).u32(turns).byte(OP.globalSet).u32(fuel); // the fuel left, kept in `turns` to test it
  getTurns(), i64(0n), w.byte(0x53); // i64.lt_s
  w.byte(OP.if).byte(EMPTY_BLOCK).byte(0x00).byte(OP.end); // unreachable
  return w.finish();
}
