// A metered module (scripts/wasm-fuel.ts) with a counter on every loop: each loop's turns, for
// `npm run bench:loops`, which shows where a call's turns go and which loops still draw on every
// turn (the metering's cost) rather than being charged at their start (counted loops).
//
// Each loop gets a mutable i64 global of its own, defined after the module's globals (so no index
// moves) and exported as `pixelgate.turns.<n>`; one is added to it on every turn, right after the
// loop's draw when it has one. Only for measuring: the counters slow the code down.

import { mapFunctionBodies, Reader, readImports, readSections, Writer } from "./wasm-binary.ts";
import { readInstructions } from "./wasm-counted-loops.ts";
import { drawCode, fuelGlobalIndex } from "./wasm-fuel.ts";

/** Where a counted loop is: its function's index (imports included) and its place among the function's loops. */
export interface LoopSite {
  func: number;
  loop: number;
  /** Whether it draws on every turn (else it is charged its turns before it starts). */
  draws: boolean;
}

export const TURNS_EXPORT = "pixelgate.turns.";

const SECTION = { import: 2, global: 6, export: 7, code: 10 } as const;
const LOOP = 0x03;

/** `metered` with a turn counter on each loop, and where each counter's loop is. */
export function withLoopCounters(metered: Uint8Array): { module: Uint8Array; loops: LoopSite[] } {
  const sections = readSections(metered);
  const importSection = sections.find((s) => s.id === SECTION.import)!;
  const fuel = fuelGlobalIndex(importSection);
  const imports = readImports(importSection.body);
  const functions = imports.filter((entry) => entry.kind === 0).length;
  const globals = imports.filter((entry) => entry.kind === 3).length;
  const defined = sections.find((s) => s.id === SECTION.global);
  const first = globals + (defined ? new Reader(defined.body).u32() : 0);
  const loops: LoopSite[] = [];

  const countTurns = (fn: Reader, f: number) => {
    const { bytes } = fn;
    const start = fn.at;
    for (let groups = fn.u32(); groups > 0; groups--) fn.u32(), fn.byte();
    const written = new Writer().bytes(bytes.subarray(start, fn.at));
    let from = fn.at;
    let ordinal = 0;
    for (const instruction of readInstructions(fn)) {
      if (instruction.op !== LOOP) continue;
      // A draw starts with local.get <allowance>; it is the whole draw when the bytes agree.
      const after = new Reader(bytes);
      after.at = instruction.end;
      const draw = after.byte() === 0x20 ? drawCode(fuel, after.u32()) : null;
      const draws = draw !== null && draw.every((b, i) => bytes[instruction.end + i] === b);
      const at = instruction.end + (draws ? draw!.length : 0);
      const counter = first + loops.length;
      written.bytes(bytes.subarray(from, at)).byte(0x23).u32(counter).byte(0x42).byte(1).byte(0x7c).byte(0x24).u32(counter);
      from = at;
      loops.push({ func: functions + f, loop: ordinal++, draws });
    }
    return written.bytes(bytes.subarray(from));
  };

  const codeBody = mapFunctionBodies(sections.find((s) => s.id === SECTION.code)!.body, countTurns);
  const out = new Writer().bytes(metered.subarray(0, 8));
  const put = (id: number, body: Uint8Array) => out.byte(id).u32(body.length).bytes(body);

  // The counters after the module's own globals, their exports after its own: the sections
  // made where the module has none, in their place in the order.
  const counted = (id: number, section: { body: Uint8Array } | undefined, entries: (w: Writer) => void) => {
    const r = section ? new Reader(section.body) : null;
    const w = new Writer().u32((r?.u32() ?? 0) + loops.length);
    if (r && section) w.bytes(section.body.subarray(r.at));
    entries(w);
    put(id, w.finish());
  };
  const globalsOf = (section?: { body: Uint8Array }) =>
    counted(SECTION.global, section, (w) => loops.forEach(() => w.byte(0x7e).byte(1).byte(0x42).byte(0).byte(0x0b))); // (mut i64) (i64.const 0)
  const exportsOf = (section?: { body: Uint8Array }) => counted(SECTION.export, section, (w) => loops.forEach((_, k) => w.name(TURNS_EXPORT + k).byte(3).u32(first + k)));
  const placed = new Set<number>();
  for (const section of sections) {
    const ordered = section.id !== 0;
    if (ordered && section.id > SECTION.global && !placed.has(SECTION.global)) globalsOf(), placed.add(SECTION.global);
    if (ordered && section.id > SECTION.export && !placed.has(SECTION.export)) exportsOf(), placed.add(SECTION.export);
    if (section.id === SECTION.code) put(section.id, codeBody);
    else if (section.id === SECTION.global) globalsOf(section), placed.add(section.id);
    else if (section.id === SECTION.export) exportsOf(section), placed.add(section.id);
    else put(section.id, section.body);
  }
  return { module: out.finish(), loops };
}
