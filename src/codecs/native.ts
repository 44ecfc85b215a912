// Pixelgate's own WASM codec build (native/*.c, built by scripts/build-wasm.sh from Debian's
// libjpeg-turbo, libwebp, libspng, zlib and libdeflate sources; docs/native-codecs.md): WebP,
// JPEG, PNG, GIF and BMP out, from a JPEG, PNG or WebP file in one call, or from an RGBA raster
// or YCbCr planes (a HEIC decoded by libheif) held in JavaScript. Every PNG, GIF and BMP the
// service writes comes from here.
//
// Why not jsquash here: its bindings take and return whole RGBA rasters, so a 12 MP JPEG to
// WebP held the image as the decoder's WASM output, its JS copy, the encoder's embind copy and
// its std::string copy (171 MB measured). This module decodes scanlines (JPEG) or rows (PNG)
// straight into the encoder's picture (YUV 4:2:0, 1.5 bytes a pixel, for WebP), applying the
// EXIF orientation on the way; a raster is copied in 16 rows at a time.
//
// Like the jsquash codecs (wasm.ts), each call gets a fresh instance that is dropped afterwards:
// linear memory never shrinks, and a dropped instance also takes whatever a failed call left
// behind. A fatal libjpeg error calls the `pg_fail` import, which throws through the WASM frames.

import { PixelgateError } from "../errors.ts";
import { bmpLayout } from "./bmp.ts";
import { fuelImports } from "./fuel.ts";
import { invalidImage } from "./bytes.ts";
import { joinPieces, streamedImage, type RecodedImage } from "./file-pieces.ts";
import nativeWasm from "./native/pixelgate-codecs.wasm";
import type { RasterImage, RasterRows } from "./formats.ts";
import type { Orientation } from "./orientation.ts";
import { imageHasAlpha } from "./raster.ts";
import { readWebpLayout } from "./webp.ts";

/** "baseline-jpeg": one sequential scan (SOF0), as a TIFF's JPEG strip must be; "jpeg" is progressive. */
export type NativeTarget = "webp" | "jpeg" | "baseline-jpeg";

/**
 * How the WebP encoder spends memory. `lowMemory`: libwebp codes each macroblock as it goes
 * instead of keeping every token of the picture for its final pass. The tokens grow with what
 * the picture holds (a 12 MP noise photo: 140 MB; a phone photo: 8), so a dense upload whose
 * tokens would not fit is encoded this way: about 1.65 times the CPU, files within 0.5%.
 * What the call was priced for is enforced: `tokenBytes`, the most the token buffer may take
 * (past it the picture is coded again as it goes, in the same call), and `fileBytes`, the most
 * the file may be (past it the call fails with image_too_large, before anything is answered).
 */
export interface WebpSettings {
  lowMemory?: boolean;
  tokenBytes?: number;
  fileBytes?: number;
}

/** Status codes of native/pixelgate.h. */
const enum NativeStatus {
  Ok = 0,
  Unsupported = 1,
  Invalid = 2,
  NoMemory = 3,
  EncodeFailed = 4,
  /** Ours, not the module's: the file outgrew what the call was priced for (WebpSettings.fileBytes). */
  FileTooLarge = 100,
}

interface NativeExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  malloc(size: number): number;
  pg_jpeg_to_webp(data: number, size: number, width: number, height: number, orientation: number, quality: number): number;
  pg_jpeg_to_jpeg(data: number, size: number, width: number, height: number, orientation: number, quality: number): number;
  pg_raster_begin(webp: number, width: number, height: number, alpha: number, quality: number, batchRows: number): number;
  pg_raster_rows(rows: number): void;
  pg_raster_end(): number;
  pg_png_to(webp: number, width: number, height: number, quality: number): number;
  pg_webp_to_webp(data: number, size: number, width: number, height: number, quality: number): number;
  pg_webp_to_jpeg(data: number, size: number, width: number, height: number, quality: number): number;
  pg_planes_begin(webp: number, width: number, height: number, alpha: number, quality: number, batchRows: number, kr: number, kb: number, fullRange: number): number;
  pg_planes_rows(rows: number): void;
  pg_planes_orientation(orientation: number): void;
  pg_planes_end(): number;
  pg_to_png(input: number, data: number, size: number, width: number, height: number, orientation: number, quality: number): number;
  pg_planes_to_png(width: number, height: number, alpha: number, quality: number, kr: number, kb: number, fullRange: number): number;
  pg_planes_to_gif(width: number, height: number, alpha: number, kr: number, kb: number, fullRange: number): number;
  pg_planes_bmp_begin(width: number, height: number, alpha: number, kr: number, kb: number, fullRange: number, chunkRows: number): number;
  pg_jpeg_baseline(on: number): void;
  pg_jpeg_window(bytes: number): void;
  pg_webp_low_memory(on: number): void;
  pg_webp_token_cap(bytes: number): void;
  pg_to_gif(input: number, data: number, size: number, width: number, height: number, orientation: number): number;
  pg_bmp_begin(input: number, data: number, size: number, width: number, height: number, orientation: number, chunkRows: number): number;
  pg_bmp_rows(): number;
  pg_rgba_to_png(width: number, height: number, alpha: number, quality: number): number;
  pg_rgba_to_gif(width: number, height: number, alpha: number): number;
  pg_rgba_bmp_begin(width: number, height: number, alpha: number, chunkRows: number): number;
  pg_resize_file(input: number, data: number, size: number, width: number, height: number, denom: number, x: number, y: number, w: number, h: number, outWidth: number, outHeight: number): number;
  pg_planes_resize(width: number, height: number, alpha: number, kr: number, kb: number, fullRange: number, x: number, y: number, w: number, h: number, outWidth: number, outHeight: number): number;
  pg_resize_begin(width: number, height: number, x: number, y: number, w: number, h: number, outWidth: number, outHeight: number, batchRows: number): number;
  pg_resize_rows(rows: number): void;
  pg_resize_end(): number;
  pg_png_push_begin(width: number, height: number, alpha: number, rows: number): number;
  pg_png_push_rows(rows: number): number;
  pg_png_push_end(): number;
  pg_output_data(): number;
  pg_output_size(): number;
}

