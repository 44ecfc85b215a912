// `npm run fuzz`: mutation fuzzing of the codec paths through the service itself. Seeds of every
// input format (scripts/fuzz/seeds.ts) are mutated (scripts/fuzz/mutate.ts) and each mutant is
// sent to compress and to convert-format (a random target, sometimes the playground's BMP) of
// one worker in workerd, the runtime the service runs in (scripts/fuzz/service.ts), one call at
// a time, each with a time limit and workerd's memory sampled while it runs.
//
//   npm run fuzz -- --minutes 30             how long to run (default 1)
//   options: --seed N  --timeout-ms N (per call, default 15000)  --dir PATH (default .fuzz)
//   npm run fuzz -- --replay .fuzz/findings/<name>.json     send one finding's request again
//
// Findings (each a file and its reproduction, in <dir>/findings, which git ignores):
// - hang:        no answer within the time limit (the worker is then restarted);
// - crash:       the connection failed (the worker is restarted);
// - 5xx:         a 500 or any other 5xx but a 503 service_busy;
// - over-budget: workerd's resident memory rose by more than the isolate's 128 MB during the call;
// - oversize:    a 200 whose image has more pixels than the input format's limit or than the
//                upload's header states (what the call was priced and admitted for);
// - kept-credit: a refusal after which the account's balance is lower than before.
// The run exits 1 when it found anything, so the short run in `npm test` fails on a finding.
// It also counts refusals the ledger charged and then refunded (usage log), which the header
// alone should have decided before the charge wherever it could.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { prng } from "../test/support/prng.ts";
import { loadCodecs, REPO_ROOT, type Codecs, type Format } from "./bench/codecs-service.ts";
import { runScript } from "./bench/processes.ts";
import { mutate, type Rng } from "./fuzz/mutate.ts";
import { makeSeeds, type Seed } from "./fuzz/seeds.ts";
import { startService, type FuzzService } from "./fuzz/service.ts";

const { values: options } = parseArgs({
  options: {
    minutes: { type: "string", default: "1" },
    seed: { type: "string" },
    "timeout-ms": { type: "string", default: "15000" },
    dir: { type: "string", default: ".fuzz" },
    replay: { type: "string" },
  },
});

const MINUTES = Number(options.minutes);
const SEED = Number(options.seed ?? Date.now() % 1_000_000_007);
const TIMEOUT_MS = Number(options["timeout-ms"]);
const DIR = path.resolve(REPO_ROOT, options.dir);
const FINDINGS = path.join(DIR, "findings");
/** A Worker isolate's memory; a call that grows workerd by more is over the budget. */
const OVER_BUDGET_BYTES = 128 * 1024 * 1024;
const MiB = 1024 * 1024;

const V1_CONVERT_TARGETS = ["png", "jpeg", "webp", "gif", "tiff", "avif"];
const COMPRESS_TARGETS = ["webp", "jpeg", "png"];

interface Call {
  path: string;
  body: Record<string, unknown>;
}

interface Answer {
  status: number;
  requestId: string | null;
  body: Record<string, any> | null;
  elapsedMs: number;
  peakRise: number;
  error?: string;
}

const EXT: Record<Format, string> = { png: "png", jpeg: "jpg", webp: "webp", avif: "avif", gif: "gif", bmp: "bmp", tiff: "tiff", heic: "heic" };

/** The mutant as a data URI declaring its seed's type (the service trusts only the bytes). */
function dataUri(bytes: Uint8Array, format: Format | "bin" = "png"): string {
  return `data:image/${format === "bin" ? "png" : format};base64,${Buffer.from(bytes).toString("base64")}`;
}

/**
 * The two calls a mutant is sent as: compress (random target and quality; one in four resized to
 * a small box, inside or cover: the resize routes) and convert-format (random target; one in
 * eight the playground's BMP).
 */
