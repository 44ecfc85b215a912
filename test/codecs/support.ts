// Test images for the codec tests, generated rather than checked in: RasterImages with
// gradients and alpha regions, and small hand-built files for the cases our own encoders
// never write (EXIF orientation, animation, interlacing, other BMP/TIFF layouts).

import { expect } from "vitest";
import { GifWriter } from "omggif";
import { PixelgateError } from "../../src/errors.ts";
import { encodeImage, type RasterImage } from "../../src/codecs/index.ts";
import { crc32 } from "../../src/ids/crc32.ts";
import { instantiateCodec } from "../../src/codecs/wasm.ts";
import webpEncoderFactory from "@jsquash/webp/codec/enc/webp_enc.js";
import webpEncoderWasm from "@jsquash/webp/codec/enc/webp_enc.wasm";
import { defaultOptions as webpDefaults } from "@jsquash/webp/meta.js";

export function image(width: number, height: number, pixel: (x: number, y: number) => [number, number, number, number]): RasterImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4);
  }
  return { width, height, data };
}

/** Smooth opaque colour gradient: continuous tone, thousands of colours. */
export function gradient(width: number, height: number): RasterImage {
  return image(width, height, (x, y) => [
    Math.round((x / Math.max(1, width - 1)) * 255),
    Math.round((y / Math.max(1, height - 1)) * 255),
    Math.round(((x + y) / Math.max(1, width + height - 2)) * 200) + 40,
    255,
  ]);
}

/**
 * The gradient with a fully transparent left quarter (storing bright white, so "flattened to
 * black" is distinguishable from "alpha dropped") and a half-transparent band.
 */
export function gradientWithAlpha(width: number, height: number): RasterImage {
  const base = gradient(width, height);
  const d = base.data;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (x < width / 4) d.set([255, 255, 255, 0], o);
      else if (x >= width / 2 && x < (width * 3) / 4) d[o + 3] = 128;
    }
  }
  return base;
}

/** Four flat quadrants: red, green, blue, white (few colours, sharp edges). */
export function quadrants(width: number, height: number): RasterImage {
  return image(width, height, (x, y) => {
    const left = x < width / 2;
    const top = y < height / 2;
    return top ? (left ? [255, 0, 0, 255] : [0, 255, 0, 255]) : left ? [0, 0, 255, 255] : [255, 255, 255, 255];
  });
}

/** Quadrants with a gradient inside: thousands of colours, and every flip and turn told apart. */
export function quadrantScene(width: number, height: number): RasterImage {
  const q = quadrants(width, height);
  const g = gradient(width, height);
  for (let i = 0; i < q.data.length; i++) q.data[i] = (q.data[i]! * 3 + g.data[i]!) >> 2;
  return q;
}

export function pixelAt(img: RasterImage, x: number, y: number): number[] {
  const o = (y * img.width + x) * 4;
  return Array.from(img.data.subarray(o, o + 4));
}

/** Largest per-channel difference over the pixels selected by `where` (RGBA unless channels given). */
export function maxDiff(a: RasterImage, b: RasterImage, where: (x: number, y: number) => boolean = () => true, channels = 4): number {
  expect([b.width, b.height]).toEqual([a.width, a.height]);
  let max = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (!where(x, y)) continue;
      const o = (y * a.width + x) * 4;
      for (let c = 0; c < channels; c++) max = Math.max(max, Math.abs(a.data[o + c]! - b.data[o + c]!));
    }
  }
  return max;
}

/** Mean absolute per-channel difference (RGB) over the selected pixels. */
export function meanDiff(a: RasterImage, b: RasterImage, where: (x: number, y: number) => boolean = () => true): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (!where(x, y)) continue;
      const o = (y * a.width + x) * 4;
      for (let c = 0; c < 3; c++) sum += Math.abs(a.data[o + c]! - b.data[o + c]!);
      n += 3;
    }
  }
  return sum / n;
}

