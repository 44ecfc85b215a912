// What `npm run bench:codecs` measures: each operation of the service, the input it starts
// from, the goal for its time ratio to sharp, and sharp's pipeline at equal settings.
//
// Settings mapping (service -> sharp), all single-threaded (sharp.concurrency(1)):
//   webp q70  libwebp lossy, method M, sns 50, filter 60, 4 segments, 1 pass (WebPConfig defaults)
//             -> sharp webp({ quality: 70, effort: M, alphaQuality: 100, smartSubsample: false }):
//             sharp's "default" preset is the same WebPConfig defaults.
//   jpeg q70  MozJPEG, progressive, optimised Huffman, quant table 3, trellis (MozJPEG's default
//             profile), 4:2:0 -> sharp jpeg({ quality: 70, mozjpeg: true, chromaSubsampling:
//             "4:2:0" }): sharp's libvips is built on MozJPEG, and mozjpeg: true selects the same
//             profile (trellis, overshoot deringing, scan optimisation, progressive, table 3).
//   avif q50  libavif + libaom, speed S, 4:2:0, 8 bit -> sharp avif({ quality: 50, effort: 9 - S,
//             chromaSubsampling: "4:2:0", bitdepth: 8 }): libheif + libaom; both map quality
//             to the AV1 quantizer as (100 - q) * 63 / 100 and speed to aom's cpu-used.
//   png q100  lossless, smallest exact layout (RGB for opaque), adaptive filter per row (minimum
//             sum of absolute residuals over every byte, libpng's heuristic), deflated by
//             libdeflate a part at a time, starting photographic rows at level L (FLEVEL 1, as
//             zlib's 2 to 5) (native/png_sink.c, png_deflate.c LEVEL_PHOTO) -> sharp png({
//             compressionLevel: L, adaptiveFiltering: true }) (libpng: every byte of every
//             filter, Z_FILTERED, zlib-ng), alpha removed for an opaque image so sharp writes RGB
//             too. The level class the service really used is read back from its zlib header
//             (FLEVEL) and checked; the output sizes are printed.
//   png q70   median-cut palette of 128 colours, no dithering; the lossless file is written as
//             well (abandoned once longer) and the smaller one wins -> sharp png({ palette: true,
//             colours: 128, dither: 0, compressionLevel: F }) with F = LEVEL_PALETTE, the level
//             native/png_deflate.c deflates palettes with (libimagequant, its default effort):
//             sharp does one encode where the service does two, so this ratio is the service's
//             whole cost.
//   decode    service: src/codecs decodeImage to RGBA -> sharp: decode, ensureAlpha, raw RGBA.
//   whole     (file to file) service: recodeImage on the uploaded JPEG (or PNG), which for WebP,
//             JPEG and PNG targets is one call into our own WASM build (libjpeg-turbo into libwebp, or
//             libjpeg-turbo progressive with MozJPEG's table but without trellis) -> sharp: the
//             same file decoded and encoded with the plan above, through the same PNG writer as a
//             raster's (9 for flat rows besides the levels above: native/png_deflate.c).
import type { Format, Resize, ServiceSettings } from "./codecs-service.ts";
import { HEIC_INPUT, type InputKind } from "./codecs-images.ts";

export interface EncodeCase {
  kind: "encode";
  id: string;
  label: string;
  input: InputKind;
  target: Format;
  /** Absent: the convert tool's fixed settings (no quality passed). */
  quality?: number;
  /** Goal for median(service) / median(sharp). */
  goalRatio: number;
  /**
   * Timed from the uploaded file's bytes, as the tools run it (recodeImage: JPEG to WebP/JPEG
   * in one native call) against sharp decoding the same file; otherwise from the decoded raster.
   */
  whole?: boolean;
  /**
   * compress's or convert's resize (`width`, `height`, `fit`), from the uploaded file (whole):
   * sharp gets the same box, Lanczos-3 and its own shrink-on-load (libjpeg's DCT scaling too).
   */
  resize?: Resize;
}

export interface DecodeCase {
  kind: "decode";
  id: string;
  label: string;
  input: InputKind;
}

export type TimingCase = EncodeCase | DecodeCase;

