// Timing for `npm run bench:codecs`: the service's codec call and sharp at equal settings, run
// alternately in the same process so drift (thermal, a concurrent test run) hits both alike.
import sharp, { type FormatEnum, type OutputInfo } from "sharp";
import type { EncodeCase, SharpPlan, TimingCase } from "./codecs-cases.ts";
import { decodeBeyondLimit, recodeBeyondLimit, type Codecs, type Format, type Header, type Raster, type Resize } from "./codecs-service.ts";

export interface TimingOptions {
  /** Wall-clock budget per case for both sides together; the run count follows from it. */
  budgetMs: number;
  minRuns: number;
  maxRuns: number;
  /** Run each side once untimed first (WASM tier-up, sharp's lazy init). */
  warmUp: boolean;
  /** Past this moment every case gets minRuns, so the whole bench stays bounded. */
  hurryAfter: number;
  gc: () => void;
}

export interface TimingResult {
  id: string;
  label: string;
  kind: TimingCase["kind"];
  megapixels: number;
  width: number;
  height: number;
  runs: number;
  serviceMs: number;
  sharpMs: number;
  ratio: number;
  goalRatio: number | null;
  met: boolean | null;
  /** Output sizes (encode cases): similar sizes back up "equal settings". */
  serviceBytes: number | null;
  sharpBytes: number | null;
  /** CPU time / wall time of sharp's runs: about 1 when it really ran on one thread. */
  sharpCpuPerWall: number;
  /** The same for the service: above 1 when work left the JS thread (node:zlib's thread pool, as the PNG decoder's inflate). */
  serviceCpuPerWall: number;
  problems: string[];
}

/** Everything one size's cases need: the uploads and the rasters the service decoded from them. */
export interface SizeInputs {
  megapixels: number;
  width: number;
  height: number;
  files: Map<string, Uint8Array>;
  rasters: Map<string, Raster>;
  headers: Map<string, Header>;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

async function measure(run: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function asBuffer(data: Uint8ClampedArray | Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength); // a view, not a copy
}

function sharpEncode(raster: Raster, plan: SharpPlan): Promise<Buffer> {
  let image = sharp(asBuffer(raster.data), { raw: { width: raster.width, height: raster.height, channels: 4 } });
  if (plan.removeAlpha) image = image.removeAlpha();
  return image.toFormat(plan.format as keyof FormatEnum, plan.options).toBuffer();
}

function sharpRecode(bytes: Uint8Array, plan: SharpPlan): Promise<Buffer> {
  const image = sharp(asBuffer(bytes));
  return (plan.removeAlpha ? image.removeAlpha() : image).toFormat(plan.format as keyof FormatEnum, plan.options).toBuffer();
}

/** The file resized as compress and convert resize it: upright, Lanczos-3, never enlarged; sharp shrinks a JPEG while it loads, as the service does. */
function sharpResize(bytes: Uint8Array, resize: Resize, plan: SharpPlan): Promise<Buffer> {
  return sharp(asBuffer(bytes))
    .rotate()
    .resize({ width: resize.width, height: resize.height, fit: resize.fit ?? "inside", withoutEnlargement: true, kernel: "lanczos3" })
    .toFormat(plan.format as keyof FormatEnum, plan.options)
    .toBuffer();
}

function sharpDecode(bytes: Uint8Array): Promise<{ data: Buffer; info: OutputInfo }> {
  return sharp(asBuffer(bytes)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
}

/** Checks an encoded file the way a client would: right format, right size. */
function checkEncoded(codecs: Codecs, who: string, bytes: Uint8Array, target: Format, raster: { width: number; height: number }): string[] {
  const format = codecs.sniffFormat(bytes);
  if (format !== target) return [`${who} wrote ${String(format)}, not ${target}`];
  const header = codecs.readHeader(bytes, target);
  if (header.width !== raster.width || header.height !== raster.height) {
    return [`${who} wrote ${header.width}x${header.height}, not ${raster.width}x${raster.height}`];
  }
  return [];
}

/** A lossless PNG must decode to exactly the pixels it was given. */
async function checkLossless(codecs: Codecs, bytes: Uint8Array, raster: Raster): Promise<string[]> {
  const header = codecs.readHeader(bytes, "png");
  // Past the pixel limit decodeImage refuses; the check uses the PNG decoder itself then.
  const back = header.width * header.height > codecs.MAX_DECODE_PIXELS ? await decodeBeyondLimit(bytes, "png") : await codecs.decodeImage(bytes, header);
  const a = back.data;
  const b = raster.data;
  for (let i = 0; i < b.length; i += 4) {
    // Fully transparent pixels may store any colour.
    if (b[i + 3] === 0 && a[i + 3] === 0) continue;
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2] || a[i + 3] !== b[i + 3]) {
      return [`lossless PNG differs from its input at pixel ${i / 4}`];
    }
  }
  return [];
}

/** zlib's FLEVEL header field: 0 for levels 0-1, 1 for 2-5, 2 for 6, 3 for 7-9. */
function zlibLevelClass(level: number): number {
  return level < 2 ? 0 : level < 6 ? 1 : level === 6 ? 2 : 3;
}

/**
 * Equal settings hold only if the service deflated at the level sharp was given: the PNG
 * encoder picks its level per image, so the first IDAT's zlib header is read back.
 */
function checkPngLevel(bytes: Uint8Array, plan: SharpPlan): string[] {
  let at = 8;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  while (at + 8 <= bytes.length) {
    const length = view.getUint32(at);
    if (String.fromCharCode(...bytes.subarray(at + 4, at + 8)) === "IDAT") {
      const flevel = bytes[at + 9]! >> 6;
      const expected = zlibLevelClass(plan.options.compressionLevel as number);
      return flevel === expected ? [] : [`service deflated at FLEVEL ${flevel}, sharp was given level ${String(plan.options.compressionLevel)} (FLEVEL ${expected})`];
    }
    at += 12 + length;
  }
  return ["service PNG has no IDAT"];
}