function callsFor(bytes: Uint8Array, format: Format, rng: Rng): Call[] {
  const image = dataUri(bytes, format);
  const pick = <T>(list: T[]) => list[Math.floor(rng() * list.length)]!;
  const resize = rng() < 0.25 ? { width: 1 + Math.floor(rng() * 48), height: 1 + Math.floor(rng() * 48), fit: pick(["inside", "cover"]) } : {};
  const compress: Call = { path: "/v1/compress", body: { image, targetFormat: pick(COMPRESS_TARGETS), ...(rng() < 0.7 ? { quality: 1 + Math.floor(rng() * 100) } : {}), ...resize } };
  const convert: Call = rng() < 0.125 ? { path: "/playground/convert-format", body: { image, targetFormat: "bmp" } } : { path: "/v1/convert-format", body: { image, targetFormat: pick(V1_CONVERT_TARGETS) } };
  return [compress, convert];
}

async function send(service: FuzzService, call: Call): Promise<Answer> {
  const key = await service.key();
  const started = Date.now();
  try {
    const { value, peakRise } = await service.measured(async () => {
      const response = await fetch(`${service.baseUrl}${call.path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify(call.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      return { status: response.status, requestId: response.headers.get("X-Request-Id"), text: await response.text() };
    });
    let body: Record<string, any> | null = null;
    try {
      body = JSON.parse(value.text) as Record<string, any>;
    } catch {
      body = { unparsable: value.text.slice(0, 300) };
    }
    return { status: value.status, requestId: value.requestId, body, elapsedMs: Date.now() - started, peakRise };
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    return { status: 0, requestId: null, body: null, elapsedMs: Date.now() - started, peakRise: 0, error: name === "TimeoutError" || name === "AbortError" ? "timeout" : String(error) };
  }
}

/** The size of the answer's image: the result's own fields, else the header of the file it carries. */
function answerSize(codecs: Codecs, body: Record<string, any>): { width: number; height: number } | null {
  const result = body.result as Record<string, any> | undefined;
  if (!result) return null;
  if (typeof result.width === "number" && typeof result.height === "number") return { width: result.width, height: result.height };
  const uri = typeof result.image === "string" ? result.image : typeof result.imageUrl === "string" && result.imageUrl.startsWith("data:") ? result.imageUrl : null;
  if (!uri) return null;
  const bytes = new Uint8Array(Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64"));
  const format = codecs.sniffFormat(bytes);
  if (!format || format === "svg") return null;
  const { width, height } = codecs.readHeader(bytes, format);
  return { width, height };
}

/** What the service should see when reading the mutant's header (null: not an image it reads). */
function headerOf(codecs: Codecs, bytes: Uint8Array): { format: Format; width: number; height: number } | null {
  try {
    const format = codecs.sniffFormat(bytes);
    return format && format !== "svg" ? codecs.readHeader(bytes, format) : null;
  } catch {
    return null;
  }
}

interface Finding {
  kind: "hang" | "crash" | "5xx" | "over-budget" | "oversize" | "kept-credit";
  detail: string;
}

function judge(codecs: Codecs, bytes: Uint8Array, answer: Answer, balanceLost: number): Finding[] {
  const findings: Finding[] = [];
  if (answer.error === "timeout") findings.push({ kind: "hang", detail: `no answer in ${TIMEOUT_MS} ms` });
  else if (answer.error) findings.push({ kind: "crash", detail: answer.error });
  else if (answer.status >= 500 && !(answer.status === 503 && answer.body?.error?.code === "service_busy")) findings.push({ kind: "5xx", detail: `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}` });
  if (answer.peakRise > OVER_BUDGET_BYTES) findings.push({ kind: "over-budget", detail: `workerd grew ${(answer.peakRise / MiB).toFixed(1)} MiB` });
  if (answer.status === 200 && answer.body) {
    const size = answerSize(codecs, answer.body);
    const header = headerOf(codecs, bytes);
    if (size && header) {
      const pixels = size.width * size.height;
      // Smaller is allowed: a HEIC's clean aperture crops, and a header read from a damaged file may say more than it holds.
      if (pixels > codecs.maxPixelsFor(header.format) || pixels > header.width * header.height) {
        findings.push({ kind: "oversize", detail: `answered ${size.width}x${size.height} for a ${header.format} whose header says ${header.width}x${header.height}` });
      }
    }
  }
  if (balanceLost > 0) findings.push({ kind: "kept-credit", detail: `${answer.status} and ${balanceLost} credit(s) kept` });
  return findings;
}

function record(finding: Finding, bytes: Uint8Array, format: Format | "bin", call: Call, answer: Answer, origin: Record<string, unknown>): string {
  mkdirSync(FINDINGS, { recursive: true });
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
  const name = `${finding.kind}-${hash}`;
  const file = `${name}.${format === "bin" ? "bin" : EXT[format]}`;
  writeFileSync(path.join(FINDINGS, file), bytes);
  const { image: _image, ...rest } = call.body;
  const reproduction = {
    finding,
    request: { path: call.path, body: { ...rest, image: `<data URI of ${file}>` } },
    file,
    answer: { status: answer.status, elapsedMs: answer.elapsedMs, peakRiseMiB: +(answer.peakRise / MiB).toFixed(1), body: JSON.stringify(answer.body)?.slice(0, 2000), error: answer.error },
    origin,
    replay: `npm run fuzz -- --replay ${path.relative(REPO_ROOT, path.join(FINDINGS, `${name}.json`))}`,
  };
  writeFileSync(path.join(FINDINGS, `${name}.json`), `${JSON.stringify(reproduction, null, 2)}\n`);
  return name;
}

async function replay(file: string): Promise<number> {
  const finding = JSON.parse(readFileSync(path.resolve(file), "utf8")) as { file: string; request: Call };
  const bytes = new Uint8Array(readFileSync(path.join(path.dirname(path.resolve(file)), finding.file)));
  const service = await startService((line) => console.log(`  ${line}`));
  const answer = await send(service, { path: finding.request.path, body: { ...finding.request.body, image: dataUri(bytes) } });
  console.log(JSON.stringify({ status: answer.status, elapsedMs: answer.elapsedMs, peakRiseMiB: +(answer.peakRise / MiB).toFixed(1), error: answer.error, body: JSON.stringify(answer.body)?.slice(0, 1000) }, null, 2));
  await service.worker.stop();
  return 0;
}

async function main(): Promise<number> {
  if (options.replay) return replay(options.replay);
  const log = (line: string) => console.log(`[fuzz ${new Date().toISOString().slice(11, 19)}] ${line}`);
  const codecs = await loadCodecs();
  const seeds: Seed[] = await makeSeeds(path.join(DIR, "seeds"));
  log(`${seeds.length} seeds (${[...new Set(seeds.map((s) => s.format))].join(", ")}), seed ${SEED}, ${MINUTES} min, ${TIMEOUT_MS} ms a call`);
  const service = await startService(log);
  const rng = prng(SEED);
  const counts = { mutants: 0, calls: 0, restarts: 0, status: {} as Record<string, number>, byFormat: {} as Record<string, number>, findings: {} as Record<string, number>, slowestMs: 0, peakRiseMiB: 0 };
  const findings: string[] = [];
  /** Each refusal's message with its numbers blanked, by request id: to name the ones charged before they were refused. */
  const refusalMessages = new Map<string, string>();
  let expected = await service.balance();
  const deadline = Date.now() + MINUTES * 60_000;
  let nextReport = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const seed = seeds[Math.floor(rng() * seeds.length)]!;
    const other = seeds[Math.floor(rng() * seeds.length)]!;
    const mutant = mutate(seed.bytes, other.bytes, rng);
    counts.mutants++;
    counts.byFormat[seed.format] = (counts.byFormat[seed.format] ?? 0) + 1;
    for (const call of callsFor(mutant.bytes, seed.format, rng)) {
      const answer = await send(service, call);
      counts.calls++;
      const label = answer.error === "timeout" ? "timeout" : answer.error ? "error" : String(answer.status);
      counts.status[label] = (counts.status[label] ?? 0) + 1;
      counts.slowestMs = Math.max(counts.slowestMs, answer.elapsedMs);
      counts.peakRiseMiB = Math.max(counts.peakRiseMiB, +(answer.peakRise / MiB).toFixed(1));
      // A 200 charges its price (the answer says what it took); anything else must leave the balance as it was.
      let lost = 0;
      if (answer.status === 200) expected -= Number(answer.body?.deductedCredits ?? 0);
      else if (!answer.error) {
        const balance = await service.balance();
        lost = expected - balance;
        expected = balance;
      }
      if (answer.status >= 400 && answer.status < 500 && answer.requestId) {
        refusalMessages.set(answer.requestId, `${String(answer.body?.error?.code)}: ${String(answer.body?.message ?? "").replace(/\d+/g, "N").slice(0, 120)}`);
      }
      const found = judge(codecs, mutant.bytes, answer, lost);
      for (const finding of found) {
        counts.findings[finding.kind] = (counts.findings[finding.kind] ?? 0) + 1;
        const name = record(finding, mutant.bytes, headerOf(codecs, mutant.bytes)?.format ?? "bin", call, answer, { seed: seed.name, other: other.name, ops: mutant.ops, runSeed: SEED });
        findings.push(name);
        log(`FINDING ${name}: ${finding.detail} (${call.path} ${String(call.body.targetFormat)}; ${mutant.ops.join("; ")})`);
      }
      if (answer.error) {
        // A hung or dead isolate serves nobody: start workerd again and read the balance afresh.
        counts.restarts++;
        await service.restart();
        expected = await service.balance();
      }
    }
    if (Date.now() >= nextReport) {
      nextReport = Date.now() + 30_000;
      log(`${counts.mutants} mutants, ${counts.calls} calls, status ${JSON.stringify(counts.status)}, findings ${JSON.stringify(counts.findings)}, slowest ${counts.slowestMs} ms, largest rise ${counts.peakRiseMiB} MiB`);
    }
  }
  await service.worker.stop();
  // Refusals charged and then refunded: the ledger took the credit before the call failed.
  const rows = await service.worker.query<{ status_code: number; calls: number; charged: number }>(
    "SELECT status_code, COUNT(*) AS calls, SUM(credits_deducted > 0) AS charged FROM usage_log WHERE tool IN ('compress_image', 'convert_format') GROUP BY status_code ORDER BY status_code",
  );
  const refusals = rows.filter((row) => row.status_code >= 400 && row.status_code < 500);
  const refused = refusals.reduce((n, row) => n + row.calls, 0);
  const charged = refusals.reduce((n, row) => n + row.charged, 0);
  const chargedIds = await service.worker.query<{ request_id: string }>(
    "SELECT request_id FROM usage_log WHERE status_code >= 400 AND status_code < 500 AND credits_deducted > 0 AND tool IN ('compress_image', 'convert_format')",
  );
  const chargedMessages: Record<string, number> = {};
  for (const { request_id } of chargedIds) {
    const message = refusalMessages.get(request_id) ?? "(not seen)";
    chargedMessages[message] = (chargedMessages[message] ?? 0) + 1;
  }
  const chargedByMessage = Object.entries(chargedMessages).sort((a, b) => b[1] - a[1]);
  const summary = { seed: SEED, minutes: MINUTES, ...counts, refusals: refused, refusalsChargedThenRefunded: charged, chargedByMessage, usageByStatus: rows, findingFiles: findings };
  mkdirSync(DIR, { recursive: true });
  writeFileSync(path.join(DIR, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  log(`done: ${counts.mutants} mutants, ${counts.calls} calls, status ${JSON.stringify(counts.status)}, ${counts.restarts} restarts`);
  log(`refusals ${refused}, of them charged and refunded ${charged} (${refused ? ((100 * charged) / refused).toFixed(1) : 0}%)`);
  for (const [message, n] of chargedByMessage.slice(0, 12)) log(`  charged, then refused: ${n} x ${message}`);
  log(findings.length ? `${findings.length} findings in ${path.relative(REPO_ROOT, FINDINGS)}: ${JSON.stringify(counts.findings)}` : "no findings");
  return findings.length ? 1 : 0;
}

runScript(main, { watchdogMs: (MINUTES + 15) * 60_000, watchdogMessage: "the fuzz run outlived its time and was stopped" });
