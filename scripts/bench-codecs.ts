// `npm run bench:codecs`: the worker's image codecs (src/codecs, as POST /v1/compress and
// /v1/convert-format use them) against sharp, the native baseline, and the peak memory of one
// request, at 0.25, 1, 4 and 12 megapixels. Prints tables and one `RESULT {json}` line.
//
//   npm run bench:codecs                      all sizes (about 10 minutes on 2 cores)
//   npm run bench:codecs -- --quick           fewer runs per case
//   npm run bench:codecs -- --sizes 0.25,1    only these sizes (megapixels)
//   npm run bench:codecs -- --no-memory       timing only
//   npm run bench:codecs -- --no-timing       peak memory only
//   npm run bench:codecs -- --no-fixed-cost   without the end-to-end tiny compress (which starts
//                                             a local server unless one answers at PIXELGATE_URL,
//                                             and an empty Worker beside it: the runtime's floor)
//   npm run bench:codecs -- --cases webp-q70-whole,jpeg-q70   only these case ids ("terms": the
//                                             route variants' memory cases, bench/codecs-cases.ts TERM_CASES)
//   npm run bench:codecs -- --memory-runs 5   each memory case in 5 fresh children: the run
//                                             with the median peak is reported (and recorded),
//                                             the spread printed beside it; for comparing two
//                                             trees, where one run's peak can move by a GC
//   npm run bench:codecs -- --write           also records each measured peak, with what the
//                                             planner priced it from, in the cost table
//                                             src/codecs/route-costs.json (replacing the same
//                                             case's earlier peak at that size), raises the terms
//                                             of any route whose peak passes its estimate with the
//                                             table's margin (bench/route-costs-fit.ts), and
//                                             writes docs/codecs.md's tables from the table
//                                             (checked by test/codecs/measured-peaks.test.ts and
//                                             test/scripts/codecs-doc.test.ts), and each case's
//                                             work in src/codecs/work-steps.json
//   npm run bench:codecs -- --write-work      only the work: each case's loop turns of the
//                                             metered codecs beside what it was admitted with,
//                                             in src/codecs/work-steps.json (the work budget)
//
// Time: for each case, the median of N runs of the service's codec call and of sharp at equal
// settings (see bench/codecs-cases.ts), run alternately in this process; N follows a time budget
// per case (more runs at small sizes, at least 3). Both run on one thread, as in a Worker:
// sharp.concurrency(1), and its CPU/wall ratio is printed to show it. Memory: each case once in
// a fresh child process (bench/codecs-memory-child.ts says exactly what is counted).
//
// Exits non-zero only when something is broken (an output of the wrong format or size, a
// lossless PNG that is not, a crashed child); a missed goal is printed as MISSED.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import sharp from "sharp";
import { DECODE_CASES, ENCODE_CASES, INPUT_KINDS, MEMORY_CASES, sharpPlan, TERM_CASE_IDS, type MemoryCase, type TimingCase } from "./bench/codecs-cases.ts";
import { dimensionsFor, encodeInput, photoLike, type InputKind, type Pixels } from "./bench/codecs-images.ts";
import { burstReport, fixedCostReport, measureFixedCost, tinyBurstsReport, type FixedCostResult } from "./bench/codecs-fixed-cost.ts";
import { medianMemory } from "./bench/codecs-memory.ts";
import { runCleanups } from "./bench/processes.ts";
import { readRouteCosts, ROUTE_COSTS, writeRouteCosts } from "./bench/route-costs-file.ts";
import type { RecordedPeak } from "../src/codecs/recode-cost.ts";
import { analyseLimit, isPixelLimitRefusal, limitReport, MEMORY_BUDGET, memoryTable, resultJson, timingTable, type MemoryRow } from "./bench/codecs-report.ts";
import { decodeBeyondLimit, loadCodecs, REPO_ROOT, serviceSettings, type Codecs, type ServiceSettings } from "./bench/codecs-service.ts";
import { WORK_STEPS_FILE, writeWorkSteps } from "./bench/work-steps-file.ts";
import { timeCase, type SizeInputs, type TimingOptions, type TimingResult } from "./bench/codecs-timing.ts";

const DEFAULT_SIZES = [0.25, 1, 4, 12];
/** After this, every case runs its minimum count, so the whole run stays near 15 minutes. */
const HURRY_AFTER_MS = 9 * 60_000;