/** A status the module reported through pg_fail or proc_exit (the HEVC module shares it: hevc.ts). */
export class NativeFailure extends Error {
  constructor(readonly status: number) {
    super(`native codec status ${status}`);
  }
}

/** WASI calls libc keeps references to; the binding silences every path that would reach them. */
const ENOSYS = 52;
export const wasiStubs = {
  fd_write: () => ENOSYS,
  fd_seek: () => ENOSYS,
  fd_close: () => ENOSYS,
  environ_sizes_get: () => ENOSYS,
  environ_get: () => ENOSYS,
  proc_exit: (code: number) => {
    throw new NativeFailure(code === 0 ? NativeStatus.EncodeFailed : code);
  },
};

/**
 * A fresh instance. `file`: what the module's pg_read and pg_read_at imports hand out, in the
 * pieces it asks for (the PNG paths read their input that way instead of from a copy in WASM
 * memory). `written`: where the pg_write import puts the pieces of a file the module hands out
 * as it writes it (a lossless PNG, a GIF, a WebP), copied out of WASM memory, within the WebP
 * settings' `fileBytes`. `planes`: what the pg_read_planes import copies in, a band of rows at a
 * time (the PNG writer reading a HEIC's planes); `raster`: what pg_read_rgba copies in, a batch
 * of rows at a time (the PNG, GIF and BMP writers reading a raster: encodeRgba); `into`: where
 * pg_write copies the file instead, piece after piece (a BMP of known size); `staging`: where it
 * gathers what a step wrote, for the caller to take (pngPieces).
 */
function instantiate(file: Uint8Array | undefined, written: Uint8Array[], { planes, raster, into, staging, webp }: RunOptions): NativeExports {
  const fileBytes = webp?.fileBytes ?? Infinity;
  // The raster's bytes as a Uint8Array over the same memory: copies between like arrays are plain copies.
  const rasterBytes = raster && new Uint8Array(raster.data.buffer, raster.data.byteOffset, raster.data.byteLength);
  let exports: NativeExports | undefined;
  let offset = 0;
  const held: Uint8Array[] = [];
  let handedOut = 0;
  let filled = 0;
  /** A copy of what the module hands out, within the file's allowance. */
  const out = (data: number, length: number): Uint8Array => {
    handedOut += length;
    if (handedOut > fileBytes) throw new NativeFailure(NativeStatus.FileTooLarge);
    return new Uint8Array(exports!.memory.buffer, data, length).slice();
  };
  const readAt = (dst: number, at: number, length: number): number => {
    if (!file || at + length > file.length) return 0;
    new Uint8Array(exports!.memory.buffer, dst, length).set(file.subarray(at, at + length));
    return 1;
  };
  const instance = new WebAssembly.Instance(nativeWasm, {
    env: {
      pg_fail: (status: number) => {
        throw new NativeFailure(status);
      },
      pg_read: (dst: number, length: number): number => {
        const ok = readAt(dst, offset, length);
        offset += ok * length;
        return ok;
      },
      pg_read_at: readAt,
      pg_read_planes: (band: number, first: number, rows: number, batch: number) => {
        copyPlanesBand(planes!, planes!.width, new Uint8Array(exports!.memory.buffer), band, first, rows, batch);
      },
      pg_read_rgba: (dst: number, first: number, rows: number) => {
        const rowBytes = raster!.width * 4;
        new Uint8Array(exports!.memory.buffer, dst, rows * rowBytes).set(rasterBytes!.subarray(first * rowBytes, (first + rows) * rowBytes));
      },
      pg_write: (data: number, length: number) => {
        if (staging) return void staging.put(new Uint8Array(exports!.memory.buffer, data, length));
        if (!into) return void written.push(out(data, length));
        into.set(new Uint8Array(exports!.memory.buffer, data, length), filled);
        filled += length;
      },
      // libwebp's token partition, handed out as it grows (native/libwebp-memory.patch): held
      // until libwebp writes the file up to where the partition starts.
      pg_hold: (data: number, length: number) => {
        held.push(out(data, length));
      },
      pg_release_held: () => {
        written.push(...held.splice(0));
      },
      emscripten_notify_memory_growth: () => {},
    },
    wasi_snapshot_preview1: wasiStubs,
    ...fuelImports(nativeWasm),
  });
  exports = instance.exports as unknown as NativeExports;
  exports._initialize();
  return exports;
}

/**
 * Transcodes a whole JPEG file (structure already checked: readJpegScans) of the given header
 * size to `target`, with the EXIF orientation applied. Returns null for a valid JPEG this build
 * does not handle (CMYK, RGB-coded), which the caller decodes the general way. Throws
 * invalid_image for corrupt data or a size other than `width` x `height`, image_too_large when
 * memory runs out.
 */
export function transcodeJpeg(
  bytes: Uint8Array,
  size: { width: number; height: number },
  target: NativeTarget,
  quality: number,
  orientation: Orientation = 1,
  webp: WebpSettings = {},
): Uint8Array | null {
  return runNative(
    target,
    (native) => {
      const input = copyIn(native, bytes);
      const run = target === "webp" ? native.pg_jpeg_to_webp : native.pg_jpeg_to_jpeg;
      // The module owns `input` from here and frees it once decoded.
      return run(input, bytes.length, size.width, size.height, orientation, quality);
    },
    undefined,
    { webp },
  );
}

