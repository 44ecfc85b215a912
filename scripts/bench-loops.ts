// Where one codec call's loop turns go: how many its counted loops were charged before they
// started, how many were drawn turn by turn (what the metering still costs, scripts/wasm-fuel.ts),
// and the loops that drew most. Runs the service's own call (recodeImage, or decodeImage) once
// on the codec bench's photo-like input, with every WASM module given a turn counter on each
// loop (scripts/wasm-loop-turns.ts, loaded through test/hostile/node-codec-loader.ts).
//
//   npm run bench:loops [-- --input avif] [--target jpeg] [--quality 80] [--megapixels 1] [--top 12]
//
// --input is one of scripts/bench/codecs-images.ts's InputKind; no --target: a decode.
// A loop is named by its module, its function's index (imports included, as V8's profiler and
// wasm-dis name it) and its place among that function's loops.

import path from "node:path";
import { pathToFileURL } from "node:url";
import { dimensionsFor, encodeInput, photoLike, type InputKind, type Pixels } from "./bench/codecs-images.ts";
import { loadCodecs, REPO_ROOT, type Codecs, type Format } from "./bench/codecs-service.ts";
import { TURNS_EXPORT, type LoopSite } from "./wasm-loop-turns.ts";

// The slice of the WebAssembly API used here (the Node type check has no DOM lib to declare it).
type WasmModule = object;
interface WasmInstance {
  exports: Record<string, unknown>;
}
interface WasmApi {
  Instance: new (module: WasmModule, imports?: object) => WasmInstance;
  instantiate(source: unknown, imports?: object): Promise<unknown>;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

type Sites = Map<WasmModule, { file: string; loops: LoopSite[] }>;

function options() {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const quality = value("--quality");
  return {
    input: (value("--input") ?? "jpeg") as InputKind,
    target: value("--target") as Format | undefined,
    quality: quality === undefined ? undefined : Number(quality),
    megapixels: Number(value("--megapixels") ?? 1),
    top: Number(value("--top") ?? 12),
  };
}

/** Every instance made from here on, with the module it was made from. */
function watchInstances(): { instance: WasmInstance; module: WasmModule }[] {
  const made: { instance: WasmInstance; module: WasmModule }[] = [];
  const Instance = Wasm.Instance;
  Wasm.Instance = new Proxy(Instance, {
    construct(target, args: [WasmModule, object?]) {
      const instance = Reflect.construct(target, args) as WasmInstance;
      made.push({ instance, module: args[0] });
      return instance;
    },
  });
  const instantiate = Wasm.instantiate.bind(Wasm);
  Wasm.instantiate = async (source, imports) => {
    const result = await instantiate(source, imports);
    if (result instanceof Instance) made.push({ instance: result, module: source as WasmModule });
    else made.push(result as { instance: WasmInstance; module: WasmModule });
    return result;
  };
  return made;
}

const millions = (turns: number) => `${(turns / 1e6).toFixed(2)} M`;

async function main(): Promise<void> {
  const { input, target, quality, megapixels, top } = options();
  const made = watchInstances();
  const service = await loadCodecs(); // registers the loader; makes the input with the ordinary codecs
  const counted = (await import(`${pathToFileURL(path.join(REPO_ROOT, "src/codecs/index.ts")).href}?loop-turns`)) as Codecs;
  const dims = dimensionsFor(megapixels);
  let cutout: Pixels | undefined;
  const bytes = await encodeInput(input, photoLike(dims, false), () => (cutout ??= photoLike(dims, true)), (pixels, format) => service.encodeImage(pixels, format));
  const format = counted.sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error(`${input}: not an image the codecs read`);
  const header = counted.readHeader(bytes, format);

  made.length = 0;
  if (target) await counted.recodeImage(bytes, header, target, quality === undefined ? {} : { quality });
  else await counted.decodeImage(bytes, header);

  const sites: Sites = (globalThis as { pixelgateLoopSites?: Sites }).pixelgateLoopSites ?? new Map();
  const loops: { name: string; turns: number; draws: boolean }[] = [];
  for (const { instance, module } of made) {
    const known = sites.get(module);
    if (!known) continue;
    known.loops.forEach((site, k) => {
      const turns = Number((instance.exports[TURNS_EXPORT + k] as { value: bigint }).value);
      if (turns > 0) loops.push({ name: `${known.file} function ${site.func}, loop ${site.loop}`, turns, draws: site.draws });
    });
  }
  const sum = (list: typeof loops) => list.reduce((total, loop) => total + loop.turns, 0);
  const drawn = loops.filter((loop) => loop.draws);
  const all = sum(loops);
  console.log(`${input} ${target ? `to ${target}${quality === undefined ? "" : ` q${quality}`}` : "decoded"} at ${megapixels} MP: ${millions(all)} loop turns in ${made.length} instances`);
  console.log(`  charged before they start (counted loops): ${millions(all - sum(drawn))} (${(100 * (1 - sum(drawn) / all)).toFixed(0)}%)`);
  console.log(`  drawn turn by turn: ${millions(sum(drawn))} (${((100 * sum(drawn)) / all).toFixed(0)}%), the most by:`);
  for (const loop of drawn.sort((a, b) => b.turns - a.turns).slice(0, top)) console.log(`    ${millions(loop.turns).padStart(9)}  ${loop.name}`);
}

await main();
