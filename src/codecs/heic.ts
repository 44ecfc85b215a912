// HEIC (HEIF with HEVC-coded images, what iPhones save by default): an input format only, read
// with libheif + libde265 (the libheif-js package's WebAssembly build, LGPL-3.0), one instance
// per operation like the other WASM codecs (wasm.ts). Nothing encodes HEIC here: it is never a
// target (HEVC encoding is patent-encumbered and no target list names it).
//
// libheif applies the file's own transformations (irot, imir, clap) while decoding, so the
// pixels come out the way a viewer shows them; HEIF does not use EXIF orientation for that.

import heifFactory from "libheif-js/libheif-wasm/libheif.js";
import heifWasm from "libheif-js/libheif-wasm/libheif.wasm";
import { invalidImage } from "./bytes.ts";
import type { RasterImage } from "./formats.ts";
import { copyEight } from "./hevc.ts";
import { ftypBrands, readPrimaryImage } from "./isobmff.ts";
import type { PlanesEncoding, SamplePlane, YCbCrImage } from "./native.ts";
import { instantiateCodec } from "./wasm.ts";

/** Brands of HEVC-coded HEIF files (still images and sequences). */
const HEIC_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx"]);

/** An ISO-BMFF file whose ftyp names a HEVC brand. AVIF is recognised first (sniff.ts). */
export function looksLikeHeic(bytes: Uint8Array): boolean {
  return ftypBrands(bytes).some((brand) => HEIC_BRANDS.has(brand));
}

/**
 * The primary image's size as it will be shown: `ispe` with width and height swapped when an
 * `irot` turns it by a quarter. A clean-aperture crop (clap) can only make the decoded image
 * smaller, which decodeImage accepts for HEIC.
 */
export function readHeicHeader(bytes: Uint8Array): { width: number; height: number } {
  if (!looksLikeHeic(bytes)) throw invalidImage("The data is not a HEIC (no HEVC brand).");
  const { width, height, quarterTurn } = readPrimaryImage(bytes, "HEIC");
  return quarterTurn ? { width: height, height: width } : { width, height };
}

interface HeifError {
  code: { value: number };
  message: string;
}
/** An embind-wrapped heif_image_handle pointer. */
type ImageHandle = object;
interface HeifChannel {
  id: { value: number };
  width: number;
  height: number;
  stride: number;
  data: Uint8Array;
  bits_per_pixel: number;
}
interface HeifDecoded {
  image: number;
  channels: HeifChannel[];
}
interface Libheif {
  heif_context_alloc(): number;
  heif_context_free(context: number): void;
  heif_context_read_from_memory(context: number, bytes: Uint8Array): HeifError;
  heif_context_set_maximum_image_size_limit(context: number, pixels: number): void;
  heif_js_context_get_primary_image_handle(context: number): ImageHandle | HeifError | null;
  heif_js_decode_image2(handle: ImageHandle, colorspace: unknown, chroma: unknown): HeifDecoded | HeifError | null;
  heif_image_handle_release(handle: ImageHandle): void;
  heif_image_release(image: number): void;
  heif_colorspace: { heif_colorspace_RGB: unknown; heif_colorspace_YCbCr: unknown };
  heif_chroma: { heif_chroma_interleaved_RGBA: unknown; heif_chroma_420: unknown };
  heif_channel: Record<"heif_channel_interleaved" | "heif_channel_Y" | "heif_channel_Cb" | "heif_channel_Cr" | "heif_channel_Alpha", { value: number }>;
}

function failed(result: unknown): result is HeifError {
  return typeof result === "object" && result !== null && "code" in result && (result as HeifError).code.value !== 0;
}

/** Luma weights of red and blue (kr, kb) by H.273 matrix code: the linear YCbCr matrices. */
const BT601: [number, number] = [0.299, 0.114];
const LUMA_WEIGHTS: Record<number, [number, number]> = { 1: [0.2126, 0.0722], 2: BT601, 5: BT601, 6: BT601, 9: [0.2627, 0.0593] };

/**
 * How the primary image's YCbCr planes are encoded, from its nclx colour box; without one,
 * libheif's own default (BT.601, full range), which is also what its RGB conversion assumes.
 * Null for the matrices that are not a plain linear YCbCr (identity, YCgCo, constant
 * luminance): those files are decoded to RGBA by libheif instead. `alpha`: the file declares an
 * alpha plane (it costs more to encode: recode-cost.ts).
 */
export function heicEncoding(bytes: Uint8Array): (PlanesEncoding & { alpha: boolean }) | null {
  const { nclx, alpha } = readPrimaryImage(bytes, "HEIC");
  if (!nclx) return { kr: BT601[0], kb: BT601[1], fullRange: true, alpha };
  const weights = LUMA_WEIGHTS[nclx.matrix];
  return weights ? { kr: weights[0], kb: weights[1], fullRange: nclx.fullRange, alpha } : null;
}

