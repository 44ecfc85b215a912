// WebP: reading it with libwebp (jsquash's Squoosh build), one WASM instance per operation.
// Writing WebP is our own build's (native.ts, native/webp_sink.c and raster_sink.c): lossy,
// quality 80 unless compress passes its own, method 4 (libwebp's default speed/size balance),
// an ALPH plane only when some pixel is not opaque, no EXIF, XMP or ICC chunk.
// Animated input: libwebp's still-image decoder refuses animations, so the first frame is cut
// out of its ANMF chunk, decoded alone and placed on a transparent canvas.

import decoderFactory from "@jsquash/webp/codec/dec/webp_dec.js";
import decoderWasm from "@jsquash/webp/codec/dec/webp_dec.wasm";
import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { blankImage } from "./raster.ts";
import { instantiateCodec } from "./wasm.ts";

export const WEBP_INFO = FORMAT_INFO.webp;
/** The fixed convert setting (spec 4.14); compress passes its own quality. */
export const WEBP_DEFAULT_QUALITY = 80;

interface WebpDecoder {
  decode(data: BufferSource): { data: Uint8ClampedArray; width: number; height: number } | null;
}

interface Chunk {
  fourcc: string;
  /** Offset of the chunk header. */
  offset: number;
  payload: Uint8Array;
}

function* chunks(r: ByteReader, start: number, end: number): Generator<Chunk> {
  for (let offset = start; offset + 8 <= end; ) {
    const size = r.u32(offset + 4);
    yield { fourcc: r.ascii(offset, 4), offset, payload: r.slice(offset + 8, size) };
    offset += 8 + size + (size & 1);
  }
}

function riff(bytes: Uint8Array): ByteReader {
  const r = new ByteReader(bytes, true, "WebP");
  if (!hasAscii(bytes, 0, "RIFF") || !hasAscii(bytes, 8, "WEBP")) throw invalidImage("The data is not a WebP (no RIFF/WEBP header).");
  return r;
}