interface Flags {
  sizes: number[];
  quick: boolean;
  memory: boolean;
  timing: boolean;
  fixedCost: boolean;
  write: boolean;
  /** Only the work budget's table (src/codecs/work-steps.json), not the cost table. */
  writeWork: boolean;
  /** Case ids to run; empty: all. */
  cases: string[];
  /** Children per memory case (the median peak's run is reported). */
  memoryRuns: number;
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { sizes: DEFAULT_SIZES, quick: false, memory: true, timing: true, fixedCost: true, write: false, writeWork: false, cases: [], memoryRuns: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quick") flags.quick = true;
    else if (arg === "--no-memory") flags.memory = false;
    else if (arg === "--no-timing") flags.timing = false;
    else if (arg === "--no-fixed-cost") flags.fixedCost = false;
    else if (arg === "--write") flags.write = true;
    else if (arg === "--write-work") flags.writeWork = true;
    else if (arg === "--sizes" || arg.startsWith("--sizes=")) {
      const list = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : (argv[++i] ?? "");
      flags.sizes = list.split(",").map(Number);
      if (flags.sizes.some((s) => !(s > 0 && s <= 64))) throw new Error(`--sizes wants megapixel counts such as 0.25,1,4,12, not "${list}"`);
    } else if (arg === "--cases" || arg.startsWith("--cases=")) {
      flags.cases = (arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : (argv[++i] ?? "")).split(",").filter(Boolean).flatMap((id) => (id === "terms" ? TERM_CASE_IDS : [id]));
    } else if (arg === "--memory-runs" || arg.startsWith("--memory-runs=")) {
      const count = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : (argv[++i] ?? "");
      flags.memoryRuns = Number(count);
      if (!(Number.isInteger(flags.memoryRuns) && flags.memoryRuns >= 1 && flags.memoryRuns <= 15)) throw new Error(`--memory-runs wants a count from 1 to 15, not "${count}"`);
    } else throw new Error(`unknown option ${arg} (use --quick, --sizes 0.25,1, --no-memory, --no-timing, --no-fixed-cost, --write, --write-work, --cases id,id, --memory-runs N)`);
  }
  return flags;
}

/** A full GC between runs, outside the timed region (node is started without --expose-gc). */
function exposeGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

const log = (line: string) => console.log(`  . ${line}`);