/**
 * Re-encodes a whole still WebP file (lossy or lossless, with or without alpha) of the given
 * header size as `target`: WebP keeps alpha, JPEG flattens onto black. Returns null for what
 * this path leaves to the general one (animations); throws invalid_image for damaged data or a
 * size other than the header's, image_too_large when memory runs out. The EXIF orientation is
 * not applied: the caller sends oriented files the general way.
 */
export function transcodeWebp(bytes: Uint8Array, size: { width: number; height: number }, target: NativeTarget, quality: number, webp: WebpSettings = {}): Uint8Array | null {
  return runNative(
    target,
    (native) => {
      const input = readInPieces(bytes) ? 0 : copyIn(native, bytes);
      const run = target === "webp" ? native.pg_webp_to_webp : native.pg_webp_to_jpeg;
      // The module owns `input` from here and frees it once decoded.
      return run(input, bytes.length, size.width, size.height, quality);
    },
    bytes,
    { webp },
  );
}

/**
 * A lossless WebP is read by our own VP8L decoder, which takes the file from JavaScript a chunk
 * at a time (pg_read_at) instead of a copy in WASM memory (libwebp's lossy decoder needs one).
 */
function readInPieces(bytes: Uint8Array): boolean {
  try {
    return readWebpLayout(bytes).lossless;
  } catch {
    return false;
  }
}

/** The file copied into the instance's memory; the address the module takes over. */
function copyIn(native: NativeExports, bytes: Uint8Array): number {
  const input = native.malloc(bytes.length);
  if (input === 0) throw new NativeFailure(NativeStatus.NoMemory);
  new Uint8Array(native.memory.buffer, input, bytes.length).set(bytes);
  return input;
}

/**
 * Re-encodes a whole PNG file of the given header size as `target` (WebP keeps alpha, JPEG
 * flattens onto black), decoding it a row at a time. Returns null for what this path leaves to
 * the TypeScript decoder (interlaced files); throws invalid_image for damaged data or a size
 * other than the header's, image_too_large when memory runs out.
 */
export function transcodePng(bytes: Uint8Array, size: { width: number; height: number }, target: NativeTarget, quality: number, webp: WebpSettings = {}): Uint8Array | null {
  return runNative(target, (native) => native.pg_png_to(target === "webp" ? 1 : 0, size.width, size.height, quality), bytes, { webp });
}

/**
 * Re-encodes a whole JPEG (structure already checked, EXIF `orientation` applied), PNG
 * (non-interlaced) or still WebP file as PNG without a raster (native/png_sink.c): quality 100 lossless in the
 * smallest exact layout, below 100 a palette of 2^(quality/10) colours unless the lossless file
 * is smaller, the rules png.ts states. The file is decoded once for its
 * statistics and once per file written. Null for what this path leaves to the general one (CMYK
 * JPEG, interlaced PNG, animated WebP); invalid_image for damaged data or a size other than the
 * header's.
 *
 * The file (a lossless one is 1 to 3 bytes a pixel for a photo, the largest thing the request
 * holds) leaves WASM memory in pieces as it is deflated, and stays in pieces (file-pieces.ts). Below quality 100, a
 * lossless candidate that beats the palette file is the call's output instead, read as a view
 * of the dropped instance's memory (the pieces are then the losing palette file).
 */
export function transcodeToPng(
  bytes: Uint8Array,
  size: { width: number; height: number },
  input: "jpeg" | "png" | "webp",
  quality: number,
  orientation: Orientation = 1,
): Uint8Array | null {
  return runNative(
    "png",
    (native) => native.pg_to_png(...rowSource(native, bytes, input), size.width, size.height, orientation, Math.round(quality)),
    bytes,
    { view: true },
  );
}

/**
 * YCbCr 4:2:0 planes (a HEIC decoded by libheif) written as PNG by the same writer as
 * transcodeToPng, the planes copied in a band of rows per pass and converted to RGB with their
 * own matrix and range (the conversion the WebP and JPEG encoders' samples go through).
 */
export function planesToPng(image: YCbCrImage, quality: number): Uint8Array {
  const { width, height, alpha } = image;
  const call = (native: NativeExports) => native.pg_planes_to_png(width, height, alpha ? 1 : 0, Math.round(quality), image.kr, image.kb, image.fullRange ? 1 : 0);
  const out = runNative("png", call, undefined, { view: true, planes: image });
  if (!out) throw new PixelgateError("internal_error", "The native encoder refused YCbCr planes.");
  return out;
}

/**
 * The same planes as GIF (native/gif_sink.c reading the rows the PNG writer reads), the rules of
 * transcodeToPalette: the general path's file for the same pixels.
 */
export function planesToGif(image: YCbCrImage): Uint8Array {
  const { width, height, alpha } = image;
  const call = (native: NativeExports) => native.pg_planes_to_gif(width, height, alpha ? 1 : 0, image.kr, image.kb, image.fullRange ? 1 : 0);
  const out = runNative("gif", call, undefined, { planes: image });
  if (!out) throw new PixelgateError("internal_error", "The native encoder refused YCbCr planes.");
  return out;
}

/** The same planes as a streamed BMP (streamBmp); the planes are read again for each reading. */
export function planesToBmp(image: YCbCrImage): RecodedImage {
  const { width, height, alpha } = image;
  const begin = (native: NativeExports, chunkRows: number) =>
    native.pg_planes_bmp_begin(width, height, alpha ? 1 : 0, image.kr, image.kb, image.fullRange ? 1 : 0, chunkRows);
  const out = streamedBmp(begin, { width, height }, undefined, { planes: image });
  if (!out) throw new PixelgateError("internal_error", "The native encoder refused YCbCr planes.");
  return out;
}

/** A row source's kind, file address and size (native/png_sink.h PgRows), as the pg_to_* calls take them. */
type RowSource = [kind: number, data: number, size: number];

