// Building small WebAssembly modules byte by byte, for the tests of scripts/wasm-fuel.ts.

// The slice of the WebAssembly API used here (the Node type check has no DOM lib to declare it).
export interface WasmGlobal {
  value: unknown;
}
export type WasmImports = Record<string, Record<string, unknown>>;
interface WasmApi {
  Module: { new (bytes: Uint8Array): object; imports(module: object): { module: string; name: string; kind: string }[] };
  Instance: new (module: object, imports: WasmImports) => { exports: Record<string, unknown> };
  Global: new (descriptor: { value: string; mutable: boolean }, value: unknown) => WasmGlobal;
  RuntimeError: new () => Error;
  validate(bytes: Uint8Array): boolean;
}
export const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export function leb(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    const b = v & 0x7f;
    v >>>= 7;
    out.push(v ? b | 0x80 : b);
  } while (v);
  return out;
}
export const vec = (items: number[][]) => [...leb(items.length), ...items.flat()];
export const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
export const name = (text: string) => [...leb(text.length), ...new TextEncoder().encode(text)];
/** A signed LEB128 (an i32.const immediate). */
export function sleb(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}
