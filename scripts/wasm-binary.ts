// Reading and writing WebAssembly binaries: the LEB128 reader and writer, the sections, and the
// immediates of every instruction the codec modules use (MVP, bulk memory, SIMD, threads, tail
// calls, exceptions), an import section's entries and a code section's function bodies, for
// scripts/wasm-fuel.ts, wasm-loop-turns.ts and wasm-memory.ts.

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
  /** A signed LEB128 (an i32.const immediate). */
  s32(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.byte();
      result |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80 && shift < 35);
    if (b & 0x80) throw new Error("LEB128 too long");
    return shift < 32 && b & 0x40 ? result | (-1 << shift) : result;
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
  /** A signed LEB128 of up to 64 bits (i64.const immediates). */
  s64(value: bigint): this {
    let v = BigInt.asIntN(64, value);
    for (;;) {
      const b = Number(v & 0x7fn);
      v >>= 7n;
      const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
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

/** An import: its names, its kind (0 function, 1 table, 2 memory, 3 global, 4 tag), and its bytes. */
export interface ImportEntry {
  module: string;
  name: string;
  kind: number;
  bytes: Uint8Array;
}

/** The entries of an import section. */
export function readImports(body: Uint8Array): ImportEntry[] {
  const r = new Reader(body);
  const limits = () => {
    const flags = r.byte();
    r.u32();
    if (flags & 1) r.u32();
  };
  return Array.from({ length: r.u32() }, () => {
    const start = r.at;
    const module = r.name();
    const name = r.name();
    const kind = r.byte();
    if (kind === 0) r.u32();
    else if (kind === 1) r.byte(), limits();
    else if (kind === 2) limits();
    else if (kind === 3) r.byte(), r.byte();
    else if (kind === 4) r.byte(), r.u32();
    else throw new Error(`unknown import kind ${kind}`);
    return { module, name, kind, bytes: body.subarray(start, r.at) };
  });
}

/**
 * A code section with each function body rewritten: `rewrite` is given a reader on the body
 * (its locals first, ending where the body ends) and the function's place in the section, and
 * returns the new body; the sizes are written anew.
 */
export function mapFunctionBodies(code: Uint8Array, rewrite: (body: Reader, index: number) => Writer): Uint8Array {
  const r = new Reader(code);
  const count = r.u32();
  const out = new Writer().u32(count);
  for (let i = 0; i < count; i++) {
    const end = r.u32() + r.at;
    const body = new Reader(r.bytes.subarray(0, end));
    body.at = r.at;
    out.bytes(rewrite(body, i).sized());
    r.at = end;
  }
  return out.finish();
}

/** Skips the immediates of the instruction `op` (its opcode byte already read). */
export function skipImmediates(r: Reader, op: number): void {
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