/** native/png_sink.h PG_FROM_*. */
const ROW_SOURCE_KIND = { jpeg: 0, png: 1, webp: 2 } as const;

/**
 * The arguments that name the file a row-streaming writer reads. libjpeg and libwebp read from
 * memory: the file is decoded more than once, so it is copied in once. libspng pulls a PNG
 * through pg_read_at instead.
 */
function rowSource(native: NativeExports, bytes: Uint8Array, input: keyof typeof ROW_SOURCE_KIND): RowSource {
  return [ROW_SOURCE_KIND[input], input === "png" || (input === "webp" && readInPieces(bytes)) ? 0 : copyIn(native, bytes), bytes.length];
}

/**
 * Re-encodes a whole JPEG (structure already checked, EXIF `orientation` applied), PNG
 * (non-interlaced) or still WebP file as GIF or BMP without a raster, the rules encodeRgba
 * writes a raster with: native/gif_sink.c, native/bmp_sink.c. A GIF decodes the file twice
 * (statistics for its palette, then the rows) and leaves WASM memory in pieces as it is written;
 * a BMP is streamBmp's, joined. Null for what this path leaves to the general one (CMYK JPEG, interlaced PNG, animated WebP);
 * invalid_image for damaged data or a size other than the header's.
 */
export function transcodeToPalette(
  bytes: Uint8Array,
  size: { width: number; height: number },
  input: "jpeg" | "png" | "webp",
  target: "gif" | "bmp",
  orientation: Orientation = 1,
): Uint8Array | null {
  if (target === "bmp") return streamBmp(bytes, size, input, orientation)?.bytes ?? null;
  return runNative("gif", (native) => native.pg_to_gif(...rowSource(native, bytes, input), size.width, size.height, orientation), bytes);
}

/** Bytes of BMP one pg_bmp_rows call writes (whole rows, at least one): a piece of the streamed file. */
const BMP_PIECE_BYTES = 192 * 1024;

/**
 * A JPEG, PNG or still WebP file (as transcodeToPalette takes them) as a BMP that is never whole
 * (native/bmp_sink.c): a BMP is 3 bytes a pixel (69 MB at 24 MP) and its rows run bottom-up, so
 * it is written from the file's rows in bands, bottom band first, each band decoding the file
 * again, a piece at a time as its reader asks for it; each reading of the result makes it again
 * from the upload. The whole picture is decoded once here first, so damage is answered as
 * invalid_image before anything is charged or sent. Null for what this path leaves to the
 * general one.
 */
export function streamBmp(bytes: Uint8Array, size: { width: number; height: number }, input: "jpeg" | "png" | "webp", orientation: Orientation = 1): RecodedImage | null {
  const turned = orientation >= 5;
  const shown = turned ? { width: size.height, height: size.width } : size;
  const begin = (native: NativeExports, chunkRows: number) => native.pg_bmp_begin(...rowSource(native, bytes, input), size.width, size.height, orientation, chunkRows);
  return streamedBmp(begin, shown, bytes, {});
}

/**
 * The streamed BMP `begin` opens (pg_bmp_begin or pg_planes_bmp_begin), `shown` wide and high:
 * its first reading begun now on a fresh instance (the input's verdict), every further one on
 * a fresh instance of its own. Null when the module leaves the input to the general path.
 */
function streamedBmp(begin: (native: NativeExports, chunkRows: number) => number, shown: { width: number; height: number }, file: Uint8Array | undefined, options: RunOptions): RecodedImage | null {
  const { stride, size } = bmpLayout(shown.width, shown.height);
  const chunkRows = Math.max(1, Math.floor(BMP_PIECE_BYTES / stride));
  const reading = (): Iterator<Uint8Array> | null => {
    const started = startNative("bmp", (native) => begin(native, chunkRows), file, options);
    return started && bmpPieces(started.native, started.written);
  };
  const first = reading();
  if (!first) return null;
  return streamedImage(size, shown.width, shown.height, first, () => {
    const again = reading();
    // The same input and instance once more: what the first reading accepted, this one does.
    if (!again) throw new PixelgateError("internal_error", "The BMP could not be made again.");
    return again;
  });
}

/** RGBA rows of a picture, read top to bottom, a few at a time. */
export interface RgbaRows {
  width: number;
  height: number;
  /** The next `rows` rows into `into` (width x rows x 4 bytes). */
  read(into: Uint8ClampedArray, rows: number): void;
}

/**
 * EXIF orientation o flipped top to bottom (native/bmp_sink.c BOTTOM_UP, which is its own
 * inverse): what pg_bmp_begin is given so that its bottom-up rows come out top-down.
 */
const FLIPPED_ORIENTATION: Record<Orientation, number> = { 1: 4, 2: 3, 3: 2, 4: 1, 5: 8, 6: 7, 7: 6, 8: 5 };

/**
 * A JPEG, PNG or still WebP file (as transcodeToPalette takes them) as RGBA rows, top to bottom,
 * its EXIF `orientation` applied and any alpha composited onto black (for opaque pictures):
 * the BMP writer's row source (streamBmp), asked for the picture flipped so its rows come in
 * reading order, a row per call. Only the row source's memory is held (a band of up to 8 MB for
 * a turned picture, each band decoding the file again). The whole file is decoded once first,
 * so damage is found before any row is handed out. Null when the module leaves the file to the
 * general path.
 */