function setupReport(settings: ServiceSettings): string {
  const v = sharp.versions as Record<string, string | undefined>;
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const lines = [
    `  node ${process.version}, ${os.availableParallelism()} cores (${cpu}), load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
    `  sharp ${v.sharp} (libvips ${v.vips}, libwebp ${v.webp}, mozjpeg ${v.mozjpeg}, libheif ${v.heif}, aom ${v.aom}, libpng ${v.png}, zlib-ng ${v["zlib-ng"]}, imagequant ${v.imagequant}), concurrency ${sharp.concurrency()}, cache off`,
    `  service settings: ${settings.sources.join("; ")}`,
    "  sharp at equal settings:",
  ];
  for (const c of ENCODE_CASES) {
    const plan = sharpPlan(c, settings);
    const resize = c.resize ? `rotate().resize(${JSON.stringify({ ...c.resize, fit: c.resize.fit ?? "inside", withoutEnlargement: true, kernel: "lanczos3" })}).` : "";
    lines.push(`    ${c.id.padEnd(15)} ${plan.removeAlpha ? "removeAlpha()." : ""}${resize}${plan.format}(${JSON.stringify(plan.options)})`);
  }
  lines.push("    decode-*        ensureAlpha().raw() (RGBA, as decodeImage returns)");
  return lines.join("\n");
}

/**
 * The uploads for one size that the selected cases read (`kinds`), their headers, and the
 * rasters the service decodes from them. An input the service's own encoder will not write at
 * this size (a GIF, BMP or TIFF past its pixel limit) is left out: its cases are skipped.
 */
async function prepareSize(megapixels: number, codecs: Codecs, dir: string, kinds: ReadonlySet<InputKind>, timing: boolean): Promise<SizeInputs> {
  const { width, height } = dimensionsFor(megapixels);
  const opaque = photoLike({ width, height }, false);
  let cutout: Pixels | undefined;
  const files = new Map<string, Uint8Array>();
  const headers = new Map<string, ReturnType<Codecs["readHeader"]>>();
  const rasters = new Map<string, Awaited<ReturnType<Codecs["decodeImage"]>>>();
  for (const kind of INPUT_KINDS.filter((k) => kinds.has(k))) {
    let bytes: Uint8Array;
    try {
      bytes = await encodeInput(kind, opaque, () => (cutout ??= photoLike({ width, height }, true)), (pixels, format) => codecs.encodeImage(pixels, format));
    } catch (error) {
      if (!isPixelLimitRefusal(String(error))) throw error;
      log(`${kind} @ ${megapixels} MP: the service does not write this input at this size; its cases are skipped`);
      continue;
    }
    writeFileSync(inputPath(dir, megapixels, kind), bytes);
    const format = codecs.sniffFormat(bytes);
    if (format === null || format === "svg") throw new Error(`the ${kind} input is not recognised`);
    const header = codecs.readHeader(bytes, format);
    files.set(kind, bytes);
    headers.set(kind, header);
  }
  // Encode cases start from what the service itself decoded from the upload; over the pixel
  // limit, from the same decoder called past the limit check (see decodeBeyondLimit).
  for (const kind of timing ? new Set(ENCODE_CASES.map((c) => c.input).filter((k) => files.has(k))) : []) {
    const header = headers.get(kind)!;
    const over = header.width * header.height > codecs.maxPixelsFor(header.format); // PNG stops at 16.7 MP, JPEG at 24
    rasters.set(kind, over ? await decodeBeyondLimit(files.get(kind)!, header.format) : await codecs.decodeImage(files.get(kind)!, header));
  }
  return { megapixels, width, height, files, headers, rasters };
}

function inputPath(dir: string, megapixels: number, kind: InputKind): string {
  return path.join(dir, `${megapixels}mp.${kind}`);
}

/** The cases `--cases` selects (all when it is empty). */
function selected<C extends { id: string }>(cases: C[], ids: string[]): C[] {
  return ids.length ? cases.filter((c) => ids.includes(c.id)) : cases;
}

async function timeSize(inputs: SizeInputs, codecs: Codecs, settings: ServiceSettings, options: TimingOptions, problems: string[], ids: string[]): Promise<TimingResult[]> {
  const results: TimingResult[] = [];
  const cases: TimingCase[] = selected([...ENCODE_CASES, ...DECODE_CASES], ids).filter((c) => inputs.files.has(c.input));
  for (const c of cases) {
    let result: TimingResult;
    try {
      result = await timeCase(c, inputs, codecs, c.kind === "encode" ? sharpPlan(c, settings) : null, options);
    } catch (error) {
      if (!isPixelLimitRefusal(String(error))) throw error;
      log(`${c.label} @ ${inputs.megapixels} MP: over the service's pixel or upload limit for this format, refused as the service would`);
      continue;
    }
    for (const p of result.problems) problems.push(`${c.id} @ ${inputs.megapixels} MP: ${p}`);
    const goal = result.goalRatio === null ? "" : ` (goal <= ${result.goalRatio}: ${result.met ? "ok" : "MISSED"})`;
    log(`${c.label} @ ${inputs.megapixels} MP: service ${result.serviceMs.toFixed(1)} ms, sharp ${result.sharpMs.toFixed(1)} ms, ratio ${result.ratio.toFixed(2)}${goal}, ${result.runs} runs, cpu/wall service ${result.serviceCpuPerWall.toFixed(2)} sharp ${result.sharpCpuPerWall.toFixed(2)}${result.serviceBytes === null ? "" : `, bytes service ${result.serviceBytes} sharp ${result.sharpBytes}`}`);
    results.push(result);
  }
  return results;
}

