// Running the Squoosh (jsquash) Emscripten codecs inside a Worker.
//
// Why a fresh instance per call instead of jsquash's own `init()` once per isolate: a
// WebAssembly memory can grow but never shrink. A codec instance kept for the isolate's life
// keeps the peak of the largest image it ever handled (a 4096 x 4096 decode grows it past
// 64 MB), and six such codecs would hold most of the isolate's 128 MB for good. The compiled
// WebAssembly.Module is what is expensive, and the runtime keeps that (it is the `.wasm`
// import); instantiating it costs a few milliseconds. So each operation instantiates, uses and
// drops its instance, and the garbage collector returns the whole linear memory at once.
// Nothing is instantiated at module load: startup CPU stays low.

import "./location-shim.ts";

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
      const instance = new WebAssembly.Instance(wasm, imports);
      done(instance);
      return instance.exports;
    },
    // Codec chatter (libavif warnings etc.) is not worth a log line per request.
    print: () => {},
    printErr: () => {},
  });
}