export function rgbaRows(bytes: Uint8Array, size: { width: number; height: number }, input: "jpeg" | "png" | "webp", orientation: Orientation = 1): RgbaRows | null {
  const turned = orientation >= 5;
  const { width, height } = turned ? { width: size.height, height: size.width } : size;
  const begin = (native: NativeExports) => native.pg_bmp_begin(...rowSource(native, bytes, input), size.width, size.height, FLIPPED_ORIENTATION[orientation], 1);
  // Each row is gathered into one reused buffer (StagedBytes): no copy is left behind per row
  // for the collector.
  const staging = new StagedBytes();
  const started = startNative("bmp", begin, bytes, { staging });
  if (!started) return null;
  const { native } = started;
  staging.take(); // the BMP's header
  return {
    width,
    height,
    read(into, rows) {
      for (let k = 0; k < rows; k++) {
        if (native.pg_bmp_rows() !== 1) throw new PixelgateError("internal_error", "The picture's rows ended early.");
        const bgr = staging.take();
        for (let x = 0, at = k * width * 4; x < width; x++, at += 4) {
          into[at] = bgr[3 * x + 2]!;
          into[at + 1] = bgr[3 * x + 1]!;
          into[at + 2] = bgr[3 * x]!;
          into[at + 3] = 255;
        }
      }
    },
  };
}

/** The header pg_bmp_begin wrote, then the rows, a pg_bmp_rows call per piece. */
function* bmpPieces(native: NativeExports, written: Uint8Array[]): Generator<Uint8Array> {
  yield* written.splice(0);
  while (native.pg_bmp_rows() > 0) yield* written.splice(0);
}

/** Where runNative puts a file's pieces while inPieces runs (the encodes are synchronous: nothing else runs meanwhile). */
let pieceSink: Uint8Array[] | null = null;

/**
 * Runs one of the encodes above keeping its file in the pieces it left WASM memory in (libwebp's
 * writes, the PNG writer's deflated parts, a GIF's LZW blocks), for the answer to send as they
 * are; a file the module holds whole (a JPEG, a PNG's winning lossless candidate) comes back as
 * one piece. Joining pieces would hold the file twice while the
 * encoder's memory is still alive.
 */
export function inPieces(encode: () => Uint8Array | null): Uint8Array[] | null {
  const pieces: Uint8Array[] = [];
  pieceSink = pieces;
  try {
    const out = encode();
    return out && (out.length > 0 || pieces.length === 0 ? [out] : pieces);
  } finally {
    pieceSink = null;
  }
}

/** Rows copied into WASM memory per call: small next to any image, even (2x2 chroma cells). */
const RASTER_BATCH_ROWS = 16;

/**
 * Encodes an RGBA raster held in JavaScript as WebP (alpha kept when any pixel is not opaque)
 * or JPEG (flattened onto black), copying it into WASM memory a few rows at a time, so the
 * encoder's memory holds its own picture (YUV planes, or the JPEG coefficients) and not a second
 * copy of the raster. `webp`: how the WebP encoder spends memory (a resized answer: coded as it goes).
 */
export function encodeRaster(image: RasterImage, target: NativeTarget, quality: number, webp: WebpSettings = {}): Uint8Array {
  const { width, height } = image;
  const alpha = target === "webp" && imageHasAlpha(image);
  const call = (native: NativeExports) => {
    const rows = native.pg_raster_begin(target === "webp" ? 1 : 0, width, height, alpha ? 1 : 0, quality, RASTER_BATCH_ROWS);
    copyRasterIn(native, image, rows, native.pg_raster_rows);
    return native.pg_raster_end();
  };
  const out = runNative(target, call, undefined, { webp });
  if (!out) throw new PixelgateError("internal_error", "The native encoder refused a raster.");
  return out;
}

/**
 * Encodes a picture that arrives as bands of RGBA rows, top to bottom (each `width` wide, their
 * heights adding up to `height`), as encodeRaster does a whole raster: no band is needed once
 * copied in, so the picture is never whole in JavaScript (the local models' full-size answers:
 * src/providers/local/full-size.ts). `alpha`: WebP keeps the rows' alpha (JPEG never does).
 */
export function encodeRasterBands(
  picture: { width: number; height: number; alpha: boolean },
  bands: Iterable<RasterImage>,
  target: NativeTarget,
  quality: number,
  webp: WebpSettings = {},
): Uint8Array {
  const { width, height } = picture;
  const call = (native: NativeExports) => {
    const rows = native.pg_raster_begin(target === "webp" ? 1 : 0, width, height, picture.alpha && target === "webp" ? 1 : 0, quality, RASTER_BATCH_ROWS);
    copyBandsIn(native, picture, bands, rows, native.pg_raster_rows);
    return native.pg_raster_end();
  };
  const out = runNative(target, call, undefined, { webp });
  if (!out) throw new PixelgateError("internal_error", "The native encoder refused a raster.");
  return out;
}

/**
 * Encodes an RGBA raster held in JavaScript as PNG (`quality` 100: lossless in the smallest exact
 * layout; below: a palette of paletteSizeForQuality colours, or the lossless file when that is
 * smaller), GIF (at most 256 colours, 1-bit transparency) or BMP (24-bit, alpha composited onto
 * black): native/png_sink.c, gif_sink.c and bmp_sink.c reading the raster's rows through
 * native/rgba_rows.c, a batch at a time, so WASM memory holds the writer's state and never a
 * copy of the raster. A BMP's rows are copied into the file's buffer as they come.
 */
export function encodeRgba(image: RasterImage, target: "png" | "gif" | "bmp", quality = 100): Uint8Array {
  const { width, height } = image;
  const alpha = imageHasAlpha(image) ? 1 : 0;
  if (target === "bmp") {
    const { stride, size } = bmpLayout(width, height);
    const chunkRows = Math.max(1, Math.floor(BMP_PIECE_BYTES / stride));
    const file = new Uint8Array(size);
    const started = startNative("bmp", (native) => native.pg_rgba_bmp_begin(width, height, alpha, chunkRows), undefined, { raster: image, into: file });
    if (!started) throw new PixelgateError("internal_error", "The native encoder refused a raster.");
    while (started.native.pg_bmp_rows() > 0);
    return file;
  }
  const out = runNative(target, (native) => (target === "png" ? native.pg_rgba_to_png(width, height, alpha, quality) : native.pg_rgba_to_gif(width, height, alpha)), undefined, { raster: image });
  if (!out) throw new PixelgateError("internal_error", "The native encoder refused a raster.");
  return out;
}