export function distinctColors(img: RasterImage): number {
  const words = new Uint32Array(img.data.slice().buffer);
  return new Set(words).size;
}

/** Awaits `promise` (or runs `fn`) and returns the PixelgateError it throws; fails otherwise. */
export async function pixelgateError(run: (() => unknown) | Promise<unknown>): Promise<PixelgateError> {
  try {
    await (typeof run === "function" ? run() : run);
  } catch (error) {
    expect(error).toBeInstanceOf(PixelgateError);
    return error as PixelgateError;
  }
  throw new Error("expected a PixelgateError, nothing was thrown");
}

export function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function contains(haystack: Uint8Array, needle: Uint8Array | string): boolean {
  const n = typeof needle === "string" ? ascii(needle) : needle;
  outer: for (let i = 0; i + n.length <= haystack.length; i++) {
    for (let j = 0; j < n.length; j++) if (haystack[i + j] !== n[j]) continue outer;
    return true;
  }
  return false;
}

export const EXIF_MARKER = "Exif\0\0";

// ---------------------------------------------------------------------------------------------
// EXIF / TIFF structures

/** A little TIFF-structure writer: one IFD of SHORT/LONG entries, either byte order. */
export function tiffStructure(
  entries: [tag: number, type: 3 | 4, values: number[]][],
  options: { bigEndian?: boolean; tail?: Uint8Array; tailTag?: number } = {},
): Uint8Array {
  const le = !options.bigEndian;
  const sorted = [...entries].sort((a, b) => a[0] - b[0]);
  const ifdSize = 2 + sorted.length * 12 + 4;
  let extra = 8 + ifdSize;
  const outOfLine: { at: number; type: number; values: number[] }[] = [];
  const layout = sorted.map(([tag, type, values]) => {
    const size = (type === 3 ? 2 : 4) * values.length;
    if (size <= 4) return { tag, type, values, at: -1 };
    const at = extra;
    extra += size;
    outOfLine.push({ at, type, values });
    return { tag, type, values, at };
  });
  const tailAt = extra;
  const out = new Uint8Array(extra + (options.tail?.length ?? 0));
  const v = new DataView(out.buffer);
  out.set(le ? [0x49, 0x49, 42, 0] : [0x4d, 0x4d, 0, 42]);
  v.setUint32(4, 8, le);
  v.setUint16(8, layout.length, le);
  layout.forEach(({ tag, type, values, at }, i) => {
    const e = 10 + i * 12;
    v.setUint16(e, tag, le);
    v.setUint16(e + 2, type, le);
    v.setUint32(e + 4, values.length, le);
    const write = (target: number) =>
      values.forEach((n, k) => {
        const value = tag === options.tailTag ? tailAt : n;
        if (type === 3) v.setUint16(target + k * 2, value, le);
        else v.setUint32(target + k * 4, value, le);
      });
    if (at < 0) write(e + 8);
    else {
      v.setUint32(e + 8, at, le);
      write(at);
    }
  });
  if (options.tail) out.set(options.tail, tailAt);
  return out;
}

/** In tiffFile entry values: the offset of IFD number k. */
export const ifdOffset = (k: number) => -1000 - k;
/** In tiffFile entry values: the offset of blob number k. */
export const blobOffset = (k: number) => -1 - k;

/**
 * A little-endian TIFF of several IFDs, written in order from offset 8 (each followed by its
 * out-of-line values), then `blobs`. Entry values may be ifdOffset(k) or blobOffset(k); `next`
 * is the index of the following IFD (absent: none). For graphs and layouts tiffStructure cannot
 * express: sub-directories, loops, many strips.
 */