/**
 * Resized while the JPEG decodes (libjpeg's DCT scaling, then Lanczos-3 a row at a time:
 * src/codecs/resize.ts), timed and measured alike; meant at 24 MP (the thumbnail) and 12 MP
 * (1600 wide): --sizes 12,24 --cases with these ids.
 */
const RESIZE_CASES: EncodeCase[] = [
  { kind: "encode", id: "thumb-800-webp", label: "compress webp q80 to an 800x800 thumbnail (jpeg file)", input: "jpeg", target: "webp", quality: 80, goalRatio: 2.0, whole: true, resize: { width: 800, height: 800 } },
  { kind: "encode", id: "thumb-800-cover-jpeg", label: "convert jpeg, 800x800 cover (jpeg file)", input: "jpeg", target: "jpeg", goalRatio: 2.0, whole: true, resize: { width: 800, height: 800, fit: "cover" } },
  { kind: "encode", id: "wide-1600-jpeg", label: "convert jpeg 1600 wide (jpeg file)", input: "jpeg", target: "jpeg", goalRatio: 2.0, whole: true, resize: { width: 1600 } },
  { kind: "encode", id: "wide-1600-webp-progressive", label: "compress webp q80 1600 wide (progressive jpeg file)", input: "jpeg-progressive", target: "webp", quality: 80, goalRatio: 2.0, whole: true, resize: { width: 1600 } },
];

/**
 * A tool path measured whole in the memory child, beside the codec cases: `upscale`, the local
 * upscaler's rows written as a PNG into a multipart upload (providers/local/upscale.ts,
 * codecs/native.ts pngPieces, storage/results.ts hostPieces; an output over 8192 x 8192 is refused as
 * the service would); `preview`, the MCP preview of a stored result of this size (mcp/preview.ts:
 * read whole up to 16 MiB, a larger PNG read as a stream, a JPEG over 4 MP through our build's
 * rows; `ofUpscale`: the stored result is the local upscale of the input, made beforehand).
 * Memory only.
 */
export type ToolCase =
  | { kind: "upscale"; id: string; label: string; input: InputKind; factor: 2 | 4 | 8 }
  | { kind: "preview"; id: string; label: string; input: InputKind; ofUpscale?: 2 | 4 | 8 };

export type MemoryCase = TimingCase | ToolCase | ModelCase;

/**
 * A model tool's own codec work on a photo (codecs-memory-child.ts runs it as the tool does):
 * its input made acceptable to a provider's documented inputs (src/providers/accepted-inputs.ts:
 * "openai" turns a JPEG upright or converts a HEIC at full size, "flux2" shrinks to 512x512), or
 * the local cut-out or edit at the photo's upright size (src/providers/local/full-size.ts).
 */
export interface ModelCase {
  kind: "model";
  id: string;
  label: string;
  input: InputKind;
  work: ModelWork;
}

export type ModelWork = { tool: "cutout" } | { tool: "edit"; instruction: string } | { tool: "accepted"; row: "openai" | "workers-ai-flux2" };

/** The model tools' cases: what each input costs to prepare for a provider, and the local models' full-size answers. */
export const MODEL_CASES: ModelCase[] = [
  { kind: "model", id: "model-input-openai", label: "model input for OpenAI edits (portrait jpeg turned upright)", input: "jpeg-product", work: { tool: "accepted", row: "openai" } },
  { kind: "model", id: "model-input-flux2", label: "model input for FLUX.2 (portrait jpeg shrunk to 512)", input: "jpeg-product", work: { tool: "accepted", row: "workers-ai-flux2" } },
  ...(HEIC_INPUT ? [{ kind: "model" as const, id: "model-input-openai-heic", label: "model input for OpenAI edits (heic to jpeg)", input: "heic" as const, work: { tool: "accepted" as const, row: "openai" as const } }] : []),
  { kind: "model", id: "model-cutout", label: "local remove-background, full size (portrait jpeg)", input: "jpeg-product", work: { tool: "cutout" } },
  { kind: "model", id: "model-edit-tone", label: "local edit grayscale, full size (portrait jpeg)", input: "jpeg-product", work: { tool: "edit", instruction: "grayscale" } },
  { kind: "model", id: "model-edit-turn-crop", label: "local edit rotate and crop, full size (jpeg)", input: "jpeg", work: { tool: "edit", instruction: "rotate 90 left and crop to 16:9" } },
];