/** `image`'s rows copied into the instance's row buffer at `rows` a batch at a time, each batch handed to `take`. */
function copyRasterIn(native: NativeExports, image: RasterImage, rows: number, take: (n: number) => void): void {
  copyBandsIn(native, image, [image], rows, take);
}

/**
 * The rows of `bands` (a `width` x `height` picture, top to bottom) copied in the same way: a
 * batch of RASTER_BATCH_ROWS (even: 2x2 chroma cells never straddle two) gathered across bands of
 * any height.
 */
function copyBandsIn(native: NativeExports, { width, height }: { width: number; height: number }, bands: Iterable<RasterImage>, rows: number, take: (n: number) => void): void {
  if (rows === 0) throw new NativeFailure(NativeStatus.NoMemory);
  const rowBytes = width * 4;
  let filled = 0;
  let copied = 0;
  const flush = () => {
    take(filled);
    copied += filled;
    filled = 0;
  };
  for (const band of bands) {
    if (band.width !== width || copied + filled + band.height > height) throw new PixelgateError("internal_error", "A band does not fit the picture being encoded.");
    for (let y = 0; y < band.height; ) {
      const n = Math.min(RASTER_BATCH_ROWS - filled, band.height - y);
      // A fresh view each time: a memory growth replaces the buffer.
      new Uint8Array(native.memory.buffer, rows + filled * rowBytes, n * rowBytes).set(band.data.subarray(y * rowBytes, (y + n) * rowBytes));
      filled += n;
      y += n;
      if (filled === RASTER_BATCH_ROWS) flush();
    }
  }
  if (filled > 0) flush();
  if (copied !== height) throw new PixelgateError("internal_error", `The bands held ${copied} of the picture's ${height} rows.`);
}

/** Which pixels of a picture a resize shows: a rectangle in its own pixels (fractions allowed). */
export interface ResizeSpan {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A whole JPEG (structure already checked), non-interlaced PNG or still WebP file of the given
 * header size, read a row at a time in file order (no EXIF orientation applied) and resized to
 * `out` from `span` by the Lanczos-3 filter of native/resize.c; a JPEG decoded at 1/`denom` of
 * its size by libjpeg's DCT scaling (1, 2, 4 or 8). The answer's RGBA raster, copied out of
 * the dropped instance. Null for what this path leaves to the general one (CMYK JPEG,
 * interlaced PNG, animated WebP); invalid_image for damaged data.
 */
export function resizeFile(
  bytes: Uint8Array,
  size: { width: number; height: number },
  input: "jpeg" | "png" | "webp",
  denom: number,
  span: ResizeSpan,
  out: { width: number; height: number },
): RasterImage | null {
  const pixels = runNative(
    "raster",
    (native) => native.pg_resize_file(...rowSource(native, bytes, input), size.width, size.height, denom, span.x, span.y, span.width, span.height, out.width, out.height),
    bytes,
  );
  return pixels && rasterOf(pixels, out);
}

/** A HEIC's YCbCr planes (upright) resized as resizeFile resizes a file's rows, read into the module a band at a time. */
export function resizePlanes(planes: YCbCrImage, span: ResizeSpan, out: { width: number; height: number }): RasterImage {
  const { width, height, alpha, kr, kb, fullRange } = planes;
  const call = (native: NativeExports) =>
    native.pg_planes_resize(width, height, alpha ? 1 : 0, kr, kb, fullRange ? 1 : 0, span.x, span.y, span.width, span.height, out.width, out.height);
  return rasterOf(runNative("raster", call, undefined, { planes }), out);
}

/** The resizer's output as the answer's raster. */
function rasterOf(pixels: Uint8Array | null, out: { width: number; height: number }): RasterImage {
  if (!pixels) throw new PixelgateError("internal_error", "The resizer refused its input.");
  return { width: out.width, height: out.height, data: new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.byteLength) };
}

/** An RGBA raster held in JavaScript resized as resizeFile resizes a file's rows, copied in a few rows at a time. */
export function resizeRaster(image: RasterImage, span: ResizeSpan, out: { width: number; height: number }): RasterImage {
  const pixels = runNative("raster", (native) => {
    const rows = native.pg_resize_begin(image.width, image.height, span.x, span.y, span.width, span.height, out.width, out.height, RASTER_BATCH_ROWS);
    copyRasterIn(native, image, rows, native.pg_resize_rows);
    return native.pg_resize_end();
  });
  return rasterOf(pixels, out);
}

/** Rows copied into WASM memory per push: about a megabyte (at least one row). */
const PUSH_BAND_BYTES = 1 << 20;

/**
 * The PNG of `rows` in pieces, written as the rows arrive, for results too large to hold (the
 * local upscaler's 8192 x 8192: 256 MB as a raster): the writer of encodeRgba (native/png_sink.c:
 * the adaptive filter, libdeflate a part at a time, an IDAT chunk per part), 8-bit RGB, or RGBA
 * when `rows.alpha`, its rows pushed a band at a time by native/png_push.c. One instance lives
 * for the whole file; each band is copied in and written, and the pieces it finished are handed
 * out before the next band is asked for, so a caller that uploads each piece before taking the
 * next (storage/results.ts hostPieces) holds one band and a few deflated parts, whatever the size.
 * A piece is a view of a buffer the next one reuses: valid until the next is asked for (copy it
 * to keep it).
 */
