// Meters a WebAssembly module: its loops draw fuel from a global the module imports
// (`pixelgate.fuel`, a mutable i64), and the instance traps (`unreachable`) when the fuel is
// gone. The worker hands each codec call's instances one such global (src/codecs/fuel.ts), so a
// call can run only so many loop turns, however its file makes the decoder's loops behave: the
// budget a Worker's clock cannot give (it stands still while synchronous code runs) and a WASM
// decoder cannot be stopped from outside.
//
// How a loop pays, one unit per turn, in one of two ways:
// - A counted loop (scripts/wasm-counted-loops.ts: a counter stepped toward a bound, no other
//   way out; 40 to 74% of the loops of the npm codecs' modules), is charged all its turns
//   before it starts, computed from the counter and the bound, and traps then if they
//   are more than the fuel left. Its turns cost nothing more.
// - Any other loop draws on every turn from an allowance, an i32 local of its function (0 at
//   each call): a turn takes one from it; when it is 0, the turn first takes CHUNK units from
//   the global (trapping once that goes below 0) and sets the allowance to CHUNK, written inline
//   in the loop (V8 does not unroll a loop with a call in it). So the hot path is a register
//   decrement and a branch (a counter in memory, decremented every turn, made AVIF's tight
//   loops 50 to 130% slower).
// What the global counts is loop turns, plus up to CHUNK per call of a function whose drawing
// loops ran: a deterministic measure of work, which src/codecs/work-steps.json relates to the
// pixels of a call's work.
//
// Run on our own modules by scripts/build-wasm.sh and scripts/build-hevc-wasm.sh (the committed
// .wasm are metered) and on the npm codecs' modules by scripts/patch-codecs.ts at install.
// Idempotent: a metered module carries a `pixelgate.fuel` custom section and is left as it is.
//
//   node scripts/wasm-fuel.ts <in.wasm> [out.wasm]   (out defaults to in)
//
// What else changes in the module: one global import is appended (so every defined global's
// index moves up by one: global.get/global.set in the code, global exports, and the global names
// of the `name` section are renumbered; constant expressions can only name imported globals,
// whose indices stay); DWARF sections, whose code offsets would no longer hold, are dropped. No
// function or type is added, so no function index moves. Every function gets two locals at the
// end of its own: the i64 a charge computes the turns in, and the allowance.

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mapFunctionBodies, Reader, readImports, readSections, Writer, type Section } from "./wasm-binary.ts";
import { chargeCode, countedLoop, matchingEnds, readInstructions } from "./wasm-counted-loops.ts";

export const FUEL_MODULE = "pixelgate";
export const FUEL_NAME = "fuel";
const MARKER = "pixelgate.fuel";

const SECTION = { custom: 0, type: 1, import: 2, function: 3, export: 7, code: 10 } as const;
const EXTERNAL = { func: 0, table: 1, memory: 2, global: 3, tag: 4 } as const;
const I32 = 0x7f;
const I64 = 0x7e;
const FUNC_TYPE = 0x60;
/** Units a loop takes from the global when its allowance is out, and the allowance it sets. */
export const CHUNK = 64;
const MUTABLE = 1;
const OP_LOOP = 0x03;
const OP_GLOBAL_GET = 0x23;
const OP_GLOBAL_SET = 0x24;
/** The metering's form, in its marker section: 2 since loops are charged before they start when their turns are known. */
const FORM = 2;

const customName = (section: Section): string | null => (section.id === SECTION.custom ? new Reader(section.body).name() : null);

/** The form `module` was metered in (FORM), or null when it is not metered. */
function meteringForm(sections: Section[]): number | null {
  const marker = sections.find((s) => customName(s) === MARKER);
  if (!marker) return null;
  const r = new Reader(marker.body);
  r.name();
  return r.byte();
}

/** Whether `module` is already metered. */
export function isMetered(module: Uint8Array): boolean {
  return meteringForm(readSections(module)) !== null;
}

/** Throws for a module metered in an earlier form, which can be neither metered again nor stripped. */
function assertCurrentForm(form: number | null): void {
  if (form !== null && form !== FORM) throw new Error(`metered by an earlier scripts/wasm-fuel.ts (form ${form}, now ${FORM}): to meter it afresh, reinstall its package (rm -rf node_modules/@jsquash node_modules/libheif-js && npm install) or rebuild it (scripts/build-wasm.sh)`);
}

