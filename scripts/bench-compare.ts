// The codec layer timed against a baseline, both loaded in this one process and run alternately,
// so load and drift hit both alike. Prints each case's medians and the ratio this tree / baseline.
// Baselines:
//   unmetered (default)  the same modules with the work budget's draws taken out
//                        (scripts/wasm-fuel.ts unmeteredCopy): what the metering costs;
//   <directory>          another checkout of this repository (with its own node_modules), e.g. a
//                        worktree of an older commit: what a change between them costs.
//
//   npm run bench:compare [-- --baseline unmetered|<dir>] [--unmetered] [--sizes 1,4] [--rounds 9] [--cases "decode jpeg,jpeg to avif"]
//
// --unmetered: this tree's codecs without the draws too, to compare what changed in the codecs
// themselves between two checkouts, apart from the metering.
//
// The cases are compress's and convert's own calls (recodeImage, decodeImage for the decoders)
// on the codec bench's photo-like inputs (scripts/bench/codecs-images.ts).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { dimensionsFor, encodeInput, HEIC_INPUT, photoLike, type InputKind, type Pixels } from "./bench/codecs-images.ts";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadCodecs, loadUnmeteredCodecs, type Codecs, type Format } from "./bench/codecs-service.ts";

interface CompareCase {
  label: string;
  input: InputKind;
  /** Absent: decode only. */
  target?: Format;
  quality?: number;
}

const CASES: CompareCase[] = [
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

function options(): { sizes: number[]; rounds: number; baseline: string; unmetered: boolean; cases: CompareCase[] } {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  return { sizes: (value("--sizes") ?? "1").split(",").map(Number), rounds: Number(value("--rounds") ?? 9), baseline: value("--baseline") ?? "unmetered", unmetered: args.includes("--unmetered"), cases: selected(value("--cases")) };
}

/** The cases named (by label, comma-separated); all when none is. */
function selected(labels: string | undefined): CompareCase[] {
  if (!labels) return CASES;
  const names = labels.split(",").map((l) => l.trim());
  const unknown = names.filter((n) => !CASES.some((c) => c.label === n));
  if (unknown.length) throw new Error(`unknown case ${unknown.join(", ")}; the cases: ${CASES.map((c) => c.label).join(", ")}`);
  return CASES.filter((c) => names.includes(c.label));
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

async function call(codecs: Codecs, c: CompareCase, bytes: Uint8Array): Promise<number> {
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
  const { sizes, rounds, baseline: against, unmetered, cases } = options();
  const current = unmetered ? await loadUnmeteredCodecs() : await loadCodecs();
  const baseline = against === "unmetered" ? await loadUnmeteredCodecs() : ((await import(pathToFileURL(path.resolve(against, "src/codecs/index.ts")).href)) as Codecs);
  const name = against === "unmetered" ? "the same modules unmetered" : path.resolve(against);
  console.log(`This tree${unmetered ? " (unmetered)" : ""} against ${name} (baseline), ${rounds} alternating rounds per case, median wall ms`);
  const ratios: number[] = [];
  for (const megapixels of sizes) {
    const dims = dimensionsFor(megapixels);
    const opaque = photoLike(dims, false);
    let cutout: Pixels | undefined;
    const inputs = new Map<InputKind, Uint8Array>();
    const written = (pixels: Pixels, format: "gif" | "bmp" | "tiff") => current.encodeImage(pixels, format);
    for (const c of cases) if (!inputs.has(c.input)) inputs.set(c.input, await encodeInput(c.input, opaque, () => (cutout ??= photoLike(dims, true)), written));
    for (const c of cases) {
      const bytes = inputs.get(c.input)!;
      // Once each untimed (tier-up), then alternately. A case past a limit is skipped, as the service refuses it.
      try {
        await call(current, c, bytes);
      } catch (error) {
        console.log(`  ${c.label.padEnd(26)} @ ${megapixels} MP: refused (${error instanceof Error ? error.message : String(error)})`);
        continue;
      }
      await call(baseline, c, bytes);
      const times = { current: [] as number[], baseline: [] as number[] };
      for (let round = 0; round < rounds; round++) {
        const first = round % 2 === 0;
        times[first ? "current" : "baseline"].push(await call(first ? current : baseline, c, bytes));
        times[first ? "baseline" : "current"].push(await call(first ? baseline : current, c, bytes));
      }
      const ratio = median(times.current) / median(times.baseline);
      ratios.push(ratio);
      console.log(`  ${c.label.padEnd(26)} @ ${megapixels} MP: this tree ${median(times.current).toFixed(1)} ms, baseline ${median(times.baseline).toFixed(1)} ms, ratio ${ratio.toFixed(3)}`);
    }
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(`ratio this tree / baseline: median ${median(sorted).toFixed(3)}, largest ${sorted.at(-1)!.toFixed(3)}, smallest ${sorted[0]!.toFixed(3)}`);
}

await main();
