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
import { invalidImage } from "./bytes.ts";
import { ftypBrands, readPrimaryImage } from "./isobmff.ts";
import { FORMAT_INFO, type RasterImage } from "./formats.ts";
import { instantiateCodec } from "./wasm.ts";

export const AVIF_INFO = FORMAT_INFO.avif;
/** The fixed convert setting (spec 4.14). */
export const AVIF_DEFAULT_QUALITY = 50;
export const AVIF_SPEED = 8;

interface AvifEncoder {
  encode(data: BufferSource, width: number, height: number, options: Record<string, number | boolean>): Uint8Array | null;
}
interface AvifDecoder {
  decode(data: BufferSource, bitDepth: 8): { data: Uint8ClampedArray; width: number; height: number } | null;
}

const AVIF_BRANDS = new Set(["avif", "avis"]);

/** An ISO-BMFF file whose ftyp names avif or avis as major or compatible brand. */
export function looksLikeAvif(bytes: Uint8Array): boolean {
  return ftypBrands(bytes).some((brand) => AVIF_BRANDS.has(brand));
}

/** The primary image's size (`ispe`), as the AVIF stores it. */
export function readAvifHeader(bytes: Uint8Array): { width: number; height: number } {
  if (!looksLikeAvif(bytes)) throw invalidImage("The data is not an AVIF (no avif/avis brand).");
  const { width, height } = readPrimaryImage(bytes, "AVIF");
  return { width, height };
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
  const encode = await avifEncoder(options.quality ?? AVIF_DEFAULT_QUALITY);
  return encode(image);
}

/**
 * One libavif instance that encodes pictures one after another at `quality`, each as a whole
 * single-image AVIF: the cells of a grid AVIF (avif-cells.ts) share it, so its memory is one
 * cell's, however many cells there are. What it returns is copied out of WASM memory. `chroma`:
 * 4:2:0 (the convert setting) or 4:4:4 (a grid of odd width or height: MIAF allows no other).
 */
export async function avifEncoder(quality: number, chroma: "4:2:0" | "4:4:4" = "4:2:0"): Promise<(image: RasterImage) => Uint8Array> {
  const encoder = await instantiateCodec<AvifEncoder>(encoderFactory, encoderWasm);
  const settings = { ...ENCODER_SETTINGS, quality, subsample: chroma === "4:4:4" ? 3 : 1 };
  return (image) => {
    const out = encoder.encode(image.data, image.width, image.height, settings);
    if (!out) throw new Error("libavif failed to encode the image.");
    return out;
  };
}

const ENCODER_SETTINGS = {
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
};