async function memorySize(inputs: SizeInputs, dir: string, problems: string[], ids: string[], runs: number): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  for (const c of selected(MEMORY_CASES, ids)) {
    if (!inputs.files.has(c.input)) continue;
    const { report, peaks } = await medianMemory(runs, {
      id: c.id,
      inputPath: inputPath(dir, inputs.megapixels, c.input),
      ...(c.kind === "encode" ? { target: c.target, ...(c.quality === undefined ? {} : { quality: c.quality }), ...(c.resize ? { resize: c.resize } : {}) } : {}),
      ...(c.kind === "upscale" ? { operation: "upscale" as const, factor: c.factor } : c.kind === "preview" ? { operation: "preview" as const, ...(c.ofUpscale ? { factor: c.ofUpscale } : {}) } : {}),
      ...(c.kind === "model" ? { model: c.work } : {}),
    });
    const refused = !report.ok && isPixelLimitRefusal(String(report.error));
    if (!report.ok && !refused) problems.push(`memory ${c.id} @ ${inputs.megapixels} MP: ${report.error}`);
    const spread = peaks.length > 1 ? ` (median of ${peaks.length}: ${peaks.map((p) => (p / 2 ** 20).toFixed(1)).join(", ")})` : "";
    const peak = report.ok
      ? `${(report.peak.total / 2 ** 20).toFixed(1)} MB at ${report.peak.stage}${spread}${report.beyondLimit ? " (past the pixel limit: the service refuses this input)" : ""}`
      : refused
        ? "over the service's pixel or upload limit for this format (refused before decoding, as the service would)"
        : `BROKEN ${report.error}`;
    const over = report.ok && report.estimate !== undefined && report.peak.total > report.estimate;
    if (over) problems.push(`memory ${c.id} @ ${inputs.megapixels} MP: peak ${(report.peak.total / 2 ** 20).toFixed(1)} MB over its estimate ${(report.estimate! / 2 ** 20).toFixed(1)}`);
    const estimate = report.ok && report.estimate !== undefined ? `, estimate ${(report.estimate / 2 ** 20).toFixed(1)} MB${over ? " OVER" : ""} (${report.row})` : "";
    const steps = report.ok && report.steps !== undefined ? `, work ${(report.steps / 1e6).toFixed(1)} M steps${report.estimate ? ` (${(report.steps / report.estimate).toFixed(1)} per admitted byte)` : ""}` : "";
    log(`memory ${c.label} @ ${inputs.megapixels} MP: ${peak}${estimate}${steps}`);
    const group = c.input === "avif" || (c.kind === "encode" && c.target === "avif") ? "avif" : c.kind === "upscale" || c.kind === "preview" ? "tool" : "other";
    rows.push({ id: c.id, label: c.label, group, megapixels: inputs.megapixels, pixels: inputs.width * inputs.height, report, work: workOf(c, inputs.width * inputs.height, report) });
  }
  return rows;
}

const NOTES = `  Notes
  - Times are wall-clock medians of the codec call alone (encode from the RGBA raster the service
    decoded, or decode from the uploaded bytes); ratio = service / sharp. Matching output sizes show
    both sides ran at comparable settings; AVIF is the exception: libheif (sharp) and libavif map
    quality 50 to different quantizers, so sharp's AVIF files are larger at the same setting.
    "sharp cpu/wall" near 1.0 means sharp used one thread, like the Worker; the service's own
    cpu/wall is printed per case too (above 1.0: work left the JS thread, which workerd does not
    allow, so such a ratio would flatter the service).
  - Rows marked * are past the service's pixel limit: decoded with the format's own decoder
    (bench/codecs-service.ts decodeBeyondLimit) to measure what the limit keeps out.
  - Peak memory = live WASM linear memory + JS ArrayBuffers of one request (upload, raster, output,
    codec scratch), sampled after every WASM->JS call and every event-loop turn in a fresh process,
    with a full GC before each codec instance is created and between decode and encode. JS buffers
    that are garbage but not yet collected count (figures with large JS buffers move between runs
    for that reason). "heap" (V8 heap growth) and the request's base64 text and the
    response's data URI (strings) come on top. "RSS delta" is the kernel's peak-RSS growth of the
    same process, as a cross-check (it also holds the heap, allocator slack and WASM compilation).
  - "grow slack": WASM memory committed beyond the largest size a codec asked for; the emscripten
    glue grows the heap by up to 20% more than requested.
  - "decoder kept MB": WASM memory of the decode step still alive after that GC. The jsquash glue
    defines globalThis.ImageData inside the first codec factory call of an isolate when none exists
    (workerd has none), and that class's closure keeps the first codec instance, with its whole
    linear memory, alive for the isolate's life. "if released" is the peak without it.`;

