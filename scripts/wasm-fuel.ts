// Meters a WebAssembly module: its loops draw fuel from a global the module imports
// (`pixelgate.fuel`, a mutable i64), and the instance traps (`unreachable`) when the fuel is
// gone. The worker hands each codec call's instances one such global (src/codecs/fuel.ts), so a
// call can run only so many loop turns, however its file makes the decoder's loops behave: the
// budget a Worker's clock cannot give (it stands still while synchronous code runs) and a WASM
// decoder cannot be stopped from outside.
//
// How a loop draws: every function gets one more local, an i32 allowance (0 at each call). Each
// loop turn takes one from it; when it is 0, the turn first takes CHUNK units from the global
// (trapping once that goes below 0) and sets the allowance to CHUNK, written inline in the loop
// (V8 does not unroll a loop with a call in it). So the hot path is a register decrement and a
// branch (a counter in memory, decremented every turn, made AVIF's tight loops 50 to 130%
// slower), and what the global counts is loop turns plus up to CHUNK per call of a function
// whose loops ran: a deterministic measure of work, which src/codecs/work-steps.json relates to
// the pixels of a call's work.
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
// function or type is added, so no function index moves.

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

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

export class Reader {
  at = 0;
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  get done(): boolean {
    return this.at >= this.bytes.length;
  }
  byte(): number {
    if (this.at >= this.bytes.length) throw new Error("unexpected end of module");
    return this.bytes[this.at++]!;
  }
  /** An unsigned LEB128 (up to 32 bits). */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new Error("LEB128 too long");
    }
  }
  /** Skips a LEB128 of any length and sign. */
  skipLeb(): void {
    while (this.byte() & 0x80);
  }
  take(length: number): Uint8Array {
    if (this.at + length > this.bytes.length) throw new Error("unexpected end of module");
    const out = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }
  name(): string {
    return new TextDecoder().decode(this.take(this.u32()));
  }
}