export function tiffFile(ifds: { entries: [tag: number, type: 3 | 4, values: number[]][]; next?: number }[], blobs: Uint8Array[] = []): Uint8Array {
  const valueBytes = (type: number, values: number[]) => (type === 3 ? 2 : 4) * values.length;
  const starts: number[] = [];
  let at = 8;
  for (const ifd of ifds) {
    starts.push(at);
    at += 2 + ifd.entries.length * 12 + 4;
    for (const [, type, values] of ifd.entries) if (valueBytes(type, values) > 4) at += valueBytes(type, values);
  }
  const blobStarts = blobs.map((blob) => ((at += blob.length), at - blob.length));
  const out = new Uint8Array(at);
  const v = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  v.setUint32(4, 8, true);
  const resolve = (n: number) => (n <= -1000 ? starts[-1000 - n]! : n < 0 ? blobStarts[-1 - n]! : n);
  ifds.forEach((ifd, index) => {
    const start = starts[index]!;
    const sorted = [...ifd.entries].sort((a, b) => a[0] - b[0]);
    v.setUint16(start, sorted.length, true);
    let extra = start + 2 + sorted.length * 12 + 4;
    sorted.forEach(([tag, type, values], i) => {
      const e = start + 2 + i * 12;
      v.setUint16(e, tag, true);
      v.setUint16(e + 2, type, true);
      v.setUint32(e + 4, values.length, true);
      let target = e + 8;
      if (valueBytes(type, values) > 4) {
        v.setUint32(e + 8, extra, true);
        target = extra;
        extra += valueBytes(type, values);
      }
      values.forEach((n, k) => (type === 3 ? v.setUint16(target + k * 2, resolve(n), true) : v.setUint32(target + k * 4, resolve(n) >>> 0, true)));
    });
    v.setUint32(start + 2 + sorted.length * 12, ifd.next === undefined ? 0 : starts[ifd.next]!, true);
  });
  blobs.forEach((blob, k) => out.set(blob, blobStarts[k]!));
  return out;
}

/** The IFD0 entries of an uncompressed 8-bit RGB image stored in one strip (blob 0 unless given). */
export function rawRgbEntries(width: number, height: number, strip = blobOffset(0)): [number, 3 | 4, number[]][] {
  return [
    [256, 4, [width]],
    [257, 4, [height]],
    [258, 3, [8, 8, 8]],
    [259, 3, [1]],
    [262, 3, [2]],
    [273, 4, [strip]],
    [277, 3, [3]],
    [278, 4, [height]],
    [279, 4, [width * height * 3]],
  ];
}

/** The RGB bytes of an image, as an uncompressed TIFF strip stores them. */
export function rgbBytes(img: RasterImage): Uint8Array {
  const rgb = new Uint8Array(img.width * img.height * 3);
  for (let i = 0; i < img.width * img.height; i++) rgb.set(img.data.subarray(i * 4, i * 4 + 3), i * 3);
  return rgb;
}

/** An APP1 "Exif" segment whose IFD0 holds Orientation (and a camera model string's worth of padding). */
export function exifApp1(orientation: number, bigEndian = false): Uint8Array {
  const tiff = tiffStructure([[0x0112, 3, [orientation]], [0x0131, 4, [0]]], { bigEndian });
  const payload = concat(ascii(EXIF_MARKER), tiff);
  const seg = new Uint8Array(4 + payload.length);
  seg[0] = 0xff;
  seg[1] = 0xe1;
  new DataView(seg.buffer).setUint16(2, payload.length + 2);
  seg.set(payload, 4);
  return seg;
}

/** An APP2 ICC_PROFILE segment (contents irrelevant: it must simply never reach the output). */
export function iccApp2(): Uint8Array {
  const payload = concat(ascii("ICC_PROFILE\0"), new Uint8Array([1, 1]), new Uint8Array(128).fill(7));
  const seg = new Uint8Array(4 + payload.length);
  seg.set([0xff, 0xe2]);
  new DataView(seg.buffer).setUint16(2, payload.length + 2);
  seg.set(payload, 4);
  return seg;
}