export const ENCODE_CASES: EncodeCase[] = [
  { kind: "encode", id: "webp-q70", label: "compress webp q70 (jpeg in)", input: "jpeg", target: "webp", quality: 70, goalRatio: 1.2 },
  { kind: "encode", id: "jpeg-q70", label: "compress jpeg q70 (jpeg in)", input: "jpeg", target: "jpeg", quality: 70, goalRatio: 2.0 },
  { kind: "encode", id: "webp-q70-whole", label: "compress webp q70 (jpeg file to file)", input: "jpeg", target: "webp", quality: 70, goalRatio: 1.3, whole: true },
  { kind: "encode", id: "jpeg-q70-whole", label: "compress jpeg q70 (jpeg file to file)", input: "jpeg", target: "jpeg", quality: 70, goalRatio: 2.0, whole: true },
  // A progressive upload: its decoder's whole coefficient array is kept packed (native/coef_store.c).
  { kind: "encode", id: "jpeg-q70-progressive-whole", label: "compress jpeg q70 (progressive jpeg file to file)", input: "jpeg-progressive", target: "jpeg", quality: 70, goalRatio: 2.0, whole: true },
  { kind: "encode", id: "avif-q50", label: "convert avif q50 (jpeg in)", input: "jpeg", target: "avif", goalRatio: 2.0 },
  // Above 2 MP the service writes a grid AVIF, its cells coded one at a time (src/codecs/avif-cells.ts); sharp one AV1 image.
  { kind: "encode", id: "avif-q50-whole", label: "convert avif q50 (jpeg file to file)", input: "jpeg", target: "avif", goalRatio: 2.0, whole: true },
  { kind: "encode", id: "png-q100", label: "compress png q100 (png in)", input: "png", target: "png", quality: 100, goalRatio: 1.0 },
  { kind: "encode", id: "png-q100-alpha", label: "compress png q100 alpha", input: "png-alpha", target: "png", quality: 100, goalRatio: 1.0 },
  { kind: "encode", id: "png-q70", label: "compress png q70 (png in)", input: "png", target: "png", quality: 70, goalRatio: 1.0 },
  { kind: "encode", id: "png-q70-alpha", label: "compress png q70 alpha", input: "png-alpha", target: "png", quality: 70, goalRatio: 1.0 },
  // PNG written by our own WASM build straight from the file's rows (native/png_sink.c).
  { kind: "encode", id: "png-whole", label: "convert png lossless (jpeg file to file)", input: "jpeg", target: "png", goalRatio: 1.2, whole: true },
  { kind: "encode", id: "png-q70-whole", label: "compress png q70 (jpeg file to file)", input: "jpeg", target: "png", quality: 70, goalRatio: 1.2, whole: true },
  { kind: "encode", id: "png-png-whole", label: "convert png lossless (png file to file)", input: "png", target: "png", goalRatio: 1.2, whole: true },
  ...RESIZE_CASES,
];

export const DECODE_CASES: DecodeCase[] = [
  { kind: "decode", id: "decode-jpeg", label: "decode jpeg", input: "jpeg" },
  { kind: "decode", id: "decode-png", label: "decode png (rgb)", input: "png" },
  { kind: "decode", id: "decode-png-alpha", label: "decode png (rgba)", input: "png-alpha" },
  { kind: "decode", id: "decode-webp", label: "decode webp", input: "webp" },
  { kind: "decode", id: "decode-avif", label: "decode avif", input: "avif" },
];

const encode = (input: InputKind, target: Format, quality?: number): EncodeCase => ({
  kind: "encode",
  id: `${target}${quality === undefined ? "" : `-q${quality}`}-from-${input}`,
  label: `${quality === undefined ? "convert" : "compress"} ${target}${quality === undefined ? "" : ` q${quality}`} (${input} in)`,
  input,
  target,
  ...(quality === undefined ? {} : { quality }),
  goalRatio: 0,
});
const decodeOnly = (input: InputKind): DecodeCase => ({ kind: "decode", id: `decode-${input}`, label: `decode ${input}`, input });

