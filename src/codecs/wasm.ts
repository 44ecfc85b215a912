// Running the Squoosh (jsquash) Emscripten codecs inside a Worker.
//
// Why a fresh instance per call instead of jsquash's own `init()` once per isolate: a
// WebAssembly memory can grow but never shrink. A codec instance kept for the isolate's life
// keeps the peak of the largest image it ever handled (a 4096 x 4096 decode grows it past
// 64 MB), and six such codecs would hold most of the isolate's 128 MB for good. The compiled
// WebAssembly.Module is what is expensive, and the runtime keeps that (it is the `.wasm`
// import); instantiating it costs 0.5 to 1.5 ms of CPU (measured for the WebP, JPEG and AVIF
// encoders; under 2% of even a 0.25 MP encode). So each operation instantiates, uses and
// drops its instance, and the garbage collector returns the whole linear memory at once.
// Nothing is instantiated at module load: startup CPU stays low.

import "./location-shim.ts";
import { fuelImports } from "./fuel.ts";

/** The options jsquash's Emscripten factories accept (the subset used here). */
interface EmscriptenOptions {
  noInitialRun: boolean;
  instantiateWasm: (
    imports: WebAssembly.Imports,
    done: (instance: WebAssembly.Instance) => void,
  ) => WebAssembly.Exports;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

export type EmscriptenFactory<M> = (options: EmscriptenOptions) => Promise<M>;

/**
 * Instantiates a codec for one operation. Keep the result in a local variable only, so the
 * instance and its memory become garbage as soon as the operation returns.
 */
export function instantiateCodec<M>(factory: unknown, wasm: WebAssembly.Module): Promise<M> {
  return (factory as EmscriptenFactory<M>)({
    noInitialRun: true,
    instantiateWasm(imports, done) {
      const growth = new TightGrowth(imports);
      const instance = new WebAssembly.Instance(wasm, { ...growth.imports, ...fuelImports(wasm) });
      growth.attach(instance);
      done(instance);
      return instance.exports;
    },
    // Codec chatter (libavif warnings etc.) is not worth a log line per request.
    print: () => {},
    printErr: () => {},
  });
}

/** Memory is grown to what the codec asked for, rounded up to this: few grow calls, little slack. */
const GROWTH_STEP = 1 << 20;
const PAGE = 65_536;

/**
 * Makes the Emscripten heap grow to what the codec asks for instead of 20% past the current
 * size: the glue's emscripten_resize_heap over-allocates (oldSize * 1.2, up to 96 MB more than
 * requested), which at 4 MP and up left 10-40 MB of committed memory that nothing used.
 * The glue's own resize function still runs (it refreshes its typed-array views of the heap);
 * only the size it passes to Memory.grow is replaced, on this instance's Memory alone.
 */
class TightGrowth {
  readonly imports: WebAssembly.Imports;
  /** The size the codec asked for in the resize call under way; 0 outside one. */
  private requested = 0;

  constructor(imports: WebAssembly.Imports) {
    this.imports = {};
    for (const [space, values] of Object.entries(imports)) {
      const copy: Record<string, WebAssembly.ImportValue> = { ...values };
      for (const [name, value] of Object.entries(values)) {
        if (typeof value === "function" && value.name === "_emscripten_resize_heap") {
          copy[name] = (size: number) => {
            this.requested = size >>> 0;
            try {
              return (value as (size: number) => number)(size);
            } finally {
              this.requested = 0;
            }
          };
        }
      }
      this.imports[space] = copy;
    }
  }

  attach(instance: WebAssembly.Instance): void {
    const memory = Object.values(instance.exports).find((value) => value instanceof WebAssembly.Memory);
    if (!memory) return;
    const grow = memory.grow.bind(memory);
    Object.defineProperty(memory, "grow", {
      configurable: true,
      value: (pages: number): number => {
        if (this.requested === 0) return grow(pages);
        const target = Math.ceil(this.requested / GROWTH_STEP) * GROWTH_STEP;
        return grow(Math.max(0, Math.min(pages, (target - memory.buffer.byteLength) / PAGE)));
      },
    });
  }
}
