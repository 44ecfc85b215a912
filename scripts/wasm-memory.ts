// Lowers the initial linear memory of an Emscripten module to what its static data and stack
// take, so an instance starts small and grows as its allocator asks (src/codecs/wasm.ts grows it
// to the size asked, no more). The jsquash codecs and libheif-js were built with Emscripten's
// default INITIAL_MEMORY of 16 MB, so every instance held 16 MB before it had decoded a byte:
// libheif's data and stack fit in 0.2 MB, MozJPEG's decoder's in 0.1 MB. Run on the npm codecs'
// modules by scripts/patch-codecs.ts at install. Idempotent.
//
// The layout it relies on, Emscripten's: static data at the bottom, then the stack, whose top is
// the first global's initial value (__stack_pointer), then the heap, which malloc grows with
// emscripten_resize_heap when it needs more than the memory holds. The new minimum is that top
// (or the data's end, if higher) rounded up to a page, plus one page.

import { readSections, Reader, Writer, type Section } from "./wasm-binary.ts";

const PAGE = 65_536;
const SECTION = { global: 6, memory: 5, data: 11 } as const;
const I32_CONST = 0x41;

/** The first global's initial value when it is an i32.const (the stack's top); 0 otherwise. */
function stackTop(section: Section | undefined): number {
  if (!section) return 0;
  const r = new Reader(section.body);
  if (r.u32() === 0) return 0;
  r.byte(); // type
  r.byte(); // mutability
  return r.byte() === I32_CONST ? r.s32() : 0;
}

/** Where the active data segments with constant offsets end. */
function dataEnd(section: Section | undefined): number {
  if (!section) return 0;
  const r = new Reader(section.body);
  let end = 0;
  for (let n = r.u32(); n > 0; n--) {
    const flags = r.u32();
    let offset = 0;
    if (flags === 0 || flags === 2) {
      if (flags === 2) r.u32();
      if (r.byte() !== I32_CONST) throw new Error("a data segment's offset is not a constant");
      offset = r.s32();
      if (r.byte() !== 0x0b) throw new Error("a data segment's offset is not one constant");
    }
    const length = r.u32();
    r.take(length);
    if (flags !== 1) end = Math.max(end, offset + length);
  }
  return end;
}

/** `module` starting with the least memory its data and stack need; as it is when that is not less. */
export function withLeastInitialMemory(module: Uint8Array): Uint8Array {
  const sections = readSections(module);
  const memory = sections.find((s) => s.id === SECTION.memory);
  if (!memory) return module;
  const r = new Reader(memory.body);
  if (r.u32() !== 1) return module;
  const flags = r.byte();
  const min = r.u32();
  const max = flags & 1 ? r.u32() : null;
  const needed = Math.ceil(Math.max(stackTop(sections.find((s) => s.id === SECTION.global)), dataEnd(sections.find((s) => s.id === SECTION.data))) / PAGE) + 1;
  if (needed >= min) return module;
  const body = new Writer().u32(1).byte(flags).u32(needed);
  if (max !== null) body.u32(max);
  const out = new Writer().bytes(module.subarray(0, 8));
  for (const section of sections) {
    const bytes = section === memory ? body.finish() : section.body;
    out.byte(section.id).u32(bytes.length).bytes(bytes);
  }
  return out.finish();
}