/**
 * The variants whose routes (src/codecs/route-table.ts) price with term sets of their own, each
 * made once so every set in route-costs.json has a recorded peak behind it: memory only. Run
 * them all with `npm run bench:codecs -- --no-timing --no-fixed-cost --cases terms`.
 */
const TERM_CASES: MemoryCase[] = [
  // EXIF-turned JPEGs: the JPEG encoder from oriented planes; a progressive file's rows in bands.
  encode("jpeg-turned", "jpeg", 70),
  // A JPEG whose WebP's tokens would not fit beside the rest of the call (12 MP at quality 100):
  // the encoder codes as it goes.
  encode("jpeg", "webp", 100),
  ...(["png", "gif"] as const).map((target) => encode("jpeg-progressive-turned", target)),
  encode("jpeg-progressive-turned", "png", 70),
  ...(["gif", "bmp"] as const).map((target) => encode("jpeg-progressive", target)),
  // A resize whose answer costs more to encode than the file to read: a PNG to WebP 1800 wide
  // (run at 4 and 12 MP; smaller pictures are not resized).
  { kind: "encode", id: "wide-1800-webp-from-png", label: "compress webp q80 1800 wide (png file)", input: "png", target: "webp", quality: 80, goalRatio: 0, whole: true, resize: { width: 1800 } },
  // PNG (opaque, and with alpha) into the JPEG and WebP encoders.
  encode("png", "jpeg", 70),
  encode("png-alpha", "jpeg", 70),
  encode("png-alpha", "webp", 70),
  // WebP's rows into the GIF and BMP writers; a lossless WebP with alpha into the encoders.
  ...(["webp", "webp-lossless", "webp-alpha"] as const).flatMap((input) => (["gif", "bmp"] as const).map((target) => encode(input, target))),
  ...(["webp", "jpeg"] as const).map((target) => encode("webp-lossless-alpha", target, 70)),
  // The general path: an interlaced PNG (de-interlaced by the TypeScript decoder) into every
  // encoder, and the decoders alone (a decode-only call is priced by its decode stage; GIF, BMP
  // and TIFF uploads are read there whatever the target).
  ...(["webp", "jpeg", "png", "gif", "bmp", "tiff"] as const).map((target) => encode("png-interlaced", target)),
  ...(["jpeg", "png", "gif", "bmp", "tiff"] as const).map(decodeOnly),
  ...(HEIC_INPUT
    ? [
        decodeOnly("heic"),
        // Our decoder's planes of a grid into the GIF and BMP writers, opaque and with alpha; a
        // grid with alpha into the encoders and the PNG writer.
        ...(["heic", "heic-alpha"] as const).flatMap((input) => (["gif", "bmp"] as const).map((target) => encode(input, target))),
        ...(["webp", "jpeg"] as const).map((target) => encode("heic-alpha", target, 70)),
        encode("heic-alpha", "png"),
        encode("heic-alpha", "png", 70),
        // A single image with alpha (libde265's picture and its alpha's), and one turned by irot.
        ...(["webp", "jpeg"] as const).map((target) => encode("heic-single-alpha", target, 70)),
        encode("heic-single-alpha", "gif"),
        encode("heic-single-turned", "gif"),
        // Mirrored by imir: libheif's planes, opaque and with alpha.
        ...(["heic-mirrored", "heic-mirrored-alpha"] as const).flatMap((input) => [encode(input, "webp", 70), encode(input, "jpeg", 70), encode(input, "png")]),
      ]
    : []),
];

/** The ids of TERM_CASES: what `--cases terms` selects. */
export const TERM_CASE_IDS = TERM_CASES.map((c) => c.id);

/**
 * Peak memory of one request: every encode case as the tool runs it (decode the upload, then
 * encode), the same targets from a PNG upload (a large input file stays alive through the
 * encode), and decode-only for the inputs that no encode case starts from.
 */