/** Inserts segments right after a JPEG's SOI marker. */
export function withJpegSegments(jpeg: Uint8Array, ...segments: Uint8Array[]): Uint8Array {
  return concat(jpeg.subarray(0, 2), ...segments, jpeg.subarray(2));
}

/**
 * An uncompressed RGB TIFF (8-bit, one strip) built by hand, optionally big-endian and with an
 * Orientation tag: the utif2 path and both byte orders.
 */
export function rawRgbTiff(img: RasterImage, options: { bigEndian?: boolean; orientation?: number } = {}): Uint8Array {
  const rgb = new Uint8Array(img.width * img.height * 3);
  for (let i = 0; i < img.width * img.height; i++) rgb.set(img.data.subarray(i * 4, i * 4 + 3), i * 3);
  const entries: [number, 3 | 4, number[]][] = [
    [256, 4, [img.width]],
    [257, 4, [img.height]],
    [258, 3, [8, 8, 8]],
    [259, 3, [1]],
    [262, 3, [2]],
    [273, 4, [0]],
    [277, 3, [3]],
    [278, 4, [img.height]],
    [279, 4, [rgb.length]],
  ];
  if (options.orientation) entries.push([274, 3, [options.orientation]]);
  return tiffStructure(entries, { bigEndian: options.bigEndian, tail: rgb, tailTag: 273 });
}

// ---------------------------------------------------------------------------------------------
// GIF

/** A two-frame animated GIF: frame 1 red (with a transparent hole), frame 2 all blue. */
export function animatedGif(width = 8, height = 6): Uint8Array {
  const buf = new Uint8Array(4096);
  const palette = [0xff0000, 0x0000ff, 0x00ff00, 0x000000];
  const writer = new GifWriter(buf, width, height, { palette, loop: 0 });
  const first = new Array<number>(width * height).fill(0);
  first[0] = 3; // index 3 is transparent in frame 1
  writer.addFrame(0, 0, width, height, first, { transparent: 3, delay: 10 });
  writer.addFrame(0, 0, width, height, new Array<number>(width * height).fill(1), { delay: 10 });
  return buf.slice(0, writer.end());
}

/** A one-frame GIF of `indices`, stored interlaced (rows in the 4-pass order, flag set). */
export function interlacedGif(width: number, height: number, indices: number[], palette: number[]): Uint8Array {
  const order: number[] = [];
  for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]] as const) for (let y = start; y < height; y += step) order.push(y);
  const stored = order.flatMap((y) => indices.slice(y * width, (y + 1) * width));
  const buf = new Uint8Array(4096);
  const writer = new GifWriter(buf, width, height, { palette });
  writer.addFrame(0, 0, width, height, stored);
  const out = buf.slice(0, writer.end());
  // Image descriptor: 0x2C after header (13) + colour table; its flags byte is the 10th.
  const descriptor = 13 + palette.length * 3;
  expect(out[descriptor]).toBe(0x2c);
  out[descriptor + 9]! |= 0x40;
  return out;
}

// ---------------------------------------------------------------------------------------------
// PNG (hand-built, for layouts our encoder never writes)


export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  out.set(ascii(type), 4);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

