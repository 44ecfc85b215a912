// The worker's codec layer (src/codecs), loaded into plain Node for the codec benchmark.
//
// test/hostile/node-codec-loader.ts (module hooks) makes Node compile the `.wasm` imports the way
// the worker's bundler does and transpile src/ TypeScript. The codec module is imported through
// a computed specifier and typed by the small interface below, so `tsc -p tsconfig.node.json`
// (which checks scripts/) does not pull the worker's sources into the Node type check.
import { readFileSync } from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

export type Format = "png" | "jpeg" | "webp" | "avif" | "gif" | "bmp" | "tiff" | "heic";

export interface Raster {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/** A call's price (src/codecs/recode-cost.ts Price): `keys` name the terms of the stage that set it. */
export interface Price {
  keys: readonly string[];
}

export interface Header {
  format: Format;
  width: number;
  height: number;
}

/** compress's and convert's resize fields (src/codecs/resize.ts ResizeRequest). */
export interface Resize {
  width?: number;
  height?: number;
  fit?: "inside" | "cover";
}

/** The part of src/codecs/index.ts the benchmark uses (the same calls the tools make). */
export interface Codecs {
  sniffFormat(bytes: Uint8Array): Format | "svg" | null;
  readHeader(bytes: Uint8Array, format: Format): Header;
  decodeImage(bytes: Uint8Array, header: Header): Promise<Raster>;
  encodeImage(image: Raster, format: Format, options?: { quality?: number }): Promise<Uint8Array>;
  recodeImage(bytes: Uint8Array, header: Header, format: Format, options?: { quality?: number }, resize?: Resize): Promise<{ bytes: Uint8Array; pieces: Iterable<Uint8Array>; length: number; width: number; height: number }>;
  paletteSizeForQuality(quality: number): number;
  /** The plan compress and convert make in prepare (src/codecs/recode.ts) and the gate's estimate of it (limits.ts). */
  planRecode(
    bytes: Uint8Array,
    header: Header,
    target: Format,
    options?: { quality?: number },
    resize?: Resize,
  ): { quality: number; price: Price; route: { row: { name: string }; facts: unknown } | null; resize: ResizePlan | null };
  /** The general path's price (a decode alone when `target` is null). */
  generalPrice(input: Format, target: Format | null, inputBytes: number, pixels: number): Price;
  estimateCodecBytes(pixels: number, price: Price, inputBytes: number): number;
  /** A resized call's estimate and the stage that sets it (src/codecs/resize-cost.ts). */
  resizedPrice(call: { format: Format; pixels: number; inputBytes: number; target: Format; quality: number; plan: ResizePlan }): { estimate: number; row: string; price: Price };
  /** The answer's size for a resize, or null when it leaves the picture as it is. */
  resizeGeometry(shown: { width: number; height: number }, request: Resize): { width: number; height: number } | null;
  MAX_DECODE_PIXELS: number;
  HARD_MAX_PIXELS: number;
  maxPixelsFor(format: Format): number;
  maxTargetPixelsFor(format: Format): number;
}

/** A resize as planned (src/codecs/resize.ts): the answer's size and the route that reads the file. */
export interface ResizePlan {
  width: number;
  height: number;
  route: { name: string; denom: number };
}

let loaded: Promise<Codecs> | undefined;

/** Each input format's own decoder module (what decodeImage dispatches to). */
const FORMAT_DECODERS: Partial<Record<Format, [file: string, name: string]>> = {
  jpeg: ["jpeg.ts", "decodeJpeg"],
  png: ["png.ts", "decodePng"],
  webp: ["webp.ts", "decodeWebp"],
  avif: ["avif.ts", "decodeAvif"],
  heic: ["heic.ts", "decodeHeic"],
};

/** What decodeHeic is told is the largest image it may decode, past the service's limit. */
const BEYOND_LIMIT_PIXELS = 100_000_000;

/**
 * Decodes with the format's own decoder, skipping decodeImage's pixel-limit check: for sizes
 * the service refuses, so the benchmark can still measure what encoding them would cost (and
 * where the limit should be). The bench's inputs carry no EXIF orientation, so the pixels are
 * the same decodeImage returns under the limit.
 */
export async function decodeBeyondLimit(bytes: Uint8Array, format: Format): Promise<Raster> {
  const [file, name] = FORMAT_DECODERS[format] ?? [];
  if (!file || !name) throw new Error(`no decoder module known for ${format}`);
  await loadCodecs(); // registers the loader hooks
  const module = (await import(pathToFileURL(path.join(REPO_ROOT, "src/codecs", file)).href)) as Record<string, (bytes: Uint8Array, maxPixels: number) => Promise<Raster>>;
  return module[name]!(bytes, BEYOND_LIMIT_PIXELS);
}

/**
 * recodeImage past the pixel limit: JPEG, PNG or WebP to WebP, JPEG or PNG, through our own WASM build (what
 * recodeImage does under the limit), anything else decoded with decodeBeyondLimit and encoded.
 */
export async function recodeBeyondLimit(bytes: Uint8Array, header: Header, target: Format, options: { quality?: number }): Promise<{ bytes: Uint8Array; pieces: readonly Uint8Array[]; length: number; width: number; height: number }> {
  const codecs = await loadCodecs();
  const input = header.format;
  if ((input === "jpeg" || input === "png" || input === "webp") && (target === "webp" || target === "jpeg" || target === "png")) {
    type Transcode = (bytes: Uint8Array, size: { width: number; height: number }, target: "webp" | "jpeg", quality: number) => Uint8Array | null;
    type ToPng = (bytes: Uint8Array, size: { width: number; height: number }, input: "jpeg" | "png" | "webp", quality: number) => Uint8Array | null;
    const native = (await import(pathToFileURL(path.join(REPO_ROOT, "src/codecs/native.ts")).href)) as Record<"transcodeJpeg" | "transcodePng" | "transcodeWebp", Transcode> & { transcodeToPng: ToPng };
    const out =
      target === "png"
        ? native.transcodeToPng(bytes, header, input, options.quality ?? 100)
        : { jpeg: native.transcodeJpeg, png: native.transcodePng, webp: native.transcodeWebp }[input](bytes, header, target, options.quality ?? 80);
    if (out) return { bytes: out, pieces: [out], length: out.length, width: header.width, height: header.height };
  }
  const raster = await decodeBeyondLimit(bytes, header.format);
  const encoded = await codecs.encodeImage(raster, target, options);
  return { bytes: encoded, pieces: [encoded], length: encoded.length, width: raster.width, height: raster.height };
}

/** Registers the loader hooks (once) and imports the codec layer. */
export function loadCodecs(): Promise<Codecs> {
  loaded ??= (async () => {
    register(pathToFileURL(path.join(REPO_ROOT, "test/hostile/node-codec-loader.ts")));
    const index = pathToFileURL(path.join(REPO_ROOT, "src/codecs/index.ts")).href;
    return (await import(index)) as Codecs;
  })();
  return loaded;
}

/**
 * The codec layer again, a second copy of every module, whose WASM has the work budget's draws
 * taken out (test/hostile/node-codec-loader.ts, scripts/wasm-fuel.ts unmeteredCopy): the
 * baseline `npm run bench:compare` times the metered layer against.
 */
export async function loadUnmeteredCodecs(): Promise<Codecs> {
  await loadCodecs(); // registers the loader hooks
  return (await import(`${pathToFileURL(path.join(REPO_ROOT, "src/codecs/index.ts")).href}?unmetered`)) as Codecs;
}

/** The encoder settings the service uses, so sharp can be given the same ones. */
export interface ServiceSettings {
  /** libwebp `method` (sharp calls it effort, 0-6). */
  webpMethod: number;
  /** MozJPEG progressive scans (sharp's mozjpeg preset is progressive). */
  jpegProgressive: boolean;
  /** libavif speed 0-10 (sharp's effort is 9 - speed). */
  avifSpeed: number;
  /** Deflate level the PNG writer starts photographic rows at (native/png_deflate.c LEVEL_PHOTO); sharp's compressionLevel. */
  pngLevel: number;
  /** Deflate level for palettes (native/png_deflate.c LEVEL_PALETTE). */
  pngPaletteLevel: number;
  /** The PNG palette size for a compress quality below 100 (src/codecs/png.ts). */
  paletteSize: (quality: number) => number;
  /** Where each value came from, printed with the report. */
  sources: string[];
}

/**
 * Reads the settings from the codec sources. AVIF_SPEED is exported; the WebP method (in our
 * native binding's C) and the JPEG progressive flag live inside option builders, so they are read from the source
 * text (with the values at the time of writing as fallback) rather than copied here, where they
 * would silently drift when src/codecs changes.
 */
export async function serviceSettings(codecs: Codecs): Promise<ServiceSettings> {
  const sources: string[] = [];
  const avif = (await import(pathToFileURL(path.join(REPO_ROOT, "src/codecs/avif.ts")).href)) as { AVIF_SPEED?: number };
  const avifSpeed = avif.AVIF_SPEED ?? 8;
  sources.push(avif.AVIF_SPEED === undefined ? "avif speed: AVIF_SPEED not exported, assumed 8" : "avif speed: AVIF_SPEED (src/codecs/avif.ts)");
  const webpMethod = fromSource("native/webp_sink.c", /->method\s*=\s*(\d+)/, "webp method", 4, sources);
  const progressive = fromSource("src/codecs/jpeg.ts", /\bprogressive:\s*(true|false)/, "jpeg progressive", 1, sources);
  const pngLevel = fromSource("native/png_deflate.c", /LEVEL_PHOTO\s*=\s*(\d+)/, "png deflate level for photographic rows", 2, sources);
  const pngPaletteLevel = fromSource("native/png_deflate.c", /LEVEL_PALETTE\s*=\s*(\d+)/, "png deflate level for palettes", 6, sources);
  return {
    webpMethod,
    jpegProgressive: progressive === 1,
    avifSpeed,
    pngLevel,
    pngPaletteLevel,
    paletteSize: codecs.paletteSizeForQuality,
    sources,
  };
}

function fromSource(file: string, pattern: RegExp, what: string, fallback: number, sources: string[]): number {
  const match = readFileSync(path.join(REPO_ROOT, file), "utf8").match(pattern);
  if (!match) {
    sources.push(`${what}: not found in ${file}, assumed ${fallback}`);
    return fallback;
  }
  sources.push(`${what}: ${match[1]} (${file})`);
  return match[1] === "true" ? 1 : match[1] === "false" ? 0 : Number(match[1]);
}
