// `npm run size`: how big the deployable worker is, measured the way Cloudflare limits it, and how
// much CPU its startup takes. Prints a report and one `RESULT {json}` line.
//
// 1. `wrangler deploy --dry-run --outdir <tmp>` builds exactly what `wrangler deploy` uploads:
//    the bundled index.js plus every module beside it (the codecs' .wasm files). Source maps are
//    not uploaded unless wrangler.toml sets upload_source_maps, and README.md is wrangler's note.
// 2. Compressed size = gzip of all uploaded modules one after another, as wrangler computes its
//    "Total Upload ... gzip" figure (Cloudflare's limit is on the compressed upload). Each module
//    is also gzipped on its own for the per-module list.
// 3. `wrangler check startup` profiles the worker's startup (module evaluation) in local workerd.
//    It needs no login; if it fails anyway, the report says so and the size check still counts.
//
// Exits 1 when the compressed size is above 10 MB (MB = 2^20 bytes, as wrangler's KiB figures),
// or when the build itself fails. The 3 MB goal is printed as ok or MISSED.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";

const REPO_ROOT = path.resolve(import.meta.dirname, "..");
const WRANGLER = path.join(REPO_ROOT, "node_modules", ".bin", "wrangler");
const MiB = 1024 * 1024;
const LIMIT_BYTES = 10 * MiB;
const GOAL_BYTES = 3 * MiB;
/** Cloudflare refuses a worker whose startup takes more CPU than this. */
const STARTUP_LIMIT_MS = 1000;
const COMMAND_TIMEOUT_MS = 180_000;

interface Run {
  code: number | null;
  output: string;
}

/** Runs wrangler with telemetry off; the child is ours and is killed (by pid) only on timeout. */
function wrangler(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(WRANGLER, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: process.env.CI ?? "true", NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), COMMAND_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}\n${error.message}` });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface Module {
  name: string;
  bytes: number;
  gzip: number;
}

/** Whether wrangler uploads source maps for this worker (off unless the config says so). */
function uploadsSourceMaps(): boolean {
  try {
    return /^\s*upload_source_maps\s*=\s*true/m.test(readFileSync(path.join(REPO_ROOT, "wrangler.toml"), "utf8"));
  } catch {
    return false;
  }
}

function uploadedModules(dir: string): { modules: Module[]; combinedGzip: number } {
  const maps = uploadsSourceMaps();
  const names = readdirSync(dir)
    .filter((name) => statSync(path.join(dir, name)).isFile())
    .filter((name) => name !== "README.md" && (maps || !name.endsWith(".map")))
    // The entry module first, as wrangler lists it.
    .sort((a, b) => (a === "index.js" ? -1 : b === "index.js" ? 1 : a.localeCompare(b)));
  const contents = names.map((name) => readFileSync(path.join(dir, name)));
  const modules = names.map((name, i) => ({ name, bytes: contents[i]!.length, gzip: gzipSync(contents[i]!).length }));
  return { modules, combinedGzip: gzipSync(Buffer.concat(contents)).length };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(2)} MB`;

/** wrangler's own "Total Upload: X KiB / gzip: Y KiB" line, to cross-check our figure. */
function wranglerTotals(output: string): { bytes: number; gzip: number } | null {
  const match = output.match(/Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/);
  return match ? { bytes: Number(match[1]) * 1024, gzip: Number(match[2]) * 1024 } : null;
}

interface Startup {
  ok: boolean;
  activeMs?: number;
  gcMs?: number;
  profileWindowMs?: number;
  topSelf?: { where: string; ms: number }[];
  reason?: string;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; hitCount?: number }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time by script (or V8 category such as "(program)"), from the startup CPU profile. */
function selfTimeByScript(profile: CpuProfile): { where: string; ms: number }[] {
  const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const frame = nodeById.get(samples[i]!)?.callFrame;
    if (!frame || frame.functionName === "(idle)") continue; // idle is not CPU
    const where = frame.url ? path.basename(frame.url) : frame.functionName || "(anonymous)";
    // timeDeltas[i] is the gap before sample i; the next gap is the time this sample stands for.
    const us = deltas[i + 1] ?? 0;
    totals.set(where, (totals.get(where) ?? 0) + us / 1000);
  }
  return [...totals].map(([where, ms]) => ({ where, ms })).sort((a, b) => b.ms - a.ms).slice(0, 6);
}