export async function zlib(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * A PNG with the given layout. `sample(x, y)` returns the channel values at full bit depth;
 * rows are packed MSB-first and written with filter 0 (Adam7 order when interlaced).
 */
export async function handPng(options: {
  width: number;
  height: number;
  colorType: 0 | 2 | 3 | 4 | 6;
  bitDepth: 1 | 2 | 4 | 8 | 16;
  interlaced?: boolean;
  sample: (x: number, y: number) => number[];
  chunks?: Uint8Array[]; // inserted before IDAT (PLTE, tRNS, eXIf ...)
}): Promise<Uint8Array> {
  const { width, height, colorType, bitDepth } = options;
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType];
  const passes = options.interlaced
    ? [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]]
    : [[0, 0, 1, 1]];
  const raw: number[] = [];
  for (const [x0, y0, dx, dy] of passes as [number, number, number, number][]) {
    const pw = Math.ceil((width - x0) / dx);
    const ph = Math.ceil((height - y0) / dy);
    if (pw <= 0 || ph <= 0) continue;
    for (let py = 0; py < ph; py++) {
      raw.push(0);
      const bits: number[] = [];
      for (let px = 0; px < pw; px++) {
        for (const v of options.sample(x0 + px * dx, y0 + py * dy)) {
          if (bitDepth === 16) bits.push(v >> 8, v & 0xff);
          else bits.push(v);
        }
      }
      if (bitDepth >= 8) raw.push(...bits);
      else {
        const perByte = 8 / bitDepth;
        for (let i = 0; i < bits.length; i += perByte) {
          let byte = 0;
          for (let k = 0; k < perByte; k++) byte |= (bits[i + k] ?? 0) << (8 - bitDepth * (k + 1));
          raw.push(byte);
        }
      }
    }
  }
  expect(channels).toBeGreaterThan(0);
  return pngFile({ ...options, raw: new Uint8Array(raw) });
}

/**
 * A PNG around `raw`, its rows already filtered and packed (Adam7 order when interlaced):
 * signature, IHDR, `chunks`, one IDAT deflated by the platform's zlib, IEND.
 */
export async function pngFile(options: { width: number; height: number; colorType: number; bitDepth: number; interlaced?: boolean; raw: Uint8Array; chunks?: Uint8Array[] }): Promise<Uint8Array> {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, options.width);
  v.setUint32(4, options.height);
  ihdr.set([options.bitDepth, options.colorType, 0, 0, options.interlaced ? 1 : 0], 8);
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    ...(options.chunks ?? []),
    pngChunk("IDAT", await zlib(options.raw)),
    pngChunk("IEND", new Uint8Array(0)),
  );
}

/** PNG colour type and bit depth from IHDR. */
export function pngLayout(png: Uint8Array): { colorType: number; bitDepth: number } {
  return { bitDepth: png[24]!, colorType: png[25]! };
}

