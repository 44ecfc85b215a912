// The table of docs/codecs.md's "Peaks checked against estimates", generated from
// src/codecs/measured-peaks.json (what `npm run bench:codecs -- --write` records), between the
// markers below; `bench:codecs -- --write` rewrites it, and so does
//
//   node scripts/bench/codecs-peaks-doc.ts
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const MEASURED_PEAKS = path.join(ROOT, "src/codecs/measured-peaks.json");
const DOC = path.join(ROOT, "docs/codecs.md");
const START = "<!-- measured-peaks: generated from src/codecs/measured-peaks.json -->";
const END = "<!-- /measured-peaks -->";

export interface MeasuredPeaks {
  measured: string;
  sizes: number[];
  quick: boolean;
  cases: { id: string; megapixels: number; pixels: number; row: string; inputBytes: number; peak: number; estimate: number }[];
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** Replaces the table between the markers in docs/codecs.md with the data's. */
export function writePeaksTable(data: MeasuredPeaks): void {
  const doc = readFileSync(DOC, "utf8");
  const [at, end] = [doc.indexOf(START), doc.indexOf(END)];
  if (at < 0 || end < at) throw new Error(`docs/codecs.md has no ${START} ... ${END} section`);
  const lines = [
    START,
    `Measured ${data.measured} at ${data.sizes.join(", ")} MP${data.quick ? " (--quick)" : ""}, whole request, MiB:`,
    "",
    "| case | MP | route row | upload | peak | estimate | peak / estimate |",
    "|---|---|---|---|---|---|---|",
    ...data.cases.map((c) => `| ${c.id} | ${c.megapixels} | ${c.row} | ${mib(c.inputBytes)} | ${mib(c.peak)} | ${mib(c.estimate)} | ${(c.peak / c.estimate).toFixed(2)} |`),
    "",
  ];
  writeFileSync(DOC, doc.slice(0, at) + lines.join("\n") + doc.slice(end));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writePeaksTable(JSON.parse(readFileSync(MEASURED_PEAKS, "utf8")) as MeasuredPeaks);
  console.log(`wrote the measured-peaks table of ${path.relative(ROOT, DOC)}`);
}