/**
 * --write: each measured peak into the cost table (replacing the same case's at that size),
 * the table fitted to its peaks (bench/route-costs-fit.ts, run until nothing is raised: the
 * planner reads the table once per process), and docs/codecs.md's tables written from it.
 */
function writeMeasuredPeaks(memory: MemoryRow[]): void {
  const measured = new Date().toISOString().slice(0, 10);
  const peaks: RecordedPeak[] = memory
    // Only calls the table prices (their terms named): the tool cases (an upscale, a preview)
    // are priced outside it.
    .filter((m) => m.report.ok && m.report.estimate !== undefined && !m.report.beyondLimit && (m.report.keys?.length ?? 0) > 0)
    .map(({ id, megapixels, pixels, report: r }) => ({
      case: id,
      megapixels,
      measured,
      input: r.input!,
      target: r.target ?? null,
      quality: r.quality ?? 100,
      pixels,
      inputBytes: r.inputBytes,
      outputBytes: r.outputBytes,
      row: r.row ?? "general",
      keys: [...(r.keys ?? [])],
      facts: r.facts ?? null,
      peak: r.peak.total,
      estimate: r.estimate!,
      ...(r.resize === undefined ? {} : { resize: r.resize }),
    }));
  const table = readRouteCosts();
  const fresh = new Set(peaks.map((p) => `${p.case}@${p.megapixels}`));
  table.peaks = [...table.peaks.filter((p) => !fresh.has(`${p.case}@${p.megapixels}`)), ...peaks];
  writeRouteCosts(table);
  console.log(`\nrecorded ${peaks.length} peaks in ${path.relative(REPO_ROOT, ROUTE_COSTS)}`);
  for (let round = 0; ; round++) {
    const fit = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts/bench/route-costs-fit.ts")], { stdio: "inherit" });
    if (fit.status === 0) break;
    if (fit.status !== 3 || round === 8) throw new Error(`fitting the cost table failed (exit ${fit.status})`);
  }
  const doc = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts/bench/codecs-peaks-doc.ts")], { stdio: "inherit" });
  if (doc.status !== 0) throw new Error("writing docs/codecs.md's tables failed");
}

/**
 * The work budget a tool call of this case draws on (src/codecs/work-steps.ts): its kind, its
 * route (compress's and convert's `<input>><target>`) and the pixels its work reads and writes.
 * A decode alone or a preview is no tool call's budget.
 */
function workOf(c: MemoryCase, pixels: number, report: MemoryRow["report"]): MemoryRow["work"] {
  if (c.kind === "encode") return { kind: "codec", route: `${report.input}>${c.target}`, pixels };
  if (c.kind === "upscale") return { kind: "upscale", pixels: pixels * (1 + c.factor * c.factor) };
  if (c.kind === "model") return { kind: "model", pixels };
  return null;
}

/** --write, --write-work: each case's loop turns beside the pixels of its work, into the work budget's table. */
function recordWork(memory: MemoryRow[]): void {
  const measured = memory
    .filter((m) => m.report.ok && !m.report.beyondLimit && m.report.steps !== undefined && m.work)
    .map(({ id, megapixels, work, report: r }) => ({ case: id, megapixels, kind: work!.kind, ...(work!.route ? { route: work!.route } : {}), pixels: work!.pixels, steps: r.steps! }));
  const table = writeWorkSteps(measured, new Date().toISOString().slice(0, 10));
  console.log(`recorded the work of ${measured.length} cases in ${path.relative(REPO_ROOT, WORK_STEPS_FILE)}: loop turns per pixel ${JSON.stringify(table.perPixel)}`);
}

/** The largest 4:3 photo the service compresses to WebP, as a JPEG: the burst's input. */
async function burstPhoto(codecs: Codecs): Promise<{ jpeg: Uint8Array; width: number; height: number }> {
  const pixels = Math.min(codecs.maxTargetPixelsFor("webp"), codecs.maxPixelsFor("jpeg"));
  const width = Math.floor(Math.sqrt((pixels * 4) / 3) / 4) * 4;
  const height = Math.floor((width * 3) / 4);
  const photo = photoLike({ width, height }, false);
  const jpeg = await sharp(Buffer.from(photo.data.buffer), { raw: { width, height, channels: 4 } }).removeAlpha().jpeg({ quality: 90 }).toBuffer();
  return { jpeg: new Uint8Array(jpeg), width, height };
}