/** A PNG's chunks in file order: type and data (a view, not a copy). */
export function pngChunks(png: Uint8Array): { type: string; data: Uint8Array }[] {
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const chunks: { type: string; data: Uint8Array }[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = v.getUint32(at);
    chunks.push({ type: String.fromCharCode(...png.subarray(at + 4, at + 8)), data: png.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
  }
  return chunks;
}

/** Number of PLTE entries in a PNG, or 0. */
export function pngPaletteSize(png: Uint8Array): number {
  const plte = pngChunks(png).find((chunk) => chunk.type === "PLTE");
  return plte ? plte.data.length / 3 : 0;
}

/** Chunk types of a PNG, in order. */
export function pngChunkTypes(png: Uint8Array): string[] {
  return pngChunks(png).map((chunk) => chunk.type);
}

// ---------------------------------------------------------------------------------------------
// WebP

/** RIFF chunks of a WebP file as [fourcc, payload]. */
export function riffChunks(webp: Uint8Array): [string, Uint8Array][] {
  const v = new DataView(webp.buffer, webp.byteOffset, webp.byteLength);
  const out: [string, Uint8Array][] = [];
  for (let at = 12; at + 8 <= webp.length; ) {
    const size = v.getUint32(at + 4, true);
    out.push([String.fromCharCode(...webp.subarray(at, at + 4)), webp.subarray(at + 8, at + 8 + size)]);
    at += 8 + size + (size & 1);
  }
  return out;
}

function riffChunk(fourcc: string, payload: Uint8Array): Uint8Array {
  const pad = payload.length & 1;
  const out = new Uint8Array(8 + payload.length + pad);
  out.set(ascii(fourcc));
  new DataView(out.buffer).setUint32(4, payload.length, true);
  out.set(payload, 8);
  return out;
}

function u24(v: number): number[] {
  return [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff];
}

/**
 * An animated WebP from still WebPs (our encoder's output): VP8X (animation flag) + ANIM +
 * one ANMF per frame at the given offsets (even numbers).
 */
export function animatedWebp(canvas: { width: number; height: number }, frames: { webp: Uint8Array; x: number; y: number; width: number; height: number }[]): Uint8Array {
  const vp8x = new Uint8Array([0x02 | 0x10, 0, 0, 0, ...u24(canvas.width - 1), ...u24(canvas.height - 1)]);
  const anim = new Uint8Array([0, 0, 0, 0, 0, 0]);
  const anmfs = frames.map((f) => {
    const sub = riffChunks(f.webp).filter(([fourcc]) => ["ALPH", "VP8 ", "VP8L"].includes(fourcc));
    const header = new Uint8Array([...u24(f.x / 2), ...u24(f.y / 2), ...u24(f.width - 1), ...u24(f.height - 1), ...u24(100), 0]);
    return riffChunk("ANMF", concat(header, ...sub.map(([fourcc, payload]) => riffChunk(fourcc, payload))));
  });
  const body = concat(ascii("WEBP"), riffChunk("VP8X", vp8x), riffChunk("ANIM", anim), ...anmfs);
  const head = concat(ascii("RIFF"), new Uint8Array(4));
  new DataView(head.buffer).setUint32(4, body.length, true);
  return concat(head, body);
}

/** Adds an EXIF chunk (with VP8X flag) to a simple WebP. */
export function webpWithExif(webp: Uint8Array, exifTiff: Uint8Array, width: number, height: number): Uint8Array {
  const chunks = riffChunks(webp).filter(([fourcc]) => fourcc !== "VP8X");
  const vp8x = new Uint8Array([0x08, 0, 0, 0, ...u24(width - 1), ...u24(height - 1)]);
  const body = concat(ascii("WEBP"), riffChunk("VP8X", vp8x), ...chunks.map(([f, p]) => riffChunk(f, p)), riffChunk("EXIF", exifTiff));
  const head = concat(ascii("RIFF"), new Uint8Array(4));
  new DataView(head.buffer).setUint32(4, body.length, true);
  return concat(head, body);
}

/** `image` as WebP by libwebp's own encoder (jsquash's build), to compare ours with. */
export async function jsquashWebp(image: RasterImage, options: Partial<typeof webpDefaults>): Promise<Uint8Array> {
  type Encoder = { encode(data: BufferSource, width: number, height: number, options: typeof webpDefaults): Uint8Array | null };
  const encoder = await instantiateCodec<Encoder>(webpEncoderFactory, webpEncoderWasm);
  return new Uint8Array(encoder.encode(image.data, image.width, image.height, { ...webpDefaults, ...options })!);
}

/** The four kinds of still WebP (VP8, VP8X+ALPH, VP8L opaque and with alpha) of an opaque image and one with alpha. */
export async function webpKinds(opaque: RasterImage, cutOut: RasterImage): Promise<Record<"lossy" | "lossy with alpha" | "lossless" | "lossless with alpha", Uint8Array>> {
  return {
    lossy: await encodeImage(opaque, "webp", { quality: 90 }),
    "lossy with alpha": await encodeImage(cutOut, "webp", { quality: 90 }),
    lossless: await jsquashWebp(opaque, { lossless: 1 }),
    "lossless with alpha": await jsquashWebp(cutOut, { lossless: 1, exact: 1 }),
  };
}

/** The PNG with an eXIf chunk (`exifTiff`: the TIFF structure) right after its IHDR. */
export function pngWithExifChunk(png: Uint8Array, exifTiff: Uint8Array): Uint8Array {
  return concat(png.subarray(0, 33), pngChunk("eXIf", exifTiff), png.subarray(33));
}