/** The import section with the fuel global appended; how many globals were imported before it. */
function withFuelImport(section: Section | undefined): { body: Uint8Array; importedGlobals: number } {
  const entries = section ? readImports(section.body) : [];
  const out = new Writer().u32(entries.length + 1);
  for (const entry of entries) out.bytes(entry.bytes);
  out.name(FUEL_MODULE).name(FUEL_NAME).byte(EXTERNAL.global).byte(I64).byte(MUTABLE);
  return { body: out.finish(), importedGlobals: entries.filter((entry) => entry.kind === EXTERNAL.global).length };
}

/** The index of a metered module's fuel global (its imported globals come first, in order). */
export function fuelGlobalIndex(section: Section): number {
  const globals = readImports(section.body).filter((entry) => entry.kind === EXTERNAL.global);
  const index = globals.findIndex((entry) => entry.module === FUEL_MODULE && entry.name === FUEL_NAME);
  if (index < 0) throw new Error("not a metered module: no fuel import");
  return index;
}

/** The export section with global exports renumbered. */
function renumberExports(section: Section, global: (index: number) => number): Uint8Array {
  const r = new Reader(section.body);
  const out = new Writer();
  const count = r.u32();
  out.u32(count);
  for (let i = 0; i < count; i++) {
    out.name(r.name());
    const kind = r.byte();
    const index = r.u32();
    out.byte(kind).u32(kind === EXTERNAL.global ? global(index) : index);
  }
  return out.finish();
}

/** The `name` section without its global names (subsection 7), whose indices would be off by one. */
function withoutGlobalNames(section: Section): Uint8Array {
  const r = new Reader(section.body);
  const out = new Writer().name(r.name());
  while (!r.done) {
    const id = r.byte();
    const body = r.take(r.u32());
    if (id !== 7) out.byte(id).u32(body.length).bytes(body);
  }
  return out.finish();
}

/** Each function type's parameter count. */
function readParamCounts(section: Section | undefined): number[] {
  const params: number[] = [];
  if (!section) return params;
  const r = new Reader(section.body);
  for (let n = r.u32(); n > 0; n--) {
    if (r.byte() !== FUNC_TYPE) throw new Error("only function types are supported");
    const paramCount = r.u32();
    r.take(paramCount);
    r.take(r.u32());
    params.push(paramCount);
  }
  return params;
}

/** Each defined function's type index (the function section). */
function functionTypes(section: Section): number[] {
  const r = new Reader(section.body);
  return Array.from({ length: r.u32() }, () => r.u32());
}

interface Metering {
  fuel: number;
  global: (index: number) => number;
}

/**
 * One function body metered: each counted loop (wasm-counted-loops.ts) charged its turns before
 * it starts, every other loop drawing on the allowance each turn. With `strip`, a metered body
 * given back without its charges, draws and metering locals (unmeteredCopy), its globals left as
 * they are.
 */
function meterBody(r: Reader, params: number, { fuel, global }: Metering, strip = false): Writer {
  const out = new Writer();
  // The locals, with two more at the end: the i64 a charge counts the turns in, and the allowance.
  const groups = r.u32();
  const kept = strip ? groups - 2 : groups;
  let locals = 0;
  const declared = new Writer().u32(strip ? kept : groups + 2);
  for (let i = 0; i < groups; i++) {
    const n = r.u32();
    const type = r.byte();
    if (i < kept) {
      locals += n;
      declared.u32(n).byte(type);
    } else if (n !== 1 || type !== (i === groups - 1 ? I32 : I64)) throw new Error("not a metered function: its last locals are not the metering's");
  }
  const turns = params + locals;
  const allowance = turns + 1;
  if (!strip) declared.u32(1).byte(I64).u32(1).byte(I32);
  out.bytes(declared.finish());
  const draw = drawCode(fuel, allowance);
  const code = readInstructions(r);
  const ends = matchingEnds(code);
  let from = code[0]?.at ?? r.at;
  const copyTo = (at: number) => {
    out.bytes(r.bytes.subarray(from, at));
    from = at;
  };
  for (let i = 0; i < code.length; i++) {
    const { op, at, end, index } = code[i]!;
    if (strip && op === OP_GLOBAL_GET && index === fuel) {
      // A charge: everything up to the loop it is for.
      copyTo(at);
      while (code[i + 1]!.op !== OP_LOOP) i++;
      from = code[i]!.end;
    } else if (op === OP_LOOP) {
      const counted = strip ? null : countedLoop(code, i, ends.get(i)!);
      copyTo(at);
      if (counted) out.bytes(chargeCode(counted, fuel, turns));
      copyTo(end);
      if (strip && draw.every((b, k) => r.bytes[end + k] === b)) {
        while (code[i + 1]!.end <= end + draw.length) i++;
        from = end + draw.length;
      } else if (!strip && !counted) out.bytes(draw);
    } else if ((op === OP_GLOBAL_GET || op === OP_GLOBAL_SET) && !strip) {
      copyTo(at + 1);
      out.u32(global(index));
      from = end;
    }
  }
  copyTo(r.bytes.length);
  return out;
}