async function main(): Promise<number> {
  const started = Date.now();
  const flags = parseFlags(process.argv.slice(2));
  process.chdir(REPO_ROOT);
  sharp.concurrency(1); // one libvips thread per image, as a Worker has one thread
  sharp.cache(false); // libvips' operation cache would answer repeated runs without work
  const gc = exposeGc();
  const codecs = await loadCodecs();
  const settings = await serviceSettings(codecs);
  const options: TimingOptions = {
    budgetMs: flags.quick ? 1_500 : 5_000,
    minRuns: 3,
    maxRuns: flags.quick ? 5 : 15,
    warmUp: true,
    hurryAfter: started + HURRY_AFTER_MS,
    gc,
  };
  console.log("=== Pixelgate codec benchmark ===\n");
  console.log(setupReport(settings));
  console.log("");

  const dir = mkdtempSync(path.join(os.tmpdir(), "pixelgate-bench-codecs-"));
  const problems: string[] = [];
  const timing: TimingResult[] = [];
  const memory: MemoryRow[] = [];
  // Only the inputs the selected cases read are made (a HEIC at 12 MP takes heif-enc a while).
  const kinds = new Set<InputKind>([
    ...(flags.timing ? selected([...ENCODE_CASES, ...DECODE_CASES], flags.cases) : []),
    ...(flags.memory ? selected(MEMORY_CASES, flags.cases) : []),
  ].map((c) => c.input));
  try {
    for (const [index, megapixels] of [...flags.sizes].sort((a, b) => a - b).entries()) {
      log(`${megapixels} MP: generating the inputs`);
      const inputs = await prepareSize(megapixels, codecs, dir, kinds, flags.timing);
      options.warmUp = index === 0; // WASM code is tiered up once per process, not per size
      if (flags.timing) timing.push(...(await timeSize(inputs, codecs, settings, options, problems, flags.cases)));
      if (flags.memory) memory.push(...(await memorySize(inputs, dir, problems, flags.cases, flags.memoryRuns)));
      gc();
    }
  } finally {
    if (!process.env.KEEP_BENCH_INPUTS) rmSync(dir, { recursive: true, force: true });
  }

  if (timing.length) {
    console.log("\nTime: service codec vs sharp (median wall ms, single thread)");
    console.log(timingTable(timing));
  }
  const limit = memory.length ? analyseLimit(memory, codecs.HARD_MAX_PIXELS) : null;
  if (flags.write && memory.length) writeMeasuredPeaks(memory);
  if ((flags.write || flags.writeWork) && memory.length) recordWork(memory);
  const webp12 = memory.find((m) => m.id === "webp-q70" && m.megapixels === 12)?.report;
  if (memory.length) {
    console.log("\nPeak memory of one request (MB = 2^20 bytes; budget 100 MB of the isolate's 128 MB)");
    console.log(memoryTable(memory));
    console.log("");
    console.log(limitReport(limit!, codecs.MAX_DECODE_PIXELS));
    if (webp12?.ok) {
      const met = webp12.peak.total <= MEMORY_BUDGET;
      console.log(`  Goal: a 12 MP photo compressed to WebP within 100 MB: ${(webp12.peak.total / 2 ** 20).toFixed(1)} MB ${met ? "ok" : "MISSED"}`);
    }
  }
  let fixedCost: FixedCostResult | null = null;
  if (flags.fixedCost) {
    console.log("\nFixed cost of a tiny compress, end to end (local server, one request at a time)");
    try {
      fixedCost = await measureFixedCost(log, await burstPhoto(codecs));
      console.log(fixedCostReport(fixedCost));
      if (fixedCost.burst) console.log(burstReport(fixedCost.burst));
      if (fixedCost.tinyBursts) console.log(tinyBurstsReport(fixedCost.tinyBursts));
    } catch (error) {
      problems.push(`fixed cost: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      runCleanups();
    }
  }
  console.log(`\n${NOTES}`);
  for (const problem of problems) console.log(`\nBROKEN ${problem}`);
  const elapsedS = (Date.now() - started) / 1000;
  console.log(`\nRESULT ${JSON.stringify({ ...resultJson({ problems, sizes: flags.sizes, timing, memory, limit, webp12, elapsedS }), fixedCost })}`);
  return problems.length === 0 ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
