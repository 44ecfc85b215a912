// scripts/wasm-fuel.ts on a module built here byte by byte (a counting loop that also bumps a
// defined global, beside an imported one), and on the committed codec modules.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHUNK, isMetered, meterModule, unmeteredCopy } from "../../scripts/wasm-fuel.ts";
import { leb, name, section, vec, WebAssembly, type WasmGlobal, type WasmImports } from "./wasm-module-kit.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * (import "env" "base" (global i32))          ;; global 0, imported
 * (global $turns (mut i32) (global.get 0))    ;; global 1, defined
 * (func (export "count") (param $n i32) (result i32) (local $i i32)
 *   block  loop
 *     local.get $i  local.get $n  i32.ge_u  br_if 1
 *     local.get $i  i32.const 1  i32.add  local.set $i
 *     global.get $turns  i32.const 1  i32.add  global.set $turns
 *     br 0
 *   end  end
 *   local.get $i)
 * (export "turns" (global $turns))
 */
function countingModule(withImport: boolean): Uint8Array {
  const turns = withImport ? 1 : 0;
  const body = [
    ...vec([[1, 0x7f]]), // one i32 local
    0x02, 0x40, 0x03, 0x40,
    0x20, 1, 0x20, 0, 0x4f, 0x0d, 1,
    0x20, 1, 0x41, 1, 0x6a, 0x21, 1,
    0x23, turns, 0x41, 1, 0x6a, 0x24, turns,
    0x0c, 0,
    0x0b, 0x0b,
    0x20, 1, 0x0b,
  ];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 1, 0x7f, 1, 0x7f]])),
    ...(withImport ? section(2, vec([[...name("env"), ...name("base"), 0x03, 0x7f, 0x00]])) : []),
    ...section(3, vec([[0]])),
    ...section(6, vec([[0x7f, 0x01, ...(withImport ? [0x23, 0] : [0x41, 0]), 0x0b]])),
    ...section(7, vec([[...name("count"), 0x00, 0], [...name("turns"), 0x03, turns]])),
    ...section(10, vec([[...leb(body.length), ...body]])),
  ]);
}

function instantiate(module: Uint8Array, fuel: bigint, withImport: boolean) {
  const global = new WebAssembly.Global({ value: "i64", mutable: true }, fuel);
  const imports: WasmImports = { pixelgate: { fuel: global } };
  if (withImport) imports.env = { base: new WebAssembly.Global({ value: "i32", mutable: false }, 0) };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(module), imports);
  const exports = instance.exports as { count: (n: number) => number; turns: WasmGlobal };
  return { ...exports, fuel: global };
}

describe("wasm-fuel: metering a module", () => {
  for (const withImport of [true, false]) {
    describe(withImport ? "a module that imports a global" : "a module with no imports", () => {
      const metered = meterModule(countingModule(withImport));

      it("still validates, runs as before, and its renumbered global is the one the code bumps", () => {
        expect(WebAssembly.validate(countingModule(withImport))).toBe(true);
        expect(WebAssembly.validate(metered)).toBe(true);
        const run = instantiate(metered, 1_000_000n, withImport);
        expect(run.count(1000)).toBe(1000);
        expect(run.turns.value).toBe(1000);
      });

      it("spends one unit per loop turn, taken from the global a chunk at a time", () => {
        const run = instantiate(metered, 1_000_000n, withImport);
        run.count(1000); // 1001 turns: the last one leaves the loop
        expect(1_000_000n - (run.fuel.value as bigint)).toBe(BigInt(Math.ceil(1001 / CHUNK) * CHUNK));
      });

      it("traps once the fuel is gone, having run no more turns than it was given", () => {
        const run = instantiate(metered, 500n, withImport);
        expect(() => run.count(1_000_000)).toThrow(WebAssembly.RuntimeError);
        expect((run.fuel.value as bigint) < 0n).toBe(true);
        expect(run.turns.value as number).toBeLessThanOrEqual(500 + CHUNK);
        expect(run.turns.value as number).toBeGreaterThanOrEqual(500 - CHUNK);
      });

      it("is idempotent and marks what it metered", () => {
        expect(isMetered(countingModule(withImport))).toBe(false);
        expect(isMetered(metered)).toBe(true);
        expect(meterModule(metered)).toBe(metered);
      });
    });
  }

  it("a metered module cannot be instantiated without its fuel", () => {
    const module = new WebAssembly.Module(meterModule(countingModule(false)));
    expect(() => new WebAssembly.Instance(module, {})).toThrow();
  });
});

describe("wasm-fuel: the committed codec modules", () => {
  for (const file of ["src/codecs/native/pixelgate-codecs.wasm", "src/codecs/native/pixelgate-hevc.wasm"]) {
    it(`${path.basename(file)} is metered and imports the fuel`, () => {
      const bytes = readFileSync(path.join(ROOT, file));
      expect(isMetered(bytes)).toBe(true);
      const imports = WebAssembly.Module.imports(new WebAssembly.Module(bytes));
      expect(imports).toContainEqual({ module: "pixelgate", name: "fuel", kind: "global" });
    });
  }
});

describe("wasm-fuel: the unmetered copy bench:compare times against", () => {
  it("runs the same code with no draws: it spends no fuel and does not trap", () => {
    const copy = unmeteredCopy(meterModule(countingModule(true)));
    expect(WebAssembly.validate(copy)).toBe(true);
    const run = instantiate(copy, 10n, true);
    expect(run.count(1000)).toBe(1000);
    expect(run.turns.value).toBe(1000);
    expect(run.fuel.value).toBe(10n);
  });

  it("the committed codec module's copy validates", () => {
    const bytes = readFileSync(path.join(ROOT, "src/codecs/native/pixelgate-codecs.wasm"));
    expect(WebAssembly.validate(unmeteredCopy(bytes))).toBe(true);
    expect(() => unmeteredCopy(countingModule(false))).toThrow(/not a metered module/);
  });
});