export const MEMORY_CASES: MemoryCase[] = [
  // The memory child always runs the tool's whole path: the "whole" timing cases would repeat
  // (a resize is a path of its own).
  ...ENCODE_CASES.filter((c) => !c.whole || c.resize),
  { kind: "encode", id: "webp-q70-from-png", label: "compress webp q70 (png in)", input: "png", target: "webp", quality: 70, goalRatio: 1.2 },
  { kind: "encode", id: "avif-q50-from-png", label: "convert avif q50 (png in)", input: "png", target: "avif", goalRatio: 2.0 },
  { kind: "encode", id: "png-from-jpeg", label: "convert png lossless (jpeg in)", input: "jpeg", target: "png", goalRatio: 1.2 },
  { kind: "encode", id: "png-q70-from-jpeg", label: "compress png q70 (jpeg in)", input: "jpeg", target: "png", quality: 70, goalRatio: 1.2 },
  { kind: "decode", id: "decode-webp", label: "decode webp", input: "webp" },
  { kind: "decode", id: "decode-avif", label: "decode avif", input: "avif" },
  // GIF and BMP written by our own WASM build from the file's rows (native/gif_sink.c,
  // bmp_sink.c); sharp writes neither at our settings, so these are memory only (goalRatio unused).
  ...(["gif", "bmp"] as const).flatMap((target) =>
    (["jpeg", "png", "png-alpha"] as const).map((input): EncodeCase => ({ kind: "encode", id: `${target}-from-${input}`, label: `convert ${target} (${input} in)`, input, target, goalRatio: 0 })),
  ),
  // TIFF (a baseline JPEG strip) from a baseline upload, and every target from a progressive
  // one, whose decoder holds a whole coefficient array (packed: native/coef_store.c). Run them
  // at 24 MP too: npm run bench:codecs -- --sizes 12,24 --no-timing.
  { kind: "encode", id: "tiff-from-jpeg", label: "convert tiff (jpeg in)", input: "jpeg", target: "tiff", goalRatio: 0 },
  ...(["webp", "jpeg"] as const).map((target): EncodeCase => ({ kind: "encode", id: `${target}-q70-from-progressive`, label: `compress ${target} q70 (progressive jpeg in)`, input: "jpeg-progressive", target, quality: 70, goalRatio: 0 })),
  ...(["png", "tiff"] as const).map((target): EncodeCase => ({ kind: "encode", id: `${target}-from-progressive`, label: `convert ${target} (progressive jpeg in)`, input: "jpeg-progressive", target, goalRatio: 0 })),
  { kind: "encode", id: "png-q70-from-progressive", label: "compress png q70 (progressive jpeg in)", input: "jpeg-progressive", target: "png", quality: 70, goalRatio: 0 },
  // WebP uploads, which our own WASM build decodes straight into the encoders (lossless and
  // alpha files cost more inside libwebp, and have figures of their own).
  ...(["webp", "webp-lossless", "webp-alpha"] as const).flatMap((input): EncodeCase[] =>
    (["webp", "jpeg"] as const).map((target) => ({ kind: "encode", id: `${target}-q70-from-${input}`, label: `compress ${target} q70 (${input} in)`, input, target, quality: 70, goalRatio: 1.3 })),
  ),
  // WebP and HEIC uploads written as PNG by our own build's PNG writer, which reads their rows
  // (native/png_webp_rows.c, png_planes_rows.c): memory only (goalRatio unused).
  ...(["webp", "webp-lossless", "webp-alpha", ...(HEIC_INPUT ? (["heic"] as const) : [])] as const).flatMap((input): EncodeCase[] => [
    { kind: "encode", id: `png-from-${input}`, label: `convert png lossless (${input} in)`, input, target: "png", goalRatio: 0 },
    { kind: "encode", id: `png-q70-from-${input}`, label: `compress png q70 (${input} in)`, input, target: "png", quality: 70, goalRatio: 0 },
  ]),
  // A HEIC resized from its planes (src/codecs/resize.ts): memory only, as below.
  ...(HEIC_INPUT
    ? [{ kind: "encode", id: "thumb-800-webp-from-heic", label: "compress webp q80 to an 800x800 thumbnail (heic in)", input: "heic", target: "webp", quality: 80, goalRatio: 0, whole: true, resize: { width: 800, height: 800 } } as EncodeCase]
    : []),
  // sharp cannot read HEVC, so HEIC has no timing cases (goalRatio unused): memory only, where
  // heif-enc exists.
  ...(HEIC_INPUT
    ? [
        ...(["webp", "jpeg"] as const).map((target): EncodeCase => ({ kind: "encode", id: `${target}-q70-from-heic`, label: `compress ${target} q70 (heic in)`, input: "heic", target, quality: 70, goalRatio: 0 })),
        { kind: "encode", id: "avif-q50-from-heic", label: "convert avif q50 (heic in)", input: "heic", target: "avif", goalRatio: 0 } satisfies EncodeCase,
      ]
    : []),
  ...TERM_CASES,
  // The upscale tool's local path at each factor (a size whose output passes 8192 x 8192 is
  // refused, as the service would), and previews of large results.
  ...([2, 4, 8] as const).flatMap((factor): ToolCase[] => [
    { kind: "upscale", id: `upscale-${factor}x-from-png`, label: `upscale ${factor}x to R2 (png in)`, input: "png", factor },
    { kind: "upscale", id: `upscale-${factor}x-from-png-alpha`, label: `upscale ${factor}x to R2 (png-alpha in)`, input: "png-alpha", factor },
  ]),
  { kind: "upscale", id: "upscale-2x-from-jpeg", label: "upscale 2x to R2 (jpeg in)", input: "jpeg", factor: 2 },
  ...(["png", "png-alpha", "jpeg", "webp"] as const).map((input): ToolCase => ({ kind: "preview", id: `preview-${input}`, label: `mcp preview of a stored ${input} result`, input })),
  // The preview of an upscale's result, read from storage as a stream: 8x of 1 MP is 8192 x 8192.
  ...([2, 8] as const).map((factor): ToolCase => ({ kind: "preview", id: `preview-upscale-${factor}x-png`, label: `mcp preview of a stored ${factor}x upscale (png in)`, input: "png", ofUpscale: factor })),
  ...MODEL_CASES,
];

