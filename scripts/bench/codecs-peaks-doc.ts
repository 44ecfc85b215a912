// docs/codecs.md's tables of route costs, generated from src/codecs/route-costs.json between
// the markers below: every set of terms, the output models, the grid AVIF's and the resize's
// figures, the pixel limits computed from them, and every recorded peak beside the estimate the
// planner computes for it now.
// `bench:codecs -- --write` rewrites them; so does
//
//   node scripts/bench/codecs-peaks-doc.ts           write the tables
//   node scripts/bench/codecs-peaks-doc.ts --check   exit 1 if the committed doc differs (test/scripts/codecs-doc.test.ts)
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadCodecs, type Format } from "./codecs-service.ts";
import { estimatesOf, type PeakEstimate } from "./route-costs-estimates.ts";
import { readRouteCosts, ROOT } from "./route-costs-file.ts";
import type { RouteCostTable } from "../../src/codecs/recode-cost.ts";

const DOC = path.join(ROOT, "docs/codecs.md");
const START = "<!-- route-costs: generated from src/codecs/route-costs.json by scripts/bench/codecs-peaks-doc.ts -->";
const END = "<!-- /route-costs -->";
const FORMATS = ["jpeg", "png", "webp", "heic", "avif", "gif", "bmp", "tiff"] as const;

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const num = (n: number | undefined) => (n === undefined ? "" : String(n));
const pixels = (n: number) => n.toLocaleString("en-US");

interface Limits {
  read: Record<string, number>;
  write: Record<string, number>;
}

/** The generated part of docs/codecs.md, markers included. */
export function routeCostsSection(table: RouteCostTable, estimates: readonly PeakEstimate[], limits: Limits): string {
  const byKey = new Map<string, PeakEstimate[]>();
  for (const e of estimates) for (const key of e.keys) byKey.set(key, [...(byKey.get(key) ?? []), e]);
  const terms = Object.entries(table.terms)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, t]) => {
      const seen = byKey.get(key) ?? [];
      const worst = seen.length ? Math.max(...seen.map((e) => e.peak.peak / e.estimate)).toFixed(2) : t.provisional === undefined ? "-" : `provisional: ${t.provisional}`;
      return `| ${key} | ${num(t.floorMiB)} | ${num(t.fixedMiB)} | ${num(t.perPixel)} | ${num(t.perInputByte)} | ${num(t.perOutputByte)}${t.output ? ` (${t.output})` : ""} | ${t.maxPixels === undefined ? "" : pixels(t.maxPixels)} | ${seen.length} | ${worst} |`;
    });
  const outputs = Object.entries(table.outputs)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, o]) => `| ${name} | ${num(o.perInputByte)} | ${num(o.least)} | ${o.most} | ${num(o.mostMiB)} |`);
  const cells = Object.entries(table.avifCells.chroma).map(
    ([chroma, c]) => `| ${chroma} | ${c.encoderMiB} | ${c.densest.map(([q, f]) => `${f} at ${q}`).join(", ")} | ${c.photo.map(([q, f]) => `${f} at ${q}`).join(", ")} |`,
  );
  const readers = Object.entries(table.resize.rowReaders).map(([reader, r]) => `| ${reader} | ${r.perReadPixel} | ${r.perInputByte} |`);
  const peaks = [...estimates]
    .sort((a, b) => a.peak.case.localeCompare(b.peak.case) || a.peak.megapixels - b.peak.megapixels)
    .map(({ peak: p, row, keys, estimate }) => `| ${p.case} | ${p.megapixels} | ${p.measured} | ${row} | ${keys[0]} | ${mib(p.inputBytes)} | ${mib(p.peak)} | ${mib(estimate)} | ${(p.peak / estimate).toFixed(2)} |`);
  return [
    START,
    `Safety margin of the fit: ${Math.round(table.margin * 100)}%. Ramp from a call's floor to its fixed part: ${table.rampPerPixel} bytes a pixel.`,
    "",
    "| terms | floor MiB | fixed MiB | per pixel | per input byte | per output byte (output) | at most (pixels) | recorded peaks | worst peak / estimate |",
    "|---|---|---|---|---|---|---|---|---|",
    ...terms,
    "",
    "| output | per input byte | least a pixel | most a pixel | most MiB |",
    "|---|---|---|---|---|",
    ...outputs,
    "",
    `Grid AVIF cells (avif-cells-cost.ts): ${table.avifCells.fileCopies} copies of the AV1 data held, ${Math.round(table.avifCells.roomUsed * 100)}% of the room left used, ${table.avifCells.hevcTileDecoderMiB} MiB for our HEVC decoder beside a HEIC grid's strips.`,
    "",
    "| cells' chroma | libavif for one cell MiB | densest AV1 data a pixel, by quality | a photo's (the least let try), by quality |",
    "|---|---|---|---|",
    ...cells,
    "",
    `Resize (resize-cost.ts): the answer read out ${table.resize.answerReadPerPixel} bytes a pixel of it, a turned answer's copy ${table.resize.turnCopyPerPixel}, a JPEG answer's coefficients ${table.resize.jpegCoefficientsPerPixel}; our row readers:`,
    "",
    "| row reader | per pixel read | per input byte |",
    "|---|---|---|",
    ...readers,
    "",
    "| format | read at most (pixels) | written from a raster at most (pixels) |",
    "|---|---|---|",
    ...FORMATS.map((f) => `| ${f} | ${pixels(limits.read[f]!)} | ${limits.write[f] === undefined ? "" : pixels(limits.write[f]!)} |`),
    "",
    "| case | MP | measured | route row | terms | upload MiB | peak MiB | estimate now MiB | peak / estimate |",
    "|---|---|---|---|---|---|---|---|---|",
    ...peaks,
    END,
  ].join("\n");
}

/** docs/codecs.md with its generated tables as the table now makes them. */
export async function generatedDoc(): Promise<{ current: string; generated: string }> {
  const table = readRouteCosts();
  const codecs = await loadCodecs();
  const limits: Limits = { read: {}, write: {} };
  for (const f of FORMATS) {
    limits.read[f] = codecs.maxPixelsFor(f as Format);
    if (f !== "heic") limits.write[f] = codecs.maxTargetPixelsFor(f as Format);
  }
  const current = readFileSync(DOC, "utf8");
  const [at, end] = [current.indexOf(START), current.indexOf(END)];
  if (at < 0 || end < at) throw new Error(`docs/codecs.md has no ${START} ... ${END} section`);
  const generated = current.slice(0, at) + routeCostsSection(table, await estimatesOf(table.peaks), limits) + current.slice(end + END.length);
  return { current, generated };
}

const { current, generated } = await generatedDoc();
if (process.argv.includes("--check")) {
  if (current !== generated) {
    console.error("docs/codecs.md's route-cost tables differ from src/codecs/route-costs.json: run node scripts/bench/codecs-peaks-doc.ts");
    process.exitCode = 1;
  }
} else {
  writeFileSync(DOC, generated);
  console.log(`wrote the route-cost tables of ${path.relative(ROOT, DOC)}`);
}
