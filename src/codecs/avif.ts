// AVIF: libavif + libaom (jsquash's Squoosh build, single-threaded encoder: Workers have no
// threads), one WASM instance per operation.
//
// Encoder settings: quality 50 (the fixed convert setting), 4:2:0, speed 8. AV1 encoding is
// the most CPU-hungry thing the worker does and CPU time is what a Worker runs out of first.
// Measured in workerd on a 1024x768 synthetic image with grain: speed 6 took 7.2 s (36 KB),
// speed 7 2.7 s (37 KB), speed 8 0.57 s (52 KB); 2048x2048 at speed 8 took 2.7 s, so 4096x4096
// extrapolates to about 11 s. The price is a larger file.
// Alpha is kept (libavif adds an alpha auxiliary image). No EXIF/XMP/ICC is written.

import decoderFactory from "@jsquash/avif/codec/dec/avif_dec.js";
import decoderWasm from "@jsquash/avif/codec/dec/avif_dec.wasm";
import encoderFactory from "@jsquash/avif/codec/enc/avif_enc.js";
import encoderWasm from "@jsquash/avif/codec/enc/avif_enc.wasm";
import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { instantiateCodec } from "./wasm.ts";

export const AVIF_INFO = FORMAT_INFO.avif;
/** The fixed convert setting (spec 4.14). */
export const AVIF_DEFAULT_QUALITY = 50;
export const AVIF_SPEED = 8;
/** AV1's frame size limit per side. */
export const AVIF_MAX_SIDE = 65_536;

interface AvifEncoder {
  encode(data: BufferSource, width: number, height: number, options: Record<string, number | boolean>): Uint8Array | null;
}
interface AvifDecoder {
  decode(data: BufferSource, bitDepth: 8): { data: Uint8ClampedArray; width: number; height: number } | null;
}

const AVIF_BRANDS = new Set(["avif", "avis"]);

/** An ISO-BMFF file whose ftyp names avif or avis as major or compatible brand. */
export function looksLikeAvif(bytes: Uint8Array): boolean {
  if (bytes.length < 16 || !hasAscii(bytes, 4, "ftyp")) return false;
  const size = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  if (size < 16 || size > bytes.length) return false;
  for (let offset = 8; offset + 4 <= size; offset += 4) {
    if (offset === 12) continue; // minor_version, not a brand
    if (AVIF_BRANDS.has(String.fromCharCode(...bytes.subarray(offset, offset + 4)))) return true;
  }
  return false;
}

interface Box {
  type: string;
  /** First byte after the box header. */
  start: number;
  end: number;
}

function* boxes(r: ByteReader, start: number, end: number): Generator<Box> {
  for (let offset = start; offset + 8 <= end; ) {
    let size = r.u32(offset);
    const type = r.ascii(offset + 4, 4);
    let header = 8;
    if (size === 1) {
      size = r.u64(offset + 8);
      header = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    if (size < header || offset + size > end) throw invalidImage(`The AVIF box "${type}" overruns its container.`);
    yield { type, start: offset + header, end: offset + size };
    offset += size;
  }
}

function child(r: ByteReader, parent: Box, type: string, fullBox = false): Box | undefined {
  for (const box of boxes(r, parent.start + (fullBox ? 4 : 0), parent.end)) if (box.type === type) return box;
  return undefined;
}

/**
 * The primary item's `ispe` (image spatial extents) from meta/iprp/ipco, found through the
 * ipma associations of the item named by pitm. A file without pitm uses the first ispe.
 */
export function readAvifHeader(bytes: Uint8Array): { width: number; height: number } {
  if (!looksLikeAvif(bytes)) throw invalidImage("The data is not an AVIF (no avif/avis brand).");
  const r = new ByteReader(bytes, false, "AVIF");
  const top: Box = { type: "file", start: 0, end: bytes.length };
  const meta = child(r, top, "meta");
  if (!meta) throw invalidImage("The AVIF has no meta box.");
  const iprp = child(r, meta, "iprp", true);
  const ipco = iprp && child(r, iprp, "ipco");
  if (!iprp || !ipco) throw invalidImage("The AVIF has no item properties.");
  const properties = [...boxes(r, ipco.start, ipco.end)];

  let ispe: Box | undefined;
  const pitm = child(r, meta, "pitm", true);
  const ipma = child(r, iprp, "ipma");
  if (pitm && ipma) {
    const primary = r.u8(pitm.start) === 0 ? r.u16(pitm.start + 4) : r.u32(pitm.start + 4);
    const version = r.u8(ipma.start);
    const wideIndex = (r.u8(ipma.start + 3) & 1) === 1;
    let at = ipma.start + 4;
    const entries = r.u32(at);
    at += 4;
    for (let e = 0; e < entries && !ispe; e++) {
      const item = version < 1 ? r.u16(at) : r.u32(at);
      at += version < 1 ? 2 : 4;
      const count = r.u8(at++);
      for (let k = 0; k < count; k++) {
        const index = wideIndex ? r.u16(at) & 0x7fff : r.u8(at) & 0x7f;
        at += wideIndex ? 2 : 1;
        const property = properties[index - 1];
        if (item === primary && property?.type === "ispe") ispe = property;
      }
    }
  } else {
    ispe = properties.find((p) => p.type === "ispe");
  }
  if (!ispe) throw invalidImage("The AVIF has no image size (ispe) for its primary image.");
  return { width: r.u32(ispe.start + 4), height: r.u32(ispe.start + 8) };
}

export async function decodeAvif(bytes: Uint8Array): Promise<RasterImage> {
  const decoder = await instantiateCodec<AvifDecoder>(decoderFactory, decoderWasm);
  // bitDepth 8: 10- and 12-bit files are converted to 8-bit RGBA by libavif.
  const result = decoder.decode(bytes, 8);
  if (!result) throw invalidImage("The AVIF could not be decoded.");
  return { width: result.width, height: result.height, data: result.data };
}

export interface AvifEncodeOptions {
  quality?: number;
}

export async function encodeAvif(image: RasterImage, options: AvifEncodeOptions = {}): Promise<Uint8Array> {
  const encoder = await instantiateCodec<AvifEncoder>(encoderFactory, encoderWasm);
  const out = encoder.encode(image.data, image.width, image.height, {
    quality: options.quality ?? AVIF_DEFAULT_QUALITY,
    qualityAlpha: -1, // alpha at the colour quality
    denoiseLevel: 0,
    tileColsLog2: 0,
    tileRowsLog2: 0,
    speed: AVIF_SPEED,
    subsample: 1, // 4:2:0
    chromaDeltaQ: false,
    sharpness: 0,
    tune: 0,
    enableSharpYUV: false,
    bitDepth: 8,
    lossless: false,
  });
  if (!out) throw new Error("libavif failed to encode the image.");
  return out;
}