/** The two functions to time for a case, and a check of their first outputs. */
function sides(c: TimingCase, inputs: SizeInputs, codecs: Codecs, plan: SharpPlan | null) {
  const bytes = inputs.files.get(c.input)!;
  if (c.kind === "decode") {
    const header = inputs.headers.get(c.input)!;
    return {
      service: () => codecs.decodeImage(bytes, header),
      sharp: () => sharpDecode(bytes),
      async check(service: unknown, theirs: unknown): Promise<string[]> {
        const ours = service as Raster;
        const { info } = theirs as { info: OutputInfo };
        const problems: string[] = [];
        if (ours.width !== inputs.width || ours.height !== inputs.height || ours.data.length !== inputs.width * inputs.height * 4) {
          problems.push(`service decoded ${ours.width}x${ours.height} (${ours.data.length} bytes)`);
        }
        if (info.width !== inputs.width || info.height !== inputs.height || info.channels !== 4) problems.push(`sharp decoded ${info.width}x${info.height}x${info.channels}`);
        return problems;
      },
    };
  }
  const raster = inputs.rasters.get(c.input)!;
  const options = c.quality === undefined ? {} : { quality: c.quality };
  const header = inputs.headers.get(c.input)!;
  if (c.resize) {
    const resize = c.resize;
    const size = codecs.resizeGeometry(header, resize) ?? header;
    return {
      service: async () => (await codecs.recodeImage(bytes, header, c.target, options, resize)).bytes,
      sharp: () => sharpResize(bytes, resize, plan!),
      check: async (service: unknown, theirs: unknown): Promise<string[]> => [
        ...checkEncoded(codecs, "service", service as Uint8Array, c.target, size),
        ...checkEncoded(codecs, "sharp", theirs as Buffer, c.target, size),
      ],
    };
  }
  const overLimit = header.width * header.height > codecs.MAX_DECODE_PIXELS;
  return {
    service: c.whole
      ? async () => (overLimit ? await recodeBeyondLimit(bytes, header, c.target, options) : await codecs.recodeImage(bytes, header, c.target, options)).bytes
      : () => codecs.encodeImage(raster, c.target, options),
    sharp: c.whole ? () => sharpRecode(bytes, plan!) : () => sharpEncode(raster, plan!),
    async check(service: unknown, theirs: unknown): Promise<string[]> {
      const problems = [...checkEncoded(codecs, "service", service as Uint8Array, c.target, raster), ...checkEncoded(codecs, "sharp", theirs as Buffer, c.target, raster)];
      if (problems.length === 0 && c.target === "png" && (c.quality ?? 100) >= 100) {
        problems.push(...checkPngLevel(service as Uint8Array, plan!), ...(await checkLossless(codecs, service as Uint8Array, raster)));
      }
      return problems;
    },
  };
}

/** Median wall time of the service and of sharp for one case at one size. */
export async function timeCase(
  c: TimingCase,
  inputs: SizeInputs,
  codecs: Codecs,
  plan: SharpPlan | null,
  options: TimingOptions,
): Promise<TimingResult> {
  const { service, sharp: theirs, check } = sides(c, inputs, codecs, plan);
  if (options.warmUp) {
    await service();
    await theirs();
    options.gc();
  }
  // The first pair is timed too; its outputs are checked and its length sets the run count.
  let firstService: unknown;
  let firstSharp: unknown;
  const first = {
    service: await measure(async () => (firstService = await service())),
    sharp: await measure(async () => (firstSharp = await theirs())),
  };
  const problems = await check(firstService, firstSharp);
  const serviceBytes = c.kind === "encode" ? (firstService as Uint8Array).length : null;
  const sharpBytes = c.kind === "encode" ? (firstSharp as Buffer).length : null;
  firstService = firstSharp = undefined;
  options.gc();

  const pairMs = first.service.wallMs + first.sharp.wallMs;
  const wanted = Math.floor(options.budgetMs / pairMs);
  const runs = Date.now() > options.hurryAfter ? options.minRuns : Math.max(options.minRuns, Math.min(options.maxRuns, wanted));
  const ours: Sample[] = [first.service];
  const sharps: Sample[] = [first.sharp];
  for (let i = 1; i < runs; i++) {
    // Alternate which side goes first, so neither always runs on a warmer cache.
    if (i % 2) {
      sharps.push(await measure(theirs));
      ours.push(await measure(service));
    } else {
      ours.push(await measure(service));
      sharps.push(await measure(theirs));
    }
    options.gc(); // outside the timed region: garbage from one run is not collected in the next
  }
  const serviceMs = median(ours.map((s) => s.wallMs));
  const sharpMs = median(sharps.map((s) => s.wallMs));
  const ratio = serviceMs / sharpMs;
  const goalRatio = c.kind === "encode" ? (c as EncodeCase).goalRatio : null;
  return {
    id: c.id,
    label: c.label,
    kind: c.kind,
    megapixels: inputs.megapixels,
    width: inputs.width,
    height: inputs.height,
    runs,
    serviceMs,
    sharpMs,
    ratio,
    goalRatio,
    met: goalRatio === null ? null : ratio <= goalRatio,
    serviceBytes,
    sharpBytes,
    sharpCpuPerWall: sharps.reduce((n, s) => n + s.cpuMs, 0) / sharps.reduce((n, s) => n + s.wallMs, 0),
    serviceCpuPerWall: ours.reduce((n, s) => n + s.cpuMs, 0) / ours.reduce((n, s) => n + s.wallMs, 0),
    problems,
  };
}