async function startupProfile(dir: string): Promise<Startup> {
  const outfile = path.join(dir, "startup.cpuprofile");
  const run = await wrangler(["check", "startup", "--outfile", outfile]);
  const active = run.output.match(/Active:\s*([\d.]+)\s*ms\s*\(including\s*([\d.]+)\s*ms garbage collection\)/);
  const window = run.output.match(/Profile window:\s*([\d.]+)\s*ms/);
  if (run.code !== 0 || !active) {
    const tail = run.output.trim().split("\n").slice(-4).join(" | ");
    return { ok: false, reason: `wrangler check startup ${run.code === null ? "did not finish" : `exited ${run.code}`}: ${tail}` };
  }
  let topSelf: Startup["topSelf"];
  try {
    topSelf = selfTimeByScript(JSON.parse(readFileSync(outfile, "utf8")) as CpuProfile);
  } catch {
    topSelf = undefined; // the summary line is what counts; the breakdown is a bonus
  }
  return { ok: true, activeMs: Number(active[1]), gcMs: Number(active[2]), profileWindowMs: window ? Number(window[1]) : undefined, topSelf };
}

async function main(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pixelgate-size-"));
  try {
    const outdir = path.join(dir, "bundle");
    const build = await wrangler(["deploy", "--dry-run", "--outdir", outdir]);
    if (build.code !== 0) {
      console.log(build.output);
      console.log(`BROKEN wrangler deploy --dry-run exited ${build.code}`);
      console.log(`RESULT ${JSON.stringify({ ok: false, problems: ["build failed"] })}`);
      return 1;
    }
    const { modules, combinedGzip } = uploadedModules(outdir);
    const totalBytes = modules.reduce((n, m) => n + m.bytes, 0);
    const reported = wranglerTotals(build.output);
    const withinLimit = combinedGzip <= LIMIT_BYTES;
    const goalMet = combinedGzip <= GOAL_BYTES;

    console.log("=== Pixelgate worker size ===\n");
    console.log(`  Uploaded modules (wrangler deploy --dry-run): ${modules.length}, ${kib(totalBytes)} uncompressed`);
    console.log(`  Compressed (gzip of all modules, as Cloudflare limits it): ${kib(combinedGzip)} = ${mib(combinedGzip)}`);
    if (reported) console.log(`  wrangler's own figure: ${kib(reported.bytes)} / gzip ${kib(reported.gzip)}`);
    console.log(`  Limit 10 MB compressed: ${withinLimit ? "ok" : "OVER"}; goal <= 3 MB compressed: ${goalMet ? "ok" : "MISSED"}\n`);
    console.log("  Largest modules (each gzipped on its own):");
    const width = Math.max(...modules.map((m) => m.name.length));
    for (const m of [...modules].sort((a, b) => b.gzip - a.gzip)) {
      console.log(`    ${m.name.padEnd(width)}  ${kib(m.bytes).padStart(11)}  gzip ${kib(m.gzip).padStart(10)}  ${((m.gzip / combinedGzip) * 100).toFixed(1).padStart(5)}%`);
    }

    console.log("\n  Startup (wrangler check startup, local workerd):");
    const startup = await startupProfile(dir);
    if (startup.ok) {
      console.log(`    active CPU ${startup.activeMs} ms (incl. ${startup.gcMs} ms GC) in a ${startup.profileWindowMs ?? "?"} ms window; Cloudflare's limit is ${STARTUP_LIMIT_MS} ms`);
      if (startup.topSelf?.length) console.log(`    most self time: ${startup.topSelf.map((t) => `${t.where} ${t.ms.toFixed(1)} ms`).join(", ")}`);
    } else {
      console.log(`    not measured: ${startup.reason}`);
    }

    const result = {
      ok: withinLimit,
      compressedBytes: combinedGzip,
      uncompressedBytes: totalBytes,
      wranglerGzipBytes: reported ? Math.round(reported.gzip) : null,
      limitBytes: LIMIT_BYTES,
      withinLimit,
      goalBytes: GOAL_BYTES,
      goalMet,
      modules: modules.map((m) => ({ name: m.name, bytes: m.bytes, gzip: m.gzip })),
      startup,
    };
    console.log(`\nRESULT ${JSON.stringify(result)}`);
    return withinLimit ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