export async function* pngPieces(rows: RasterRows): AsyncGenerator<Uint8Array> {
  const { width, height, alpha } = rows;
  const rowBytes = width * 4;
  const bandRows = Math.max(1, Math.min(height, Math.floor(PUSH_BAND_BYTES / rowBytes)));
  let band = 0;
  const begin = (native: NativeExports) => {
    band = native.pg_png_push_begin(width, height, alpha ? 1 : 0, bandRows);
    return band === 0 ? NativeStatus.NoMemory : NativeStatus.Ok;
  };
  const staging = new StagedBytes();
  const { native } = startNative("png", begin, undefined, { staging })!;
  /** Runs one step of the writer, its status mapped as startNative maps a call's. */
  const step = (call: () => number): void => {
    let status: number;
    try {
      status = call();
    } catch (error) {
      status = caughtStatus(error);
    }
    if (status !== NativeStatus.Ok) throw statusError("png", status);
  };
  yield staging.take(); // the signature and IHDR
  let pushed = 0;
  for (const rgba of rows.bands) {
    const count = rgba.length / rowBytes;
    for (let at = 0; at < count; at += bandRows) {
      const n = Math.min(bandRows, count - at);
      if (pushed + n > height) throw new PixelgateError("internal_error", `The rows went past the picture's ${height}.`);
      // A fresh view each time: a memory growth replaces the buffer.
      new Uint8Array(native.memory.buffer, band, n * rowBytes).set(rgba.subarray(at * rowBytes, (at + n) * rowBytes));
      step(() => native.pg_png_push_rows(n));
      pushed += n;
      const finished = staging.take();
      if (finished.length > 0) yield finished;
    }
  }
  if (pushed !== height) throw new PixelgateError("internal_error", `The rows ended at ${pushed} of ${height}.`);
  step(() => native.pg_png_push_end());
  yield staging.take();
}

/**
 * The bytes pg_write hands out during one step, gathered in one buffer that the next step
 * writes over (so a file's pieces leave no garbage behind them).
 */
class StagedBytes {
  #buffer = new Uint8Array(PUSH_BAND_BYTES);
  #filled = 0;

