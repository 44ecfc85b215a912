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
import { ftypBrands, readPrimaryImage } from "./isobmff.ts";
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
  heif_colorspace: { heif_colorspace_RGB: unknown };
  heif_chroma: { heif_chroma_interleaved_RGBA: unknown };
  heif_channel: { heif_channel_interleaved: { value: number } };
}

function failed(result: unknown): result is HeifError {
  return typeof result === "object" && result !== null && "code" in result && (result as HeifError).code.value !== 0;
}

/**
 * Decodes the primary image to RGBA. `maxPixels` is handed to libheif as its own size limit,
 * so a grid whose tiles add up to more than the header promised stops inside the decoder.
 */
export async function decodeHeic(bytes: Uint8Array, maxPixels: number): Promise<RasterImage> {
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
      return decodePrimary(heif, handle);
    } finally {
      heif.heif_image_handle_release(handle);
    }
  } finally {
    heif.heif_context_free(context);
  }
}

function decodePrimary(heif: Libheif, handle: ImageHandle): RasterImage {
  const decoded = heif.heif_js_decode_image2(handle, heif.heif_colorspace.heif_colorspace_RGB, heif.heif_chroma.heif_chroma_interleaved_RGBA);
  if (!decoded || failed(decoded) || !("channels" in decoded)) {
    const why = decoded && "message" in decoded ? `: ${decoded.message.trim()}` : "";
    throw invalidImage(`The HEIC could not be decoded${why}.`);
  }
  try {
    const plane = decoded.channels.find((c) => c.id.value === heif.heif_channel.heif_channel_interleaved.value);
    if (!plane) throw invalidImage("The HEIC decoded without an RGBA plane.");
    const { width, height, stride } = plane;
    // The plane is a view of the instance's memory: one copy out, row by row when padded.
    const data = new Uint8ClampedArray(width * height * 4);
    if (stride === width * 4) data.set(plane.data.subarray(0, data.length));
    else for (let y = 0; y < height; y++) data.set(plane.data.subarray(y * stride, y * stride + width * 4), y * width * 4);
    return { width, height, data };
  } finally {
    heif.heif_image_release(decoded.image);
  }
}