export class Writer {
  private readonly chunks: number[] = [];
  private readonly parts: Uint8Array[] = [];
  private length = 0;
  byte(b: number): this {
    this.chunks.push(b);
    return this;
  }
  u32(value: number): this {
    let v = value;
    do {
      const b = v % 128;
      v = Math.floor(v / 128);
      this.byte(v > 0 ? b | 0x80 : b);
    } while (v > 0);
    return this;
  }
  bytes(data: Uint8Array): this {
    this.flush();
    this.parts.push(data);
    this.length += data.length;
    return this;
  }
  /** A signed LEB128 (i32.const and i64.const immediates). */
  s32(value: number): this {
    let v = value;
    for (;;) {
      const b = v & 0x7f;
      v >>= 7;
      const done = (v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0);
      this.byte(done ? b : b | 0x80);
      if (done) return this;
    }
  }
  name(text: string): this {
    const data = new TextEncoder().encode(text);
    return this.u32(data.length).bytes(data);
  }
  /** What was written, prefixed by its length. */
  sized(): Uint8Array {
    const body = this.finish();
    return new Writer().u32(body.length).bytes(body).finish();
  }
  finish(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
  private flush(): void {
    if (this.chunks.length === 0) return;
    this.parts.push(Uint8Array.from(this.chunks));
    this.length += this.chunks.length;
    this.chunks.length = 0;
  }
}

export interface Section {
  id: number;
  body: Uint8Array;
}

export function readSections(module: Uint8Array): Section[] {
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (!header.every((b, i) => module[i] === b)) throw new Error("not a WebAssembly 1.0 module");
  const r = new Reader(module);
  r.at = 8;
  const sections: Section[] = [];
  while (!r.done) {
    const id = r.byte();
    sections.push({ id, body: r.take(r.u32()) });
  }
  return sections;
}

const customName = (section: Section): string | null => (section.id === SECTION.custom ? new Reader(section.body).name() : null);

/** Whether `module` is already metered. */
export function isMetered(module: Uint8Array): boolean {
  return readSections(module).some((s) => customName(s) === MARKER);
}

/** The import section with the fuel global appended; how many globals were imported before it. */
function withFuelImport(section: Section | undefined): { body: Uint8Array; importedGlobals: number } {
  const out = new Writer();
  let count = 0;
  let importedGlobals = 0;
  const entries = new Writer();
  if (section) {
    const r = new Reader(section.body);
    count = r.u32();
    for (let i = 0; i < count; i++) {
      const start = r.at;
      r.name();
      r.name();
      const kind = r.byte();
      if (kind === EXTERNAL.func || kind === EXTERNAL.tag) {
        if (kind === EXTERNAL.tag) r.byte();
        r.u32();
      } else if (kind === EXTERNAL.table) {
        r.byte();
        skipLimits(r);
      } else if (kind === EXTERNAL.memory) {
        skipLimits(r);
      } else if (kind === EXTERNAL.global) {
        r.byte();
        r.byte();
        importedGlobals++;
      } else throw new Error(`unknown import kind ${kind}`);
      entries.bytes(section.body.subarray(start, r.at));
    }
  }
  entries.name(FUEL_MODULE).name(FUEL_NAME).byte(EXTERNAL.global).byte(I64).byte(MUTABLE);
  out.u32(count + 1).bytes(entries.finish());
  return { body: out.finish(), importedGlobals };
}

function skipLimits(r: Reader): void {
  const flags = r.byte();
  r.u32();
  if (flags & 1) r.u32();
}

/** The index of a metered module's fuel global (its imported globals come first, in order). */
function fuelGlobalIndex(section: Section): number {
  const r = new Reader(section.body);
  let globals = 0;
  for (let i = r.u32(); i > 0; i--) {
    const module = r.name();
    const name = r.name();
    const kind = r.byte();
    if (kind === EXTERNAL.func) r.u32();
    else if (kind === EXTERNAL.tag) {
      r.byte();
      r.u32();
    } else if (kind === EXTERNAL.table) {
      r.byte();
      skipLimits(r);
    } else if (kind === EXTERNAL.memory) skipLimits(r);
    else {
      r.byte();
      r.byte();
      if (module === FUEL_MODULE && name === FUEL_NAME) return globals;
      globals++;
    }
  }
  throw new Error("not a metered module: no fuel import");
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

/** The code section with every loop drawing on its function's allowance, and globals renumbered. */
function meterCode(section: Section, paramCounts: number[], metering: Metering): Uint8Array {
  const r = new Reader(section.body);
  const count = r.u32();
  const out = new Writer().u32(count);
  for (let i = 0; i < count; i++) {
    const size = r.u32();
    const end = r.at + size;
    const body = new Reader(r.bytes.subarray(0, end));
    body.at = r.at;
    out.bytes(meterBody(body, paramCounts[i]!, metering).sized());
    r.at = end;
  }
  return out.finish();
}

/**
 * One function body metered; with `strip`, a metered body given back without its draws and its
 * allowance (unmeteredCopy), its globals left as they are.
 */
function meterBody(r: Reader, params: number, { fuel, global }: Metering, strip = false): Writer {
  const out = new Writer();
  // The locals, with the allowance as one more i32 at the end.
  const groups = r.u32();
  const kept = strip ? groups - 1 : groups;
  let locals = 0;
  const declared = new Writer().u32(strip ? kept : groups + 1);
  for (let i = 0; i < groups; i++) {
    const n = r.u32();
    const type = r.byte();
    if (i < kept) {
      locals += n;
      declared.u32(n).byte(type);
    } else if (n !== 1 || type !== I32) throw new Error("not a metered function: its last local is not the allowance");
  }
  const allowance = params + locals;
  if (!strip) declared.u32(1).byte(I32);
  out.bytes(declared.finish());
  // if (allowance == 0) { fuel -= CHUNK; if (fuel < 0) unreachable; allowance = CHUNK } allowance -= 1
  // (inline, not a call: a loop with a call in it is not unrolled by V8)
  const draw = new Writer()
    .byte(0x20).u32(allowance).byte(0x45).byte(0x04).byte(0x40)
    .byte(0x23).u32(fuel).byte(0x42).s32(CHUNK).byte(0x7d).byte(0x24).u32(fuel)
    .byte(0x23).u32(fuel).byte(0x42).byte(0x00).byte(0x53).byte(0x04).byte(0x40).byte(0x00).byte(0x0b)
    .byte(0x41).s32(CHUNK).byte(0x21).u32(allowance)
    .byte(0x0b)
    .byte(0x20).u32(allowance).byte(0x41).byte(0x01).byte(0x6b).byte(0x21).u32(allowance)
    .finish();
  let from = r.at;
  const copy = () => {
    out.bytes(r.bytes.subarray(from, r.at));
  };
  while (!r.done) {
    const op = r.byte();
    if (op === 0x03) {
      r.skipLeb(); // block type
      copy();
      if (strip) {
        if (!draw.every((b, i) => r.bytes[r.at + i] === b)) throw new Error("not a metered function: a loop does not start with its draw");
        r.at += draw.length;
      } else out.bytes(draw);
      from = r.at;
    } else if ((op === 0x23 || op === 0x24) && !strip) {
      const start = r.at;
      const index = r.u32();
      r.at = start;
      copy();
      r.u32();
      out.u32(global(index));
      from = r.at;
    } else skipImmediates(r, op);
  }
  copy();
  return out;
}

/**
 * A metered module with its loops' draws taken out again (the fuel import and the renumbered
 * globals stay, unused): the same code as before metering, which
 * `npm run bench:compare` times the metered module against.
 */
export function unmeteredCopy(module: Uint8Array): Uint8Array {
  const sections = readSections(module);
  if (!sections.some((s) => customName(s) === MARKER)) throw new Error("not a metered module");
  const params = readParamCounts(sections.find((s) => s.id === SECTION.type));
  const types = functionTypes(sections.find((s) => s.id === SECTION.function)!);
  const metering: Metering = { fuel: fuelGlobalIndex(sections.find((s) => s.id === SECTION.import)!), global: (index) => index };
  const out = new Writer().bytes(module.subarray(0, 8));
  for (const section of sections) {
    let body = section.body;
    if (section.id === SECTION.code) {
      const code = new Reader(section.body);
      const count = code.u32();
      const bodies = new Writer().u32(count);
      for (let i = 0; i < count; i++) {
        const size = code.u32();
        const end = code.at + size;
        const reader = new Reader(code.bytes.subarray(0, end));
        reader.at = code.at;
        bodies.bytes(meterBody(reader, params[types[i]!]!, metering, true).sized());
        code.at = end;
      }
      body = bodies.finish();
    }
    out.byte(section.id).u32(body.length).bytes(body);
  }
  return out.finish();
}

/** Skips the immediates of the instruction `op` (its opcode byte already read). */
function skipImmediates(r: Reader, op: number): void {
  if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x19 || op === 0x1a || op === 0x1b || op === 0xd1) return;
  if (op === 0x02 || op === 0x04 || op === 0x06) return r.skipLeb(); // block, if, try: block type
  if ((op >= 0x07 && op <= 0x09) || op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || op === 0x18 || op === 0xd2) return r.skipLeb();
  if ((op >= 0x20 && op <= 0x26) || op === 0x3f || op === 0x40) return r.skipLeb();
  if (op === 0x0e) {
    const n = r.u32();
    for (let i = 0; i <= n; i++) r.skipLeb();
    return;
  }
  if (op === 0x11 || op === 0x13) {
    r.skipLeb();
    r.skipLeb();
    return;
  }
  if (op === 0x1c) {
    const n = r.u32();
    r.take(n);
    return;
  }
  if (op >= 0x28 && op <= 0x3e) {
    r.skipLeb();
    r.skipLeb();
    return;
  }
  if (op === 0x41 || op === 0x42) return r.skipLeb();
  if (op === 0x43) return void r.take(4);
  if (op === 0x44) return void r.take(8);
  if (op >= 0x45 && op <= 0xc4) return;
  if (op === 0xd0) return void r.byte();
  if (op === 0xfc) return skipMisc(r, r.u32());
  if (op === 0xfd) return skipSimd(r, r.u32());
  if (op === 0xfe) return skipAtomic(r, r.u32());
  throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${r.at - 1}`);
}

function skipMisc(r: Reader, sub: number): void {
  if (sub <= 7) return;
  const immediates: Record<number, number> = { 8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1 };
  const n = immediates[sub];
  if (n === undefined) throw new Error(`unknown 0xfc instruction ${sub}`);
  for (let i = 0; i < n; i++) r.skipLeb();
}

function skipSimd(r: Reader, sub: number): void {
  const memarg = () => {
    r.skipLeb();
    r.skipLeb();
  };
  if (sub <= 11 || sub === 92 || sub === 93) return memarg();
  if (sub === 12 || sub === 13) return void r.take(16);
  if (sub >= 21 && sub <= 34) return void r.byte();
  if (sub >= 84 && sub <= 91) {
    memarg();
    r.byte();
  }
}

function skipAtomic(r: Reader, sub: number): void {
  if (sub === 0x03) return void r.byte();
  r.skipLeb();
  r.skipLeb();
}

/** `module` metered (see the head of this file); a metered module comes back as it is. */
export function meterModule(module: Uint8Array): Uint8Array {
  const sections = readSections(module);
  if (sections.some((s) => customName(s) === MARKER)) return module;
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
    else if (section.id === SECTION.code) put(section.id, meterCode(section, paramCounts, metering));
    else if (name === "name") put(SECTION.custom, withoutGlobalNames(section));
    else put(section.id, section.body);
  }
  put(SECTION.custom, new Writer().name(MARKER).byte(1).finish());
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