export const INPUT_KINDS: InputKind[] = [
  "jpeg",
  "jpeg-progressive",
  "png",
  "png-alpha",
  "webp",
  "webp-lossless",
  "webp-alpha",
  "avif",
  ...(HEIC_INPUT ? (["heic"] as const) : []),
  "jpeg-product",
  "jpeg-turned",
  "jpeg-progressive-turned",
  "png-interlaced",
  "webp-lossless-alpha",
  "gif",
  "bmp",
  "tiff",
  ...(HEIC_INPUT ? (["heic-alpha", "heic-single-alpha", "heic-single-turned", "heic-mirrored", "heic-mirrored-alpha"] as const) : []),
];

/** What sharp is asked to do for `c`, at the service's settings. Pure data, printed in the report. */
export interface SharpPlan {
  removeAlpha: boolean;
  format: Format;
  options: Record<string, unknown>;
}

export function sharpPlan(c: EncodeCase, settings: ServiceSettings): SharpPlan {
  switch (c.target) {
    case "webp":
      return {
        removeAlpha: false,
        format: "webp",
        options: { quality: c.quality ?? 80, effort: settings.webpMethod, alphaQuality: 100, smartSubsample: false, lossless: false, nearLossless: false },
      };
    case "jpeg":
      return {
        removeAlpha: false,
        format: "jpeg",
        options: { quality: c.quality ?? 80, mozjpeg: true, chromaSubsampling: "4:2:0", ...(settings.jpegProgressive ? {} : { progressive: false }) },
      };
    case "avif":
      return {
        removeAlpha: false,
        format: "avif",
        options: { quality: c.quality ?? 50, effort: Math.max(0, Math.min(9, 9 - settings.avifSpeed)), chromaSubsampling: "4:2:0", bitdepth: 8, lossless: false },
      };
    case "png":
      if ((c.quality ?? 100) >= 100) {
        return { removeAlpha: c.input !== "png-alpha", format: "png", options: { compressionLevel: settings.pngLevel, adaptiveFiltering: true, palette: false } };
      }
      return {
        removeAlpha: false,
        format: "png",
        options: { palette: true, colours: settings.paletteSize(c.quality ?? 100), dither: 0, compressionLevel: settings.pngPaletteLevel },
      };
    default:
      throw new Error(`no sharp mapping for ${c.target}`);
  }
}