/** Size of a VP8 (lossy) or VP8L (lossless) bitstream. */
function bitstreamSize(fourcc: string, payload: Uint8Array): { width: number; height: number } {
  const r = new ByteReader(payload, true, "WebP bitstream");
  if (fourcc === "VP8 ") {
    if (r.u8(3) !== 0x9d || r.u8(4) !== 0x01 || r.u8(5) !== 0x2a) throw invalidImage("The WebP VP8 frame has no start code.");
    return { width: r.u16(6) & 0x3fff, height: r.u16(8) & 0x3fff };
  }
  if (r.u8(0) !== 0x2f) throw invalidImage("The WebP VP8L stream has a bad signature.");
  const bits = r.u32(1);
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

export function readWebpHeader(bytes: Uint8Array): { width: number; height: number } {
  const r = riff(bytes);
  const first = chunks(r, 12, bytes.length).next();
  if (first.done) throw invalidImage("The WebP has no chunks.");
  const { fourcc, payload } = first.value;
  if (fourcc === "VP8X") {
    const x = new ByteReader(payload, true, "WebP VP8X chunk");
    return { width: x.u24(4) + 1, height: x.u24(7) + 1 };
  }
  if (fourcc === "VP8 " || fourcc === "VP8L") return bitstreamSize(fourcc, payload);
  throw invalidImage(`The WebP starts with an unknown chunk "${fourcc}".`);
}

/** How a still WebP is coded, from its chunks: what its native recode costs (recode-cost.ts). */
export interface WebpLayout {
  /** VP8L: libwebp decodes it through a whole ARGB image. */
  lossless: boolean;
  /** An ALPH chunk, or a VP8L stream that says it uses alpha. */
  alpha: boolean;
  animated: boolean;
}

export function readWebpLayout(bytes: Uint8Array): WebpLayout {
  const layout: WebpLayout = { lossless: false, alpha: false, animated: false };
  for (const { fourcc, payload } of chunks(riff(bytes), 12, bytes.length)) {
    // The VP8X animation flag, or a frame: the general path takes the first frame.
    if ((fourcc === "VP8X" && payload.length > 0 && (payload[0]! & 0x02) !== 0) || fourcc === "ANMF") layout.animated = true;
    if (fourcc === "ALPH") layout.alpha = true;
    if (fourcc === "VP8L") {
      layout.lossless = true;
      // The bit after the 14-bit width and height: alpha_is_used.
      if (payload.length >= 5 && (payload[4]! & 0x10) !== 0) layout.alpha = true;
    }
    if (fourcc === "VP8 " || fourcc === "VP8L") break;
  }
  return layout;
}

export async function decodeWebp(bytes: Uint8Array): Promise<RasterImage> {
  const r = riff(bytes);
  const list = [...chunks(r, 12, bytes.length)];
  const frame = list.find((c) => c.fourcc === "ANMF");
  if (frame) return decodeFirstFrame(frame.payload, readWebpHeader(bytes));
  if (!list.some((c) => c.fourcc === "VP8 " || c.fourcc === "VP8L")) throw invalidImage("The WebP has no image data.");
  return decodeStill(bytes);
}

async function decodeStill(bytes: Uint8Array): Promise<RasterImage> {
  const decoder = await instantiateCodec<WebpDecoder>(decoderFactory, decoderWasm);
  const result = decoder.decode(bytes);
  if (!result) throw invalidImage("The WebP could not be decoded.");
  return { width: result.width, height: result.height, data: result.data };
}

/** An animated WebP's first frame must lie on its canvas; checked before the charge. */
export function assertWebpFrameDecodable(bytes: Uint8Array): void {
  for (const chunk of chunks(riff(bytes), 12, bytes.length)) {
    if (chunk.fourcc === "ANMF") return void frameRect(chunk.payload, readWebpHeader(bytes));
  }
}

/** Where an ANMF frame sits on the canvas (x, y are stored halved). */
function frameRect(anmf: Uint8Array, canvas: { width: number; height: number }) {
  const f = new ByteReader(anmf, true, "WebP animation frame");
  const rect = { x: f.u24(0) * 2, y: f.u24(3) * 2, w: f.u24(6) + 1, h: f.u24(9) + 1 };
  if (rect.x + rect.w > canvas.width || rect.y + rect.h > canvas.height) throw invalidImage("The first WebP frame lies outside the canvas.");
  return rect;
}

/** The first ANMF frame, decoded as a still image and placed on a transparent canvas. */
async function decodeFirstFrame(anmf: Uint8Array, canvas: { width: number; height: number }): Promise<RasterImage> {
  const { x, y, w, h } = frameRect(anmf, canvas);
  const f = new ByteReader(anmf, true, "WebP animation frame");
  const sub = [...chunks(f, 16, anmf.length)].filter((c) => ["ALPH", "VP8 ", "VP8L"].includes(c.fourcc));
  if (!sub.some((c) => c.fourcc !== "ALPH")) throw invalidImage("The first WebP frame has no image data.");
  const frameBytes = anmf.subarray(16, sub.at(-1)!.offset + 8 + sub.at(-1)!.payload.length);
  const hasAlph = sub.some((c) => c.fourcc === "ALPH");

  // RIFF header + VP8X (alpha flag when ALPH is present) + the frame's own chunks.
  const still = new Uint8Array(12 + 18 + frameBytes.length);
  const v = new DataView(still.buffer);
  still.set(new TextEncoder().encode("RIFF"), 0);
  v.setUint32(4, still.length - 8, true);
  still.set(new TextEncoder().encode("WEBPVP8X"), 8);
  v.setUint32(16, 10, true);
  still[20] = hasAlph ? 0x10 : 0;
  setU24(still, 24, w - 1);
  setU24(still, 27, h - 1);
  still.set(frameBytes, 30);

  const decoded = await decodeStill(still);
  if (decoded.width !== w || decoded.height !== h) throw invalidImage("The first WebP frame does not match its declared size.");
  if (w === canvas.width && h === canvas.height) return decoded;
  const out = blankImage(canvas.width, canvas.height);
  for (let row = 0; row < h; row++) {
    out.data.set(decoded.data.subarray(row * w * 4, (row + 1) * w * 4), ((y + row) * canvas.width + x) * 4);
  }
  return out;
}

function setU24(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = value & 0xff;
  bytes[offset + 1] = (value >> 8) & 0xff;
  bytes[offset + 2] = (value >> 16) & 0xff;
}
