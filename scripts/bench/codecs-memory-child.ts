// One request's peak memory, measured in a fresh process (started by codecs-memory.ts with
// --expose-gc) so nothing from an earlier case is still allocated.
//
//   node --expose-gc scripts/bench/codecs-memory-child.ts '<MemorySpec as JSON>'
//
// It runs the tool's path exactly: sniff and read the header of the uploaded bytes, then
// recodeImage with the case's quality (or, with path "general", decodeImage then encodeImage). What is counted ("peak"), sampled all along:
//   WASM linear memory  the byteLength of every codec instance's Memory that is still alive,
//                       found by wrapping WebAssembly.Instance (wasm.ts creates one per call);
//   JS ArrayBuffers     process.memoryUsage().arrayBuffers above the baseline taken just before
//                       the upload is read: the upload, the RGBA raster, the output, codec
//                       scratch buffers (Node counts WASM memory elsewhere, so nothing twice).
//   V8 heap             heapUsed above the baseline: the request's JSON text and its base64
//                       string (Hono keeps the parsed body for the whole request), the
//                       response's data URI (strings live in the heap, not in ArrayBuffers).
// The upload arrives as the request would: a JSON body `{"image":"data:...;base64,..."}` whose
// bytes are read after the baseline, parsed with Response.json() (what Request.json() does),
// decoded by the service's own data-URI reader, and the answer is built as a data URI in JSON.
// Not counted: the compiled WASM code (shared per isolate, not per request).
//
// Sampling points: after every call from WASM into JS (memory grows only through the
// emscripten_resize_heap import, and embind builds its JS result arrays in imports, so this
// sees each codec's largest memory together with what JS holds at that moment), once a
// millisecond while the event loop is free (a decoder between its zlib stream chunks), and at
// the stage boundaries. A full GC runs before each WASM instance is created and between decode and
// encode, so "live between stages" shows whether the decoder's memory is really released.
import { appendFileSync, closeSync, createReadStream, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { ModelWork } from "./codecs-cases.ts";
import { decodeBeyondLimit, loadCodecs, recodeBeyondLimit, REPO_ROOT, type Format, type Resize } from "./codecs-service.ts";

/** What the child says when the service would refuse the upload for its size (codecs-report.ts isPixelLimitRefusal counts it as a refusal). */
export const UPLOAD_REFUSED = "over the service's upload limit, refused as the service would";

export interface MemorySpec {
  id: string;
  inputPath: string;
  /** Absent: decode only. */
  target?: Format;
  quality?: number;
  /**
   * How the body is read: "spliced" (default, the service's path: the image decoded in place
   * out of the body's bytes, src/images/inline-body.ts) or "parsed" (the whole body parsed as
   * JSON and the data URI decoded from the parsed string, as before), to compare the two.
   */
  body?: "spliced" | "parsed";
  /**
   * "recode" (default with a target): the tools' one call, recodeImage, which takes our own WASM
   * build for JPEG to WebP/JPEG (stage "recode"). "general": decodeImage then encodeImage, the
   * jsquash path those conversions took before (the "before" figures).
   */
  path?: "recode" | "general";
  /** compress's or convert's resize (`width`, `height`, `fit`), run as the tools run it. */
  resize?: Resize;
  /**
   * A tool path instead of a codec call (codecs-cases.ts ToolCase): "upscale" (`factor`) reads
   * the upload, decodes it and writes the local upscaler's rows as a PNG into a multipart upload
   * (to a bucket that drops each part once sent); "preview" makes the MCP preview of the input
   * file as a stored result (read from disk as R2 would hand it out, a piece at a time).
   */
  operation?: "upscale" | "preview";
  /** The upscale's factor; for a preview, the stored result is the input upscaled by it (made before the baseline). */
  factor?: 2 | 4 | 8;
  /** A model tool's own work instead of a compress or convert (codecs-cases.ts MODEL_CASES). */
  model?: ModelWork;
}

type Stage = "decode" | "between" | "encode" | "recode";

/** The largest total seen in one stage, and what it was made of at that moment. */
export interface StagePeak {
  total: number;
  wasm: number;
  js: number;
}

export interface MemoryReport {
  id: string;
  ok: boolean;
  error?: string;
  peak: StagePeak & { stage: Stage };
  stages: Partial<Record<Stage, StagePeak>>;
  /** Largest V8 heap growth over the baseline (not part of `peak`). */
  heap: number;
  /** Largest Memory of each codec instance, by the stage that created it, and the largest size it asked for. */
  instances: { stage: Stage; bytes: number; requested: number }[];
  /** Whether any decode-stage WASM memory survived the full GC between decode and encode. */
  decoderMemoryAfterGc: number;
  inputBytes: number;
  rasterBytes: number;
  outputBytes: number;
  /** Decoded past the service's pixel limit (the service would refuse this input). */
  beyondLimit?: boolean;
  /**
   * What the memory gate admits this request with (limits.ts estimateCodecBytes of the plan
   * compress and convert make: recode.ts planRecode), the route table's row that runs it
   * ("general": none applies), the terms of the stage that set its price, and what the planner
   * priced it from (the header's facts, a HEIC's layout kept to its turns; the quality; a
   * resize's plan), so the
   * estimate can be computed again from the cost table as it then is. Computed after the measurement.
   */
  estimate?: number;
  row?: string;
  keys?: readonly string[];
  facts?: unknown;
  quality?: number;
  /** A resized call's plan (its route's facts kept as `facts` are), to compute its estimate again. */
  resize?: unknown;
  /** The upload's format, and the target (absent: decode only). */
  input?: string;
  target?: string;
  /** Loop turns the codecs took (src/codecs/fuel.ts counts a call's budget in them). */
  steps?: number;
  /** Kernel peak RSS (VmHWM) minus RSS at the baseline: everything, as a cross-check. */
  rssDelta: number | null;
  wallMs: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

// The slice of the WebAssembly API used here (the Node type check has no DOM lib to declare it).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
type WasmImports = Record<string, Record<string, unknown>>;
interface WasmGlobal {
  value: unknown;
}
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  Memory: abstract new (...args: never[]) => WasmMemory;
  Instance: { new (module: unknown, imports?: WasmImports): WasmInstance; prototype: WasmInstance };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface Tracked {
  ref: WeakRef<WasmMemory>;
  stage: Stage;
  max: number;
  /** Largest size the codec asked emscripten_resize_heap for (0: it never grew). */
  requested: number;
}

const tracked: Tracked[] = [];
let stage: Stage = "decode";
let base = process.memoryUsage();
const stages: Partial<Record<Stage, StagePeak>> = {};
let peak: StagePeak & { stage: Stage } = { total: 0, wasm: 0, js: 0, stage: "decode" };
let heapPeak = 0;
/** Set while the case runs; cleared when it ends, failed or not. */
let sampling = false;
/** The timer that samples while the event loop is free (cleared with `sampling`, or the child never exits). */
let ticker: ReturnType<typeof setInterval> | undefined;

/**
 * Samples once a millisecond while the event loop is free (a decoder between its zlib stream
 * chunks, the answer's stream between reads), on one reused interval timer. A loop of
 * setImmediate turns would spin as fast as the loop allows whenever the request waits, and its
 * own garbage (about 1 KB a turn: a promise, its async context, memoryUsage's object) lands in
 * the V8 heap this measurement counts as the request's: from nothing to 7 MB at the peak, from
 * one run to the next, depending on how long the waits were and when V8 last collected.
 */
function startSampling(): void {
  sampling = true;
  ticker = setInterval(sample, 1);
}

function stopSampling(): void {
  sampling = false;
  clearInterval(ticker);
}

function sample(): void {
  // Once the case is over, its checks (the output joined, a streamed BMP made once more for it) are not the request's.
  if (!sampling) return;
  let wasm = 0;
  for (const t of tracked) {
    const memory = t.ref.deref();
    if (!memory) continue;
    const bytes = memory.buffer.byteLength;
    if (bytes > t.max) t.max = bytes;
    wasm += bytes;
  }
  const usage = process.memoryUsage();
  const js = usage.arrayBuffers - base.arrayBuffers;
  const heap = Math.max(0, usage.heapUsed - base.heapUsed);
  const total = wasm + js + heap;
  heapPeak = Math.max(heapPeak, heap);
  const current = stages[stage];
  if (!current || total > current.total) stages[stage] = { total, wasm, js };
  if (total > peak.total) peak = { total, wasm, js, stage };
}

/** What every successful report carries: the peaks sampled and each codec instance's largest memory. */
function measured(): Pick<MemoryReport, "ok" | "peak" | "stages" | "heap" | "instances" | "steps"> {
  return { ok: true, peak, stages, heap: heapPeak, instances: tracked.map((t) => ({ stage: t.stage, bytes: t.max, requested: t.requested || t.max })), steps: stepsSpent() };
}

/**
 * The fuel each codec instance was handed (src/codecs/fuel.ts): outside a call, every instance
 * gets a global of its own that starts at 2^63 - 1, so what they spent together is the work
 * the request's codecs did, in the loop turns a call's budget counts.
 */
const fuels = new Set<WasmGlobal>();
const UNLIMITED_FUEL = 2n ** 63n - 1n;

function stepsSpent(): number {
  let spent = 0n;
  for (const fuel of fuels) spent += UNLIMITED_FUEL - (fuel.value as bigint);
  return Number(spent);
}

function track(memory: WasmMemory): Tracked {
  const known = tracked.find((t) => t.ref.deref() === memory);
  if (known) return known;
  const entry: Tracked = { ref: new WeakRef(memory), stage, max: 0, requested: 0 };
  tracked.push(entry);
  return entry;
}

/** The instance's own memory, set once it exists; imports use it to spot a growth. */
interface Owner {
  memory?: Tracked;
}

/**
 * Imports whose every function samples memory after it returns. A call during which the
 * instance's memory grew is emscripten_resize_heap(requestedSize): its argument is what the
 * codec needed, so committed - requested is the glue's over-allocation (it grows by up to 20%
 * more than asked).
 */
function sampledImports(imports: WasmImports | undefined, owner: Owner): WasmImports {
  const out: WasmImports = {};
  for (const [space, values] of Object.entries(imports ?? {})) {
    const wrapped: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) {
      wrapped[name] =
        typeof value === "function"
          ? function (this: unknown, ...args: unknown[]) {
              const before = owner.memory?.ref.deref()?.buffer.byteLength ?? 0;
              try {
                return (value as (...a: unknown[]) => unknown).apply(this, args);
              } finally {
                const memory = owner.memory;
                if (memory && (memory.ref.deref()?.buffer.byteLength ?? 0) > before) {
                  memory.requested = Math.max(memory.requested, Number(args[0]) >>> 0);
                }
                sample();
              }
            }
          : value;
    }
    out[space] = wrapped;
  }
  return out;
}

/** wasm.ts instantiates with `new WebAssembly.Instance`: wrap it to see every codec memory. */
function instrumentWebAssembly(): void {
  const NativeInstance = wasmApi.Instance;
  function TrackedInstance(module: unknown, imports?: WasmImports): WasmInstance {
    gc!(); // whatever an earlier instance left unreachable is gone before this one grows
    sample();
    const owner: Owner = {};
    for (const values of Object.values(imports ?? {})) {
      for (const value of Object.values(values)) if (value instanceof wasmApi.Memory) owner.memory = track(value);
    }
    const fuel = imports?.pixelgate?.fuel;
    if (fuel) fuels.add(fuel as WasmGlobal);
    const instance = new NativeInstance(module, sampledImports(imports, owner));
    for (const value of Object.values(instance.exports)) if (value instanceof wasmApi.Memory) owner.memory = track(value);
    sample();
    return instance;
  }
  TrackedInstance.prototype = NativeInstance.prototype;
  (wasmApi as { Instance: unknown }).Instance = TrackedInstance;
}

/** Linux only: VmHWM can be reset through clear_refs, so it shows this request's peak. */
function rssKb(field: "VmRSS" | "VmHWM"): number | null {
  try {
    const match = readFileSync("/proc/self/status", "utf8").match(new RegExp(`${field}:\\s+(\\d+)`));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function resetPeakRss(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

interface InputModules {
  decodeDataUri(text: string, param: string): { bytes: Uint8Array };
  spliceInlineImage(body: Uint8Array, tokenFor: () => Promise<string>): Promise<{ text: string; image?: { upload: { bytes: Uint8Array } } }>;
}

interface AnswerModules {
  dataUri(file: { pieces: Iterable<Uint8Array>; length: number }, mime: string): unknown;
  jsonBytes(value: unknown): ReadableStream<Uint8Array>;
}

/** The service's own readers of an inline image (src/images/inline-image.ts, inline-body.ts). */
async function inputModules(): Promise<InputModules> {
  const load = (file: string) => import(pathToFileURL(path.join(REPO_ROOT, "src/images", file)).href);
  return { ...(await load("inline-image.ts")), ...(await load("inline-body.ts")) } as InputModules;
}

/** How the service writes a compress answer: the data URI kept as bytes, the JSON written out in slices. */
async function answerModules(): Promise<AnswerModules> {
  const load = (file: string) => import(pathToFileURL(path.join(REPO_ROOT, "src", file)).href);
  return { ...(await load("http/base64-bytes.ts")), ...(await load("http/json-answer.ts")) } as AnswerModules;
}

/**
 * The body read as the service reads it; `parsed` is what stays referenced for the request
 * (Hono keeps the JSON text and hands out what it parses).
 */
async function readUpload(bodyPath: string, how: "spliced" | "parsed"): Promise<{ parsed: { image: string }; bytes: Uint8Array }> {
  const modules = await inputModules();
  const body = readFileSync(bodyPath); // the request body as it arrives; garbage once read
  if (how === "parsed") {
    const parsed = (await new Response(body).json()) as { image: string };
    return { parsed, bytes: modules.decodeDataUri(parsed.image, "image").bytes };
  }
  const spliced = await modules.spliceInlineImage(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), () => Promise.resolve("bench"));
  if (!spliced.image) {
    // Past the upload limit the reader leaves the image in the body and the service refuses it.
    const { MAX_INPUT_IMAGE_BYTES } = (await import(pathToFileURL(path.join(REPO_ROOT, "src/images/limits.ts")).href)) as { MAX_INPUT_IMAGE_BYTES: number };
    const size = readFileSync(bodyPath).length * 0.75;
    if (size > MAX_INPUT_IMAGE_BYTES) throw new Error(`${UPLOAD_REFUSED} (${(size / 2 ** 20).toFixed(1)} MB)`);
    // Under the size the reader splices (a small image), the service parses the body as JSON.
    const parsed = JSON.parse(spliced.text) as { image: string };
    return { parsed, bytes: modules.decodeDataUri(parsed.image, "image").bytes };
  }
  return { parsed: JSON.parse(spliced.text) as { image: string }, bytes: spliced.image.upload.bytes };
}

interface ToolModules {
  upscaleRows(picture: unknown, factor: number): unknown;
  pictureRows(bytes: Uint8Array, header: { format: string; width: number; height: number }): Promise<unknown>;
  pngPieces(rows: unknown): AsyncIterable<Uint8Array>;
  hostPieces(bucket: unknown, baseUrl: string, pieces: AsyncIterable<Uint8Array>, kind: string): Promise<{ bytes: number }>;
  estimateUpscaleBytes(source: { width: number; height: number; format: string; bytes: Uint8Array }, factor: number): number;
  UPSCALE_OUTPUT_LIMITS: { streamed: number };
  previewOfStored(file: { size: number; contentType: string | undefined; body: ReadableStream<Uint8Array>; arrayBuffer(): Promise<ArrayBuffer> }): Promise<{ data: string } | null>;
  previewBytes(file: { format: string; width: number; height: number; bytes: Uint8Array; stored: boolean }): number;
}

/** The service's upscale and preview modules (loaded before the baseline). */
async function toolModules(): Promise<ToolModules> {
  const load = (file: string) => import(pathToFileURL(path.join(REPO_ROOT, "src", file)).href);
  const modules = await Promise.all(["providers/local/upscale.ts", "codecs/picture-rows.ts", "codecs/native.ts", "storage/results.ts", "providers/upscale-limits.ts", "mcp/preview.ts"].map(load));
  return Object.assign({}, ...modules) as ToolModules;
}

/** An R2 bucket as hostPieces uses it that keeps nothing: each part is gone once "uploaded". */
const droppingBucket = {
  put: async () => ({}),
  createMultipartUpload: async () => ({
    uploadPart: async (partNumber: number, part: Uint8Array) => ({ partNumber, etag: String(part.length) }),
    complete: async () => ({}),
    abort: async () => {},
  }),
};

/** An R2 bucket as hostPieces uses it that writes the file to `file` on disk, a part at a time. */
function diskBucket(file: string) {
  const put = async (_key: string, part: Uint8Array) => (appendFileSync(file, part), {});
  return {
    put,
    createMultipartUpload: async () => ({
      uploadPart: async (partNumber: number, part: Uint8Array) => (appendFileSync(file, part), { partNumber, etag: "" }),
      complete: async () => ({}),
      abort: async () => {},
    }),
  };
}

/**
 * The stored result a preview case reads: the input itself, or (with `factor`) the local
 * upscale of it, written to disk before the baseline as the upscale tool would store it.
 */
async function storedResult(spec: MemorySpec, dir: string, codecs: Awaited<ReturnType<typeof loadCodecs>>): Promise<string> {
  if (spec.operation !== "preview" || !spec.factor) return spec.inputPath;
  const tools = await toolModules();
  const bytes = new Uint8Array(readFileSync(spec.inputPath));
  const format = codecs.sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error("not a raster");
  const header = codecs.readHeader(bytes, format);
  const limit = tools.UPSCALE_OUTPUT_LIMITS.streamed;
  if (header.width * header.height * spec.factor * spec.factor > limit) throw new Error(`at most ${limit} pixels can be written by the upscale tool`);
  const file = path.join(dir, "stored.png");
  await tools.hostPieces(diskBucket(file), "http://bench", tools.pngPieces(tools.upscaleRows(await tools.pictureRows(bytes, header), spec.factor)), "png");
  return file;
}

/**
 * A tool case, measured like a codec call: its estimate, what it read and wrote. An upscale
 * whose output passes the tool's limit is refused as the service would (codecs-report.ts
 * isPixelLimitRefusal).
 */
async function toolCase(spec: MemorySpec, bodyPath: string, stored: string, codecs: Awaited<ReturnType<typeof loadCodecs>>): Promise<{ estimate: number; inputBytes: number; outputBytes: number; row: string }> {
  const tools = await toolModules();
  if (spec.operation === "upscale") {
    const factor = spec.factor ?? 4;
    const { bytes } = await readUpload(bodyPath, spec.body ?? "spliced");
    const format = codecs.sniffFormat(bytes);
    if (format === null || format === "svg") throw new Error("not a raster");
    const header = codecs.readHeader(bytes, format);
    const limit = tools.UPSCALE_OUTPUT_LIMITS.streamed;
    if (header.width * header.height * factor * factor > limit) throw new Error(`at most ${limit} pixels can be written by the upscale tool`);
    // As the local provider reads it: the file's rows in bands (a whole decode for the formats the row source leaves).
    const picture = await tools.pictureRows(bytes, header);
    sample();
    stage = "encode";
    const hosted = await tools.hostPieces(droppingBucket, "http://bench", tools.pngPieces(tools.upscaleRows(picture, factor)), "png");
    sample();
    const estimate = tools.estimateUpscaleBytes({ ...header, bytes }, factor);
    return { estimate, inputBytes: bytes.length, outputBytes: hosted.bytes, row: "upscale" };
  }
  const size = statSync(stored).size;
  // The stored object's type, from its first bytes (R2 keeps it as httpMetadata); the file is then read as the preview reads it.
  const start = new Uint8Array(64);
  const fd = openSync(stored, "r");
  readSync(fd, start, 0, start.length, 0);
  closeSync(fd);
  const format = codecs.sniffFormat(start);
  if (format === null || format === "svg") throw new Error("not a raster");
  const contentType = `image/${format}`;
  const body = Readable.toWeb(createReadStream(stored, { highWaterMark: 64 * 1024 })) as unknown as ReadableStream<Uint8Array>;
  const preview = await tools.previewOfStored({ size, contentType, body, arrayBuffer: async () => new Uint8Array(await readFile(stored)).buffer });
  sample();
  if (!preview) throw new Error("no preview made");
  const file = new Uint8Array(readFileSync(stored)); // after the measurement
  const header = codecs.readHeader(file, format);
  const estimate = tools.previewBytes({ format, width: header.width, height: header.height, bytes: file, stored: true });
  return { estimate, inputBytes: size, outputBytes: preview.data.length, row: "preview" };
}

/** The service's model-tool work the MODEL_CASES run (src/providers/accepted-inputs.ts, local/full-size.ts, local/edit.ts). */
interface ModelModules {
  ACCEPTED_INPUTS: Record<"openai" | "workers-ai-flux2", unknown>;
  acceptedImage(image: TaskImage, accepts: unknown): Promise<{ bytes: Uint8Array; format: Format; width: number; height: number }>;
  inputPreparation(image: TaskImage, accepts: unknown): unknown;
  inputPreparationBytes(image: TaskImage, preparation: unknown): number;
  cutOutPhoto(image: TaskImage): Promise<ProviderAnswer>;
  cutOutPhotoBytes(image: TaskImage): number;
  editPhoto(image: TaskImage, plan: unknown): Promise<ProviderAnswer>;
  editPhotoBytes(image: TaskImage, plan: unknown): number;
  planEdit(instruction: string): unknown;
  encodeImage(image: { width: number; height: number; data: Uint8ClampedArray }, format: Format): Promise<Uint8Array>;
}
interface TaskImage {
  bytes: Uint8Array;
  format: Format;
  width: number;
  height: number;
}
type ProviderAnswer = { kind: "raster"; image: { width: number; height: number; data: Uint8ClampedArray } } | { kind: "encoded"; bytes: Uint8Array };

async function modelModules(): Promise<ModelModules> {
  const load = (file: string) => import(pathToFileURL(path.join(REPO_ROOT, "src", file)).href);
  return { ...(await load("providers/accepted-inputs.ts")), ...(await load("providers/local/full-size.ts")), ...(await load("providers/local/edit.ts")), ...(await load("codecs/index.ts")) } as ModelModules;
}

/**
 * A model case measured as the tool runs it: the input made acceptable to a provider's row, or
 * the local cut-out or edit at full size (a raster answer written as PNG, as runModel does);
 * the estimate is what the memory gate admits the call with (the provider's memoryFor).
 */
async function runModelWork(
  spec: MemorySpec,
  work: ModelWork,
  m: ModelModules,
  at: { bytes: Uint8Array; format: Format; header: { width: number; height: number }; parsed: { image: string }; started: number; rssReset: boolean; rss0: number | null },
): Promise<MemoryReport> {
  stage = "recode";
  const image: TaskImage = { bytes: at.bytes, format: at.format, width: at.header.width, height: at.header.height };
  let out: { bytes: Uint8Array; width: number; height: number };
  let estimate: number;
  if (work.tool === "accepted") {
    const accepts = m.ACCEPTED_INPUTS[work.row];
    estimate = m.inputPreparationBytes(image, m.inputPreparation(image, accepts));
    out = await m.acceptedImage(image, accepts);
  } else {
    const plan = work.tool === "edit" ? m.planEdit(work.instruction) : null;
    estimate = plan ? m.editPhotoBytes(image, plan) : m.cutOutPhotoBytes(image);
    const answer = plan ? await m.editPhoto(image, plan) : await m.cutOutPhoto(image);
    const bytes = answer.kind === "encoded" ? answer.bytes : await m.encodeImage(answer.image, "png");
    out = { bytes, width: 0, height: 0 };
  }
  sample();
  const wallMs = performance.now() - at.started;
  stopSampling();
  if (at.parsed.image.length === 0) throw new Error("request lost");
  const codecs = await loadCodecs();
  const written = codecs.sniffFormat(out.bytes);
  if (written === null || written === "svg") throw new Error("the answer is not an image");
  const h = codecs.readHeader(out.bytes, written);
  const hwm = rssKb("VmHWM");
  return {
    estimate,
    row: `model ${work.tool}${work.tool === "accepted" ? ` ${work.row}` : ""} -> ${written} ${h.width}x${h.height}`,
    id: spec.id,
    ...measured(),
    decoderMemoryAfterGc: 0,
    inputBytes: at.bytes.length,
    rasterBytes: 0,
    outputBytes: out.bytes.length,
    rssDelta: at.rssReset && hwm !== null && at.rss0 !== null ? (hwm - at.rss0) * 1024 : null,
    wallMs,
  };
}

/** Writes the JSON body a client would send for `inputPath`, before the baseline is taken. */
function writeRequestBody(inputPath: string, dir: string): string {
  const file = readFileSync(inputPath);
  const bodyPath = path.join(dir, "body.json");
  writeFileSync(bodyPath, `{"image":"data:image/x-upload;base64,${file.toString("base64")}"}`); // the bytes decide the format
  return bodyPath;
}

async function run(spec: MemorySpec, bodyPath: string): Promise<MemoryReport> {
  instrumentWebAssembly();
  const codecs = await loadCodecs(); // compiles the WASM modules; no instance exists yet
  await inputModules(); // loaded before the baseline
  await answerModules();
  if (spec.operation) await toolModules();
  const stored = await storedResult(spec, path.dirname(bodyPath), codecs);
  const model = spec.model ? await modelModules() : null;

  // Sampled while the loop is free too, for the JS codecs that allocate between awaits.
  startSampling();

  gc!();
  await nextTurn();
  gc!();
  base = process.memoryUsage();
  let answerLength = 0;
  // Samples the ticker took before this baseline counted loading (the .wasm files read in).
  peak = { total: 0, wasm: 0, js: 0, stage: "decode" };
  heapPeak = 0;
  for (const key of Object.keys(stages) as Stage[]) delete stages[key];
  fuels.clear();
  const rssReset = resetPeakRss();
  const rss0 = rssKb("VmRSS");
  const started = performance.now();

  if (spec.operation) {
    stage = "decode";
    const tool = await toolCase(spec, bodyPath, stored, codecs);
    const wallMs = performance.now() - started;
    stopSampling();
    const hwm = rssKb("VmHWM");
    return {
      ...tool,
      id: spec.id,
      ...measured(),
      decoderMemoryAfterGc: 0,
      rasterBytes: 0,
      rssDelta: rssReset && hwm !== null && rss0 !== null ? (hwm - rss0) * 1024 : null,
      wallMs,
    };
  }
  stage = spec.target && spec.path !== "general" ? "recode" : "decode";
  const { parsed, bytes } = await readUpload(bodyPath, spec.body ?? "spliced");
  const format = codecs.sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error(`input ${spec.inputPath} is not a raster format`);
  const header = codecs.readHeader(bytes, format);
  // Past the service's pixel limit decodeImage refuses; the same decoder is then called
  // directly, so the cost of the sizes the limit keeps out is measured too (beyondLimit).
  const beyondLimit = header.width * header.height > codecs.MAX_DECODE_PIXELS;
  const options = spec.quality === undefined ? {} : { quality: spec.quality };
  if (spec.model && model) return runModelWork(spec, spec.model, model, { bytes, format, header, parsed, started, rssReset, rss0 });
  // The file as the service sends it: the pieces our PNG and GIF writers leave it in, never
  // joined, or a BMP made as the answer is read.
  let output: { pieces: Iterable<Uint8Array>; length: number; bytes: Uint8Array } | null = null;
  let decoderMemoryAfterGc = 0;
  let picture: { width: number; height: number; rasterBytes: number };
  if (stage === "recode") {
    const recoded = beyondLimit ? await recodeBeyondLimit(bytes, header, spec.target!, options) : await codecs.recodeImage(bytes, header, spec.target!, options, spec.resize);
    sample();
    output = recoded;
    picture = { width: recoded.width, height: recoded.height, rasterBytes: 0 };
  } else {
    const raster = beyondLimit ? await decodeBeyondLimit(bytes, format) : await codecs.decodeImage(bytes, header);
    sample();
    if (raster.width * raster.height * 4 !== raster.data.length || raster.width !== header.width) throw new Error("decoded raster has the wrong size");
    picture = { width: raster.width, height: raster.height, rasterBytes: raster.data.byteLength };
    if (spec.target) {
      stage = "between";
      // WeakRef.deref (in sample) keeps its target alive until the current job ends: let the
      // jobs that sampled end, so the GC below can take whatever is really unreachable.
      await nextTurn();
      await nextTurn();
      gc!();
      sample();
      decoderMemoryAfterGc = tracked.filter((t) => t.stage === "decode").reduce((n, t) => n + (t.ref.deref()?.buffer.byteLength ?? 0), 0);
      stage = "encode";
      const encoded = await codecs.encodeImage(raster, spec.target, options);
      output = { pieces: [encoded], length: encoded.length, bytes: encoded };
      sample();
    }
  }
  if (spec.target && output) {
    // The answer as compress builds it: the file as a base64 data URI (the tool's dataUri)
    // inside the JSON envelope, written out as the service writes it (jsonBytes) and read as
    // the client would, a chunk at a time.
    const { dataUri, jsonBytes } = await answerModules();
    const reader = jsonBytes({ success: true, result: { image: dataUri(output, `image/${spec.target}`) } }).getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      answerLength += chunk.value.byteLength;
      sample();
    }
  }
  const wallMs = performance.now() - started;
  stopSampling();
  if (parsed.image.length === 0 || (spec.target && answerLength === 0)) throw new Error("request or answer lost");

  if (spec.target && output) {
    const written = codecs.sniffFormat(output.bytes); // joined now, after the measurement
    if (written !== spec.target) throw new Error(`wrote ${String(written)}, not ${spec.target}`);
    const h = codecs.readHeader(output.bytes, spec.target);
    if (h.width !== picture.width || h.height !== picture.height) throw new Error(`wrote ${h.width}x${h.height}`);
  }
  const hwm = rssKb("VmHWM");
  // The "before" figures of the general path are priced as that path.
  const plan = spec.target && stage === "recode" ? codecs.planRecode(bytes, header, spec.target, options, spec.resize) : null;
  const pixels = header.width * header.height;
  // A resized call: its plan's stages (resize-cost.ts), the dearer one's terms.
  const resized = plan?.resize ? codecs.resizedPrice({ format, pixels, inputBytes: bytes.length, target: spec.target!, quality: plan.quality, plan: plan.resize }) : null;
  const price = resized?.price ?? plan?.price ?? codecs.generalPrice(format, spec.target ?? null, bytes.length, pixels);
  return {
    estimate: resized?.estimate ?? codecs.estimateCodecBytes(pixels, price, bytes.length),
    row: resized?.row ?? plan?.route?.row.name ?? "general",
    keys: price.keys,
    input: format,
    ...(spec.target ? { target: spec.target } : {}),
    facts: plan?.route && !plan.resize ? recordedFacts(plan.route.facts) : null,
    ...(plan?.resize ? { resize: recordedFacts(plan.resize) } : {}),
    quality: plan?.quality ?? 100,
    id: spec.id,
    ...measured(),
    decoderMemoryAfterGc,
    inputBytes: bytes.length,
    rasterBytes: picture.rasterBytes,
    outputBytes: output?.length ?? 0,
    beyondLimit,
    rssDelta: rssReset && hwm !== null && rss0 !== null ? (hwm - rss0) * 1024 : null,
    wallMs,
  };
}

/**
 * The route's facts as the planner reads them again: a HEIC's layout without its list of coded
 * tiles (offsets and lengths: long, and no price reads them); its turns and the grid's sizes
 * (the picture's, a tile's, the columns and rows) stay, as the grid AVIF row's price reads them.
 */
function recordedFacts(facts: unknown): unknown {
  return JSON.parse(JSON.stringify(facts, (key, value: unknown) => (key === "tiles" && Array.isArray(value) ? undefined : value)));
}

const spec = JSON.parse(process.argv[2] ?? "{}") as MemorySpec;
const scratch = mkdtempSync(path.join(os.tmpdir(), "pixelgate-memory-"));
try {
  console.log(`MEMORY ${JSON.stringify(await run(spec, writeRequestBody(spec.inputPath, scratch)))}`);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  // What the request had taken when it failed: a call refused after its work began (a WebP past
  // its file allowance) must have stayed within its estimate too.
  console.log(`MEMORY ${JSON.stringify({ id: spec.id, ok: false, error: message, peak })}`);
  process.exitCode = 1;
  stopSampling();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