/**
 * A loop turn's draw: if (allowance == 0) { fuel -= CHUNK; if (fuel < 0) unreachable;
 * allowance = CHUNK } allowance -= 1. Inline, not a call: a loop with a call in it is not
 * unrolled by V8.
 */
export function drawCode(fuel: number, allowance: number): Uint8Array {
  return new Writer()
    .byte(0x20).u32(allowance).byte(0x45).byte(0x04).byte(0x40)
    .byte(0x23).u32(fuel).byte(0x42).s32(CHUNK).byte(0x7d).byte(0x24).u32(fuel)
    .byte(0x23).u32(fuel).byte(0x42).byte(0x00).byte(0x53).byte(0x04).byte(0x40).byte(0x00).byte(0x0b)
    .byte(0x41).s32(CHUNK).byte(0x21).u32(allowance)
    .byte(0x0b)
    .byte(0x20).u32(allowance).byte(0x41).byte(0x01).byte(0x6b).byte(0x21).u32(allowance)
    .finish();
}

/**
 * A metered module with its loops' draws taken out again (the fuel import and the renumbered
 * globals stay, unused): the same code as before metering, which
 * `npm run bench:compare` times the metered module against.
 */
export function unmeteredCopy(module: Uint8Array): Uint8Array {
  const sections = readSections(module);
  const form = meteringForm(sections);
  if (form === null) throw new Error("not a metered module");
  assertCurrentForm(form);
  const params = readParamCounts(sections.find((s) => s.id === SECTION.type));
  const types = functionTypes(sections.find((s) => s.id === SECTION.function)!);
  const metering: Metering = { fuel: fuelGlobalIndex(sections.find((s) => s.id === SECTION.import)!), global: (index) => index };
  const out = new Writer().bytes(module.subarray(0, 8));
  for (const section of sections) {
    let body = section.body;
    if (section.id === SECTION.code) body = mapFunctionBodies(section.body, (reader, i) => meterBody(reader, params[types[i]!]!, metering, true));
    out.byte(section.id).u32(body.length).bytes(body);
  }
  return out.finish();
}

/** `module` metered (see the head of this file); a metered module comes back as it is. */
export function meterModule(module: Uint8Array): Uint8Array {
  const sections = readSections(module);
  const form = meteringForm(sections);
  assertCurrentForm(form);
  if (form !== null) return module;
  const { body: importBody, importedGlobals } = withFuelImport(sections.find((s) => s.id === SECTION.import));
  const functionSection = sections.find((s) => s.id === SECTION.function);
  if (!functionSection) return module; // no code, nothing to meter
  const params = readParamCounts(sections.find((s) => s.id === SECTION.type));
  const metering: Metering = { fuel: importedGlobals, global: (index) => (index < importedGlobals ? index : index + 1) };
  const paramCounts = functionTypes(functionSection).map((type) => params[type]!);
  const out = new Writer().bytes(module.subarray(0, 8));
  const put = (id: number, body: Uint8Array) => out.byte(id).u32(body.length).bytes(body);
  let importWritten = false;
  for (const section of sections) {
    const name = customName(section);
    if (name !== null && (name.startsWith(".debug") || name === "sourceMappingURL" || name === "external_debug_info")) continue;
    if (!importWritten && section.id !== SECTION.custom && section.id > SECTION.import) {
      put(SECTION.import, importBody);
      importWritten = true;
    }
    if (section.id === SECTION.import) {
      put(SECTION.import, importBody);
      importWritten = true;
    } else if (section.id === SECTION.export) put(section.id, renumberExports(section, metering.global));
    else if (section.id === SECTION.code) put(section.id, mapFunctionBodies(section.body, (body, i) => meterBody(body, paramCounts[i]!, metering)));
    else if (name === "name") put(SECTION.custom, withoutGlobalNames(section));
    else put(section.id, section.body);
  }
  put(SECTION.custom, new Writer().name(MARKER).byte(FORM).finish());
  return out.finish();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [input, output = input] = process.argv.slice(2);
  if (!input) {
    console.error("usage: node scripts/wasm-fuel.ts <in.wasm> [out.wasm]");
    process.exit(2);
  }
  const before = readFileSync(input);
  const after = meterModule(before);
  if (after === before) console.log(`wasm-fuel: ${input}: already metered`);
  else {
    writeFileSync(output!, after);
    console.log(`wasm-fuel: ${output}: metered (${before.length} -> ${after.length} bytes)`);
  }
}