  put(bytes: Uint8Array): void {
    if (this.#filled + bytes.length > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(2 * this.#buffer.length, this.#filled + bytes.length));
      grown.set(this.#buffer.subarray(0, this.#filled));
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.#filled);
    this.#filled += bytes.length;
  }

  /** What was put since the last take: a view, valid until the next put. */
  take(): Uint8Array {
    const out = this.#buffer.subarray(0, this.#filled);
    this.#filled = 0;
    return out;
  }
}

/** How YCbCr samples encode colour: the matrix's luma weights of red and blue, and the range. */
export interface PlanesEncoding {
  kr: number;
  kb: number;
  /** Codes 0-255; false: studio range (luma 16-235, chroma 16-240). */
  fullRange: boolean;
}

/** One plane of 8-bit samples, rows `stride` bytes apart. */
export interface SamplePlane {
  data: Uint8Array;
  stride: number;
}

/** A YCbCr 4:2:0 image held in JavaScript, alpha optional. */
export interface YCbCrImage extends PlanesEncoding {
  width: number;
  height: number;
  y: SamplePlane;
  cb: SamplePlane;
  cr: SamplePlane;
  alpha?: SamplePlane;
}

/** Rows of a YCbCr 4:2:0 image, top to bottom: `height` rows (even, but for the image's last strip). */
export interface PlaneStrip {
  height: number;
  y: SamplePlane;
  cb: SamplePlane;
  cr: SamplePlane;
  alpha?: SamplePlane;
}

/**
 * Encodes YCbCr 4:2:0 planes as WebP (alpha kept) or JPEG (flattened onto black), copying them
 * into WASM memory a band of rows at a time; the module converts matrix and range to what the
 * encoder takes (pg_planes_begin).
 */
export function encodePlanes(image: YCbCrImage, target: NativeTarget, quality: number, webp: WebpSettings = {}): Uint8Array {
  return encodePlaneStrips({ ...image, alpha: image.alpha !== undefined }, [image], target, quality, webp);
}

/**
 * Encodes an image that arrives as strips of rows (a HEIC decoded a row of tiles at a time:
 * heic-tiles.ts), each copied into WASM memory in bands and released before the next is made.
 * `width` and `height` are the strips' (before `orientation` turns them).
 */
export function encodePlaneStrips(
  image: PlanesEncoding & { width: number; height: number; alpha: boolean; orientation?: Orientation },
  strips: Iterable<PlaneStrip>,
  target: NativeTarget,
  quality: number,
  webp: WebpSettings = {},
): Uint8Array {
  const { width, height, alpha } = image;
  const batch = RASTER_BATCH_ROWS;
  const out = runNative(target, (native) => {
    // Turned or mirrored (a HEIC's irot), the rows are placed into a whole oriented picture.
    native.pg_planes_orientation(image.orientation ?? 1);
    const band = native.pg_planes_begin(target === "webp" ? 1 : 0, width, height, alpha ? 1 : 0, quality, batch, image.kr, image.kb, image.fullRange ? 1 : 0);
    if (band === 0) throw new NativeFailure(NativeStatus.NoMemory);
    for (const strip of strips) {
      for (let row = 0; row < strip.height; row += batch) {
        const n = Math.min(batch, strip.height - row);
        // A fresh view each time: a memory growth replaces the buffer.
        copyPlanesBand(alpha ? strip : { ...strip, alpha: undefined }, width, new Uint8Array(native.memory.buffer), band, row, n, batch);
        native.pg_planes_rows(n);
      }
    }
    return native.pg_planes_end();
  }, undefined, { webp });
  if (!out) throw new PixelgateError("internal_error", "The native encoder refused YCbCr planes.");
  return out;
}

/**
 * Copies rows [row, row + n) of `planes` (`width` wide; chroma: their (n + 1) / 2 rows) into the
 * band at `band` of `memory`, laid out for `batch` rows: luma, Cb, Cr, then alpha
 * (native/planes_sink.c).
 */
function copyPlanesBand(planes: Omit<PlaneStrip, "height">, width: number, memory: Uint8Array, band: number, row: number, n: number, batch: number): void {
  const chromaWidth = (width + 1) >> 1;
  const parts: [SamplePlane | undefined, number, number, number][] = [
    [planes.y, 0, width, 1],
    [planes.cb, width * batch, chromaWidth, 2],
    [planes.cr, width * batch + (chromaWidth * batch) / 2, chromaWidth, 2],
    [planes.alpha, width * batch + chromaWidth * batch, width, 1],
  ];
  for (const [plane, offset, rowBytes, step] of parts) {
    if (plane) copyRows(plane, row / step, Math.ceil(n / step), rowBytes, memory.subarray(band + offset));
  }
}

/** Copies `rows` rows of `width` samples from row `first` of `plane` to `to`, packed. */
function copyRows({ data, stride }: SamplePlane, first: number, rows: number, width: number, to: Uint8Array): void {
  for (let r = 0; r < rows; r++) to.set(data.subarray((first + r) * stride, (first + r) * stride + width), r * width);
}

/** The build's own window (native/coef_store.c) unless set: see setCoefficientWindow. */
let coefficientWindow: number | null = null;

/**
 * How many bytes of JPEG coefficients libjpeg may hold unpacked in the calls that follow; the
 * rest of a whole-image coefficient array is kept packed (native/coef_store.c). 0 keeps every
 * array whole, as libjpeg does without a backing store; null goes back to the build's window.
 * The service never sets it: tests compare the packed store's files against whole arrays.
 */
export function setCoefficientWindow(bytes: number | null): void {
  coefficientWindow = bytes;
}

/**
 * What a call hands the instance besides its file (instantiate): the planes it reads, the WebP
 * encoder's settings; `view`: the output as a view of the dropped instance's memory instead of a copy.
 */
interface RunOptions {
  view?: boolean;
  planes?: YCbCrImage;
  raster?: RasterImage;
  into?: Uint8Array;
  staging?: StagedBytes;
  webp?: WebpSettings;
}

/**
 * Runs `call` on a fresh instance and maps its status: the output copied out of WASM memory,
 * null for PG_UNSUPPORTED, a PixelgateError otherwise.
 */
function runNative(target: NativeTarget | "png" | "gif" | "raster", call: (native: NativeExports) => number, file?: Uint8Array, options: RunOptions = {}): Uint8Array | null {
  // The WebP, PNG and GIF writers hand their file out through pg_write as they write it: into
  // inPieces's list when one collects them, else joined here for the caller. A call that also
  // sets an output (a PNG's lossless candidate beating its palette file) answers that instead.
  const started = startNative(target, call, file, options, pieceSink ?? []);
  if (!started) return null;
  const { native, written } = started;
  const out = new Uint8Array(native.memory.buffer, native.pg_output_data(), native.pg_output_size());
  if (out.length === 0 && written !== pieceSink && written.length > 0) return joinPieces(written);
  // Copied out unless asked for a view: then the instance's memory lives as long as the view.
  return options.view ? out : out.slice();
}

/**
 * Runs `call` on a fresh instance, which pg_write writes into `written`: the instance when the
 * call succeeded, null for PG_UNSUPPORTED, a PixelgateError otherwise.
 */
function startNative(
  target: NativeTarget | "png" | "gif" | "bmp" | "raster",
  call: (native: NativeExports) => number,
  file: Uint8Array | undefined,
  options: RunOptions,
  written: Uint8Array[] = [],
): { native: NativeExports; written: Uint8Array[] } | null {
  let status: number;
  let native: NativeExports | undefined;
  try {
    native = instantiate(file, written, options);
    if (target === "baseline-jpeg") native.pg_jpeg_baseline(1);
    if (options.webp?.lowMemory) native.pg_webp_low_memory(1);
    if (options.webp?.tokenBytes) native.pg_webp_token_cap(Math.ceil(options.webp.tokenBytes));
    if (coefficientWindow !== null) native.pg_jpeg_window(coefficientWindow);
    status = call(native);
  } catch (error) {
    status = caughtStatus(error);
  }
  if (status === NativeStatus.Ok) return { native: native!, written };
  if (status === NativeStatus.Unsupported) return null;
  throw statusError(target, status);
}

/** The error a status other than Ok and Unsupported stands for. */
function statusError(target: keyof typeof ENCODER_LABELS, status: number): PixelgateError {
  switch (status) {
    case NativeStatus.NoMemory:
      return new PixelgateError("image_too_large", "The image needs more memory to convert than the worker has.", { param: "image" });
    case NativeStatus.EncodeFailed:
      return new PixelgateError("internal_error", `Encoding ${ENCODER_LABELS[target]} failed.`);
    case NativeStatus.FileTooLarge:
      return new PixelgateError("image_too_large", `At this quality the ${ENCODER_LABELS[target]} of this picture would need more memory than the worker has (its detail was not in the upload's size); a lower quality or a smaller image fits.`, { param: "image" });
    default:
      return invalidImage("The image could not be decoded.");
  }
}

const ENCODER_LABELS = { webp: "WebP", jpeg: "JPEG", "baseline-jpeg": "JPEG", png: "PNG", gif: "GIF", bmp: "BMP", raster: "the resized picture" } as const;

/** The status of what a call threw; a strip source's own verdict on its input (heic-tiles.ts) stands as it is. */
function caughtStatus(error: unknown): number {
  if (error instanceof PixelgateError) throw error;
  return error instanceof NativeFailure ? error.status : errorStatus(error);
}

/** A JS-side failure inside the call: memory that could not be allocated, or a trap. */
function errorStatus(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError || /out of memory|allocation failed/i.test(message)) return NativeStatus.NoMemory;
  return NativeStatus.Invalid;
}
