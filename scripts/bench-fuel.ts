// What the work budget's metering costs in speed: each codec call timed with the metered WASM the
// service runs (scripts/wasm-fuel.ts) against the same modules with the draws taken out
// (unmeteredCopy), both loaded in this one process and run alternately, so load and drift hit
// both alike. Prints each case's medians and the ratio metered / unmetered (the baseline).
//
//   npm run bench:fuel [-- --sizes 1,4] [--rounds 9]
//
// The cases are compress's and convert's own calls (recodeImage, decodeImage for the decoders)
// on the codec bench's photo-like inputs (scripts/bench/codecs-images.ts).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { dimensionsFor, encodeInput, HEIC_INPUT, photoLike, type InputKind, type Pixels } from "./bench/codecs-images.ts";
import { loadCodecs, loadUnmeteredCodecs, type Codecs, type Format } from "./bench/codecs-service.ts";

interface FuelCase {
  label: string;
  input: InputKind;
  /** Absent: decode only. */
  target?: Format;
  quality?: number;
}

const CASES: FuelCase[] = [
  { label: "decode jpeg", input: "jpeg" },
  { label: "decode png", input: "png" },
  { label: "decode webp", input: "webp" },
  { label: "decode avif", input: "avif" },
  ...(HEIC_INPUT ? [{ label: "decode heic", input: "heic" as const }] : []),
  { label: "jpeg to webp q80", input: "jpeg", target: "webp", quality: 80 },
  { label: "jpeg to jpeg q80", input: "jpeg", target: "jpeg", quality: 80 },
  { label: "jpeg to png", input: "jpeg", target: "png" },
  { label: "png to png q70", input: "png", target: "png", quality: 70 },
  { label: "png (alpha) to webp q80", input: "png-alpha", target: "webp", quality: 80 },
  { label: "webp to jpeg q80", input: "webp", target: "jpeg", quality: 80 },
  { label: "jpeg to gif", input: "jpeg", target: "gif" },
  { label: "jpeg to tiff", input: "jpeg", target: "tiff" },
  { label: "jpeg to avif", input: "jpeg", target: "avif" },
  ...(HEIC_INPUT ? [{ label: "heic to jpeg q80", input: "heic" as const, target: "jpeg" as const, quality: 80 }] : []),
];

function options(): { sizes: number[]; rounds: number } {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  return { sizes: (value("--sizes") ?? "1").split(",").map(Number), rounds: Number(value("--rounds") ?? 9) };
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

async function call(codecs: Codecs, c: FuelCase, bytes: Uint8Array): Promise<number> {
  const format = codecs.sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error(`${c.label}: input not recognised`);
  const header = codecs.readHeader(bytes, format);
  gc();
  const started = performance.now();
  if (c.target) await codecs.recodeImage(bytes, header, c.target, c.quality === undefined ? {} : { quality: c.quality });
  else await codecs.decodeImage(bytes, header);
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const { sizes, rounds } = options();
  const metered = await loadCodecs();
  const unmetered = await loadUnmeteredCodecs();
  console.log(`Metered WASM against the same modules unmetered (baseline), ${rounds} alternating rounds per case, median wall ms`);
  const ratios: number[] = [];
  for (const megapixels of sizes) {
    const dims = dimensionsFor(megapixels);
    const opaque = photoLike(dims, false);
    let cutout: Pixels | undefined;
    const inputs = new Map<InputKind, Uint8Array>();
    for (const c of CASES) if (!inputs.has(c.input)) inputs.set(c.input, await encodeInput(c.input, opaque, () => (cutout ??= photoLike(dims, true))));
    for (const c of CASES) {
      const bytes = inputs.get(c.input)!;
      // Once each untimed (tier-up), then alternately.
      await call(metered, c, bytes);
      await call(unmetered, c, bytes);
      const times = { metered: [] as number[], unmetered: [] as number[] };
      for (let round = 0; round < rounds; round++) {
        const first = round % 2 === 0;
        times[first ? "metered" : "unmetered"].push(await call(first ? metered : unmetered, c, bytes));
        times[first ? "unmetered" : "metered"].push(await call(first ? unmetered : metered, c, bytes));
      }
      const ratio = median(times.metered) / median(times.unmetered);
      ratios.push(ratio);
      console.log(`  ${c.label.padEnd(26)} @ ${megapixels} MP: metered ${median(times.metered).toFixed(1)} ms, unmetered ${median(times.unmetered).toFixed(1)} ms, ratio ${ratio.toFixed(3)}`);
    }
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(`ratio metered / unmetered: median ${median(sorted).toFixed(3)}, largest ${sorted.at(-1)!.toFixed(3)}, smallest ${sorted[0]!.toFixed(3)}`);
}

await main();