/**
 * The primary image as YCbCr 4:2:0 planes, 8 bits a sample, copied out of libheif's memory:
 * the HEVC picture's own samples (libheif's turn and crop applied, 4:4:4 averaged down, deeper
 * samples scaled to 8 bits), alpha as a fourth plane. No RGBA image is made, and the copy lets
 * libheif's instance go before anything is encoded (its memory peaks at about 4.7 bytes a pixel).
 */
export async function decodeHeicPlanes(bytes: Uint8Array, maxPixels: number, encoding: PlanesEncoding): Promise<YCbCrImage> {
  return withPrimaryImage(bytes, maxPixels, (heif, handle) =>
    withDecoded(heif, handle, heif.heif_colorspace.heif_colorspace_YCbCr, heif.heif_chroma.heif_chroma_420, (plane) => {
      const [y, cb, cr, alpha] = [plane("heif_channel_Y"), plane("heif_channel_Cb"), plane("heif_channel_Cr"), plane("heif_channel_Alpha")];
      if (!y || !cb || !cr) throw invalidImage("The HEIC decoded without its YCbCr planes.");
      const { kr, kb, fullRange } = encoding;
      return { width: y.width, height: y.height, y: copyPlane(y), cb: copyPlane(cb), cr: copyPlane(cr), alpha: alpha && copyPlane(alpha), kr, kb, fullRange };
    }),
  );
}

/** A channel's samples as a packed 8-bit plane; deeper samples (16-bit words) rounded to 8 bits. */
function copyPlane(channel: HeifChannel): SamplePlane {
  const { data, stride, width, height, bits_per_pixel: bits } = channel;
  if (bits <= 8) return { data: packedRows(channel, width), stride: width };
  const out = { data: new Uint8Array(width * height), stride: width };
  copyEight({ data, stride, bits }, out, 0, width, height);
  return out;
}

/**
 * Decodes the primary image to RGBA. `maxPixels` is handed to libheif as its own size limit,
 * but this build does not hold to it (a 128x64 grid decodes under a limit of 100 pixels): what
 * bounds the picture libheif makes is checked before the charge (heic-structure.ts: grid tiles,
 * every parameter set against its item's declared size) and the decoded size after (decode.ts).
 */
export async function decodeHeic(bytes: Uint8Array, maxPixels: number): Promise<RasterImage> {
  return withPrimaryImage(bytes, maxPixels, (heif, handle) =>
    withDecoded(heif, handle, heif.heif_colorspace.heif_colorspace_RGB, heif.heif_chroma.heif_chroma_interleaved_RGBA, (plane) => {
      const rgba = plane("heif_channel_interleaved");
      if (!rgba) throw invalidImage("The HEIC decoded without an RGBA plane.");
      return { width: rgba.width, height: rgba.height, data: new Uint8ClampedArray(packedRows(rgba, rgba.width * 4).buffer) };
    }),
  );
}

/**
 * A channel's rows of `rowBytes` copied out of the instance's memory (the channel is a view of
 * it) into one packed array: in one piece when the rows carry no padding.
 */
function packedRows({ data, stride, height }: HeifChannel, rowBytes: number): Uint8Array {
  if (stride === rowBytes) return data.slice(0, rowBytes * height);
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) out.set(data.subarray(y * stride, y * stride + rowBytes), y * rowBytes);
  return out;
}

/** A fresh libheif instance with the file read and its primary image's handle, for `use`. */
async function withPrimaryImage<R>(bytes: Uint8Array, maxPixels: number, use: (heif: Libheif, handle: ImageHandle) => R): Promise<R> {
  const heif = await instantiateCodec<Libheif>(heifFactory, heifWasm);
  const context = heif.heif_context_alloc();
  if (!context) throw new Error("libheif could not allocate a context.");
  try {
    heif.heif_context_set_maximum_image_size_limit(context, Math.ceil(Math.sqrt(maxPixels)) ** 2);
    const read = heif.heif_context_read_from_memory(context, bytes);
    if (failed(read)) throw invalidImage(`The HEIC could not be read: ${read.message.trim()}.`);
    const handle = heif.heif_js_context_get_primary_image_handle(context);
    if (!handle || "code" in handle) throw invalidImage("The HEIC has no primary image.");
    try {
      return use(heif, handle);
    } finally {
      heif.heif_image_handle_release(handle);
    }
  } finally {
    heif.heif_context_free(context);
  }
}

/**
 * Decodes the primary image as `colorspace` and `chroma` and hands `use` a lookup of its
 * channels (views of the instance's memory); the decoded image is released afterwards.
 */
function withDecoded<R>(heif: Libheif, handle: ImageHandle, colorspace: unknown, chroma: unknown, use: (plane: (channel: keyof Libheif["heif_channel"]) => HeifChannel | undefined) => R): R {
  const decoded = heif.heif_js_decode_image2(handle, colorspace, chroma);
  if (!decoded || failed(decoded) || !("channels" in decoded)) {
    const why = decoded && "message" in decoded ? `: ${decoded.message.trim()}` : "";
    throw invalidImage(`The HEIC could not be decoded${why}.`);
  }
  try {
    return use((channel) => decoded.channels.find((c) => c.id.value === heif.heif_channel[channel].value));
  } finally {
    heif.heif_image_release(decoded.image);
  }
}
