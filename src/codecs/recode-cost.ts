import type { WebpLayout } from "./webp.ts";

// What one compress or convert costs per pixel on each native path (route-table.ts's rows
// price themselves with these). Comments give the measurements each figure holds now; how the
// figures came down is in docs/codecs.md ("How the route figures came down"). Our own WASM
// build (native.ts) takes JPEG, PNG, still WebP and HEIC (libheif's YCbCr planes) to WebP or
// JPEG, and all four to PNG, without an RGBA raster; the figures are its measured peaks (memory child of `npm run bench:codecs`, docs/codecs.md), the upload
// counted separately (limits.ts). The general path's figures are in limits.ts.

/** What the WebP and JPEG encoders cost (a TIFF's strip is a baseline JPEG from the same encoder). */
export type NativeEncoderTarget = "webp" | "jpeg";

/** Peak WASM bytes per pixel of the native paths, as measured (slopes between 4, 12 and 24 MP). */
const NATIVE_BYTES_PER_PIXEL = {
  pngOpaque: { webp: 2.4, jpeg: 3.1 },
  // The alpha plane (1 B/px) goes to our own alpha coder (webp_alpha.c): 13.5 MB of WASM at 4 MP, 26.7 at 8 MP. To JPEG the alpha is flattened row by row:
  // 13.2 and 26.1 MB.
  pngAlpha: { webp: 3.4, jpeg: 3.3 },
  // Still WebP, lossy: decoded into the WebP encoder's YUV planes, or streamed as rows into
  // the JPEG encoder (its coefficients, 3 B/px, are then the picture's only whole copy).
  webpLossy: { webp: 2.5, jpeg: 3.6 },
  // VP8L through our own decoder a row at a time (native/vp8l.h): a window of recent pixels
  // (4 MB at most) instead of libwebp's whole ARGB image, the file read from JavaScript in 64 KB
  // pieces rather than copied into WASM memory. The 14 MB 12 MP photo, whole request: to WebP
  // 15.8, 30.1 and 44.3 MiB at 4, 8 and 12 MP, to JPEG 15.2, 21.8 and 26.3. To WebP the route adds the densest picture's WebP
  // (WEBP_DENSEST); beside it the decoder side measured at most 0.6 B/px more than a PNG's at
  // 12 MP (binary noise and its tiled upload coded as it goes, quality 70 to 100: 51.5 to 61.2
  // MB) and 2.8 at 4 MP (the tiled upload at quality 100, 32.5 MB), hence 3.5.
  webpLossless: { webp: 3.5, jpeg: 3.6 },
  // The ALPH plane from our own decoder a row at a time (native/alpha_rows.c); the WebP
  // encoder's picture holds it (1 B/px). The cut-out photo, whole request, at 4, 8 and 12 MP:
  // lossy to WebP 15.0, 26.8 and 36.5 MiB, to JPEG 10.0, 11.9 and 13.4; lossless (7.4 MB at
  // 12 MP) to WebP 17.4 and 47.3 at 4 and 12 MP, to JPEG 12.1 and 19.8.
  webpAlpha: { webp: 3.5, jpeg: 3.6 },
  webpLosslessAlpha: { webp: 4.5, jpeg: 3.6 }, // the same 1 B/px more than without alpha
  // libheif's instance (~4.7 B/px at its peak, 6.4 with an alpha plane) and the planes copied
  // out of it; the encoder comes after libheif is gone and needs less.
  heic: { webp: 6.2, jpeg: 6.2 },
  // With alpha, to WebP (our alpha coder): 23.4, 49.3 and 78.1 MB of WASM at 4, 8 and 12 MP.
  heicAlpha: { webp: 8.7, jpeg: 8.7 },
  // A grid through our HEVC decoder (heic-tiles.ts): one 512x512 tile's picture (its instance
  // stays at 1.4 MB) and one row or column of tiles in JavaScript (3 to 6 MB at 12 MP, within
  // FIXED_BYTES) next to the encoder's memory. Measured at 12 MP (4032x3024), WASM: 30.5 MB to
  // WebP (32.2 turned), 40.8 to JPEG (turned too); 4 MP 11.9 / 14.5, 8 MP 22.0 / 27.4. With an
  // alpha grid to WebP (our alpha coder: the plane is 1 B/px more): 14.4 MB of WASM at 4 MP,
  // 38.9 at 12 MP, 54.0 MB in all.
  heicGrid: { webp: 2.7, jpeg: 3.4 },
  heicGridAlpha: { webp: 3.7, jpeg: 3.4 },
  // One whole HEVC picture: libde265's memory peaks at 2.4 B/px (12 MP: 29.1 MB, of which the
  // picture 18.0, per-block metadata and the coded data, our copy of the input 1.7) while the
  // planes are copied out (1.5 B/px); the encoder comes after it is gone and needs less. Two
  // patches of ours (native/hevc/*.patch) keep the SAO filter's input a row of CTBs at a time
  // instead of a copy of the luma plane, and motion vectors only once a block is
  // inter-predicted, which no HEIF image is. Measured (4000x3000, 1.74 MB, upload included):
  // 49.5 to 51.5 MB to WebP, JPEG, PNG and GIF, 53.2 turned by irot; 2000x2000: 17.2 to 18.8.
  heicSingle: { webp: 4.4, jpeg: 4.4 },
  // With an alpha plane (its own coded image, decoded after the colour one; 2.5 B/px of planes
  // in JavaScript): 4000x3000, 1.75 MB, 67.7 MB to WebP q70 (our alpha coder, tokens included),
  // 61.9 to JPEG, PNG and GIF; 2000x2000: 25.5 and 20.9.
  heicSingleAlpha: { webp: 5.6, jpeg: 5.2 },
} as const;

/**
 * libwebp's token buffer: by default every token of the picture is kept until its final pass.
 * Its size follows the file written (19.5 bytes per byte of WebP, for a phone photo and for
 * noise alike), and that follows what the picture holds, which a lossy upload's size tells: a
 * WebP came out at most 0.73 times its upload at quality 70 (a noise JPEG; a phone photo 0.19),
 * 1.02 at 90, 1.33 at 100 (`outputPerInputByte`). Coding as it goes instead (libwebp's
 * low_memory: 1.65 times the CPU, files within 0.5%), what grows is the file only: its token
 * partition leaves WASM memory as it grows (native/libwebp-memory.patch) and stays in JavaScript
 * in those pieces up to the answer, so each byte of it is held once (`perOutputByte`, with room
 * for the 3 MB two runs of one case differ by). Measured with the request's body counted: the
 * 12 MP noise JPEG (9.9 MB) 61.7 MiB at quality 70 and 66.6 at 100, the 24 MP one (19.8 MB)
 * 94.0 and 111.0 (refused by its limit).
 */
export const WEBP_TOKENS = { perOutputByte: 19.5 };
export const WEBP_LOW_MEMORY = { perOutputByte: 2 };
export function webpOutputPerInputByte(quality: number): number {
  return 0.73 + Math.max(0, quality - 70) * 0.02;
}

/**
 * That ratio is what a JPEG written at a high quality makes; one written at a lower quality
 * than the WebP asked for makes more: its blocks' edges and ringing are detail the WebP keeps.
 * Measured at 1 MP on binary noise, Gaussian noise and a photo, JPEG qualities 10 to 95, the
 * largest WebP for each byte of the JPEG, by the JPEG's own quality (JpegFrame.quality) and the
 * WebP's (at 50 it is under the figure for 70):
 *
 *   JPEG quality   WebP 70   80     90     100
 *   90 and up      0.77      0.85   1.02   1.56 (the photo; noise 1.31)
 *   80 to 89       0.96      1.09   1.36   2.09
 *   70 to 79       1.17      1.34   1.68   2.57
 *   50 to 69       1.50      1.71   2.13   3.41
 *   10             3.7 to 8.3 times its size
 *
 * The token buffer is priced from the ratio above and enforced (the picture is coded again as
 * it goes past it). A file coded as it goes is priced for the densest picture when that fits,
 * else from this table, 5% added (`WEBP_FILE`; a lossy WebP or HEIC upload, whose quality the
 * header does not say, takes the 80 row; a JPEG under 50 only the densest picture), else what the
 * budget leaves (recode-route.ts), and a file past its price fails with image_too_large, refunded.
 */
const WEBP_FILE: readonly { fromQuality: number; perInputByte: readonly (readonly [quality: number, ratio: number])[] }[] = [
  { fromQuality: 90, perInputByte: [[70, 0.81], [80, 0.9], [90, 1.07], [100, 1.64]] },
  { fromQuality: 80, perInputByte: [[70, 1.0], [80, 1.15], [90, 1.43], [100, 2.2]] },
  { fromQuality: 70, perInputByte: [[70, 1.23], [80, 1.41], [90, 1.76], [100, 2.7]] },
  { fromQuality: 50, perInputByte: [[70, 1.58], [80, 1.8], [90, 2.24], [100, 3.58]] },
];
/** Most bytes of WebP at `quality` per byte of an upload written at `sourceQuality`, or null: no bound from its size. */
export function webpFilePerInputByte(quality: number, sourceQuality: number): number | null {
  const row = WEBP_FILE.find(({ fromQuality }) => sourceQuality >= fromQuality)?.perInputByte;
  return row ? atQuality(row, quality) : null;
}

/** A figure measured at a few WebP qualities, read at `quality` (linear between them, the nearest outside). */
export function atQuality(row: readonly (readonly [quality: number, figure: number])[], quality: number): number {
  const at = row.findIndex(([q]) => q >= quality);
  if (at === -1) return row[row.length - 1]![1];
  if (at === 0) return row[0]![1];
  const [[q0, f0], [q1, f1]] = [row[at - 1]!, row[at]!];
  return f0 + ((quality - q0) * (f1 - f0)) / (q1 - q0);
}

/** The row a lossy upload of unknown quality (a WebP, a HEIC) takes in WEBP_FILE. */
export const UNKNOWN_SOURCE_QUALITY = 80;

/**
 * A PNG or lossless WebP upload says nothing of the WebP it becomes: a noise tile repeated along
 * each row deflates to 0.26 MB at 12 MP and still codes as noise (15.1 MB of WebP at quality
 * 100). Their bound is the densest picture there is at that quality, whatever the upload: noise
 * whose every sample is 0 or 255 (the widest steps for the DCT) wrote 0.75 bytes of VP8 a pixel
 * at quality 70, 0.83 at 80, 0.99 at 90 and 1.27 at 100, at 4 and 12 MP alike (`vp8PerPixel`
 * covers those with 3 to 7% to spare; lower qualities write less). An alpha plane goes to our
 * own lossless alpha coder, outside the token buffer: at most its 8 bits a pixel and the coder's
 * headers (`alphaPerPixel`; random alpha measured 1.0). What each byte costs, measured on those
 * files with the request's body counted (memory child of `npm run bench:codecs`): with the
 * token buffer 24 (22.1 at most, libwebp's pages and WASM memory growing in steps), coded as it
 * goes WEBP_LOW_MEMORY's; the alpha chunk's bytes, which no token buffer or bitwriter holds, 1
 * (`alphaPerByte`: the alpha plane added 1.07 B/px at most to the same picture's peak, base
 * figure included). Peaks at 12 MP coded as it goes, since the token partition leaves WASM
 * memory as it grows: 50 to 70 MB (binary noise and its tiled upload, with and without alpha,
 * quality 70 to 100, PNG or lossless WebP); the closest to its estimate
 * is the 4 MP tiled PNG at quality 100, 29.6 MB against 30.9 (two runs: 28.5 and 29.6).
 * scripts/bench/webp-densest.ts prints each against its estimate.
 */
export const WEBP_DENSEST = { vp8PerPixelAt70: 0.8, vp8PerQualityStep: 0.0175, alphaPerPixel: 1.02, tokensPerByte: 24, alphaPerByte: 1 };
export function webpDensestPerPixel(quality: number, alpha: boolean): { vp8: number; alpha: number } {
  const vp8 = WEBP_DENSEST.vp8PerPixelAt70 + Math.max(0, quality - 70) * WEBP_DENSEST.vp8PerQualityStep;
  return { vp8, alpha: alpha ? WEBP_DENSEST.alphaPerPixel : 0 };
}

/**
 * The least file a WebP coded as it goes is let try with, when neither the densest picture's file
 * nor the one the upload's size suggests fits beside the rest of the call: a photo's at that
 * quality. A 12 MP phone photo (4032x3024, an 18.6 MB PNG) wrote 0.032 bytes a pixel at quality
 * 70, 0.053 at 80, 0.119 at 90 and 0.293 at 100 (a 24 MP grainy camera photo 0.41 at 80 and 0.82
 * at 100; a cut-out with alpha, 8 MP, 0.042 and 0.20); these are the phone photo's, half again.
 * Below it the call is refused before the charge: most photos would not fit.
 */
const WEBP_PHOTO_PER_PIXEL: readonly (readonly [quality: number, bytesPerPixel: number])[] = [
  [70, 0.05],
  [80, 0.08],
  [90, 0.18],
  [100, 0.44],
];
export function webpPhotoPerPixel(quality: number): number {
  return atQuality(WEBP_PHOTO_PER_PIXEL, quality);
}

/** Whether a PNG carries alpha (a colour type with alpha, or a tRNS chunk) or is interlaced. */
export function pngLayout(bytes: Uint8Array): { alpha: boolean; interlaced: boolean } {
  const colorType = bytes[25];
  let alpha = colorType === 4 || colorType === 6;
  for (let at = 8; at + 8 <= bytes.length && !alpha; ) {
    const length = ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    if (type === "IDAT") break;
    if (type === "tRNS") alpha = true;
    at += 12 + length;
  }
  return { alpha, interlaced: bytes[28] === 1 };
}

/**
 * PNG written by our own build (native/png_sink.c). Its WASM memory is small (rows, zlib, the
 * colour histogram: `wasm`); what grows is the file it writes. It leaves WASM memory in pieces
 * and stays so (file-pieces.ts): the answer's base64 is made from them a slice at a time
 * (src/http/json-answer.ts) and the R2 upload takes them as they are. `copies`: the worst run
 * measured (1.44 at 12 MP from a lossy WebP) with room for run-to-run differences (3 MB between two runs
 * of one case: garbage not yet collected). The header cannot tell how big the file will be; the upload's own
 * density can: a lossless PNG of a JPEG measured 4.1 (noise) to 5.0 (photo) times the JPEG's
 * size, a palette file 1.3 to 1.5 times; a PNG re-encoded comes out near its own size. Capped by
 * what the layout can take at most (RGB, RGBA, 8-bit indices, plus deflate's overhead).
 */
const NATIVE_PNG = {
  lossless: {
    file: { jpeg: { perInputByte: 5.5, most: 3.1 }, png: { perInputByte: 1.2, most: 4.1 } },
    copies: 2,
    // A progressive JPEG's decoder holds its whole coefficient array, packed (coef_store.c), in
    // every pass; turned or flipped, in every band of every pass too: `progressivePerInputByte`
    // more for each byte of the upload (22 MB upright, 30 turned, for a 4 MB 24 MP file).
    wasm: { jpeg: 0.4, jpegProgressive: 0.5, jpegProgressiveBanded: 0.8, png: 0.2, progressivePerInputByte: 2.6 },
  },
  // The lossless candidate is kept too, at most the palette file's size: one copy more.
  palette: {
    file: { jpeg: { perInputByte: 2, most: 1.05 }, png: { perInputByte: 0.5, most: 1.05 } },
    copies: 2.3,
    wasm: { jpeg: 0.7, jpegProgressive: 0.5, jpegProgressiveBanded: 0.8, png: 1.0, progressivePerInputByte: 4.2 },
  },
} as const;

/** A file turned or flipped by its EXIF orientation is decoded in bands of up to 8 MB (0.7 B/px at 12 MP). */
const BAND_BYTES_PER_PIXEL = 0.7;

/** What a row source holds in WASM (`wasm`: one of the tables above), plus a band for a JPEG turned or flipped. */
function rowSourceBytesPerPixel(wasm: (typeof NATIVE_PNG)["lossless" | "palette"]["wasm"], input: "jpeg" | "png", banded: boolean, progressive: boolean, bytes: Uint8Array, pixels: number): number {
  const packed = progressive ? (wasm.progressivePerInputByte * bytes.length) / Math.max(1, pixels) : 0;
  return wasm[progressive ? (banded ? "jpegProgressiveBanded" : "jpegProgressive") : input] + packed + (banded && !progressive ? BAND_BYTES_PER_PIXEL : 0);
}

/** A written file's bytes per pixel, from the upload's density, capped by what the layout takes at most (and at least `least`). */
function filePerPixel(file: { perInputByte: number; most: number; least?: number }, bytes: Uint8Array, pixels: number): number {
  return Math.min(file.most, Math.max(file.least ?? 0, (file.perInputByte * bytes.length) / Math.max(1, pixels)));
}

/**
 * Bytes per pixel of writing `input` as PNG natively at `quality` (100: lossless); `banded`: a
 * JPEG turned or flipped by its EXIF orientation, `progressive`: a progressive JPEG.
 */
export function pngBytesPerPixel(bytes: Uint8Array, input: "jpeg" | "png", pixels: number, quality: number, banded: boolean, progressive: boolean): number {
  const kind = quality >= 100 ? NATIVE_PNG.lossless : NATIVE_PNG.palette;
  return rowSourceBytesPerPixel(kind.wasm, input, banded, progressive, bytes, pixels) + kind.copies * filePerPixel(kind.file[input], bytes, pixels);
}

/**
 * GIF and BMP written by our own build from a JPEG's or PNG's rows (native/gif_sink.c,
 * bmp_sink.c). The WASM memory is the row source's, as for the PNG writer's lossless pass
 * (`wasm`, plus a band for a turned JPEG). A GIF's file grows, held by the request in
 * `copies`: its pieces, never joined (1.06 the worst run measured, noise at 12 MP; a small
 * GIF's runs differ by 3 MB, hence the room); the answer's base64 is written a slice
 * at a time (src/http/json-answer.ts). A GIF's LZW data follows the picture, not the upload:
 * 0.39 to 0.43 bytes a pixel for photos (2.2 times a photo JPEG's size, 1.4 times a dense
 * one's, 0.16 times a PNG photo's), 1.25 for noise, at most 12 bits a pixel (`most`, with the
 * sub-block lengths). A dense upload raises the estimate; `least` is the photo figure with room
 * to spare, so a small upload of a busy picture is not priced as nearly free.
 */
const NATIVE_GIF = {
  file: {
    jpeg: { perInputByte: 2.2, least: 0.5, most: 1.55 },
    png: { perInputByte: 0.6, least: 0.5, most: 1.55 },
    webp: { perInputByte: 8, least: 0.5, most: 1.55 },
    webpLossless: { perInputByte: 0.6, least: 0.5, most: 1.55 },
    // A HEIC photo's GIF: 2.86 times its size (4.97 MB from 1.74 MB at 12 MP, quality 50).
    heic: { perInputByte: 3, least: 0.5, most: 1.55 },
  },
  copies: 1.8,
};

/**
 * A BMP (3 bytes a pixel: 69 MB at 24 MP) is never whole (native.ts streamBmp): its rows come
 * bottom band first, each band of up to 8 MB decoding the file again (a progressive one's
 * coefficients are kept), so its row source is always banded, and in place of a file the
 * request holds what writing the answer leaves: its 192 KB pieces, their base64 slices and the
 * slices' bytes, made as the client reads and dying young, which a busy collector lets pile up.
 * Measured (memory child, the upload counted), in all: a 12 MP JPEG (2.2 MB) 34.9 to 41.8 MiB, a
 * 24 MP camera JPEG (4.3 MB) 41.2 to 41.7, a 24 MP progressive one (4.1 MB) 53.3. Of the 24 MP baseline
 * case, 12.6 MiB were WASM: the rest, 19.1 MiB of JS buffers and 9.6 of heap, is this cost, with
 * room for run-to-run differences. A small BMP's answer holds less than that: at most its file
 * three and a half times over (a 1 MP JPEG measured 17.5 MiB in all, its BMP 2.9 MiB).
 */
export const STREAMED_BMP_ANSWER = { most: 24 * 1024 * 1024, perFileByte: 3.5 };

/** The GIF file and its copies, a pixel, from the upload's density; for a BMP, what its streamed answer holds instead. */
function rowWriterFilePerPixel(target: "gif" | "bmp", kind: keyof typeof NATIVE_GIF.file, bytes: Uint8Array, pixels: number): number {
  if (target === "bmp") return Math.min(STREAMED_BMP_ANSWER.most / Math.max(1, pixels), STREAMED_BMP_ANSWER.perFileByte * 3);
  return NATIVE_GIF.copies * filePerPixel(NATIVE_GIF.file[kind], bytes, pixels);
}

/**
 * Bytes per pixel of writing `input` as GIF or BMP natively (`banded`: turned or flipped by its
 * EXIF orientation, and a BMP always; `progressive`: a progressive JPEG). A WebP's row source holds what it does
 * for the PNG writer's lossless pass (NATIVE_PNG_FROM).
 */
export function rowWriterBytesPerPixel(
  bytes: Uint8Array,
  input: "jpeg" | "png" | WebpLayout,
  target: "gif" | "bmp",
  pixels: number,
  banded: boolean,
  progressive: boolean,
): number {
  const webp = typeof input === "object" ? input : null;
  const kind = webp ? (webp.lossless ? "webpLossless" : "webp") : (input as "jpeg" | "png");
  const file = rowWriterFilePerPixel(target, kind, bytes, pixels);
  return rowSourceWasmBytesPerPixel(bytes, input, pixels, banded || target === "bmp", progressive) + file;
}

/**
 * The WASM memory of a JPEG's, PNG's or WebP's row source (native/png_rows.c, as the PNG
 * writer's lossless pass and the GIF and BMP writers read it), a pixel; `banded`: turned or
 * flipped (or read bottom-up), a band of up to 8 MB held.
 */
export function rowSourceWasmBytesPerPixel(bytes: Uint8Array, input: "jpeg" | "png" | WebpLayout, pixels: number, banded: boolean, progressive: boolean): number {
  if (typeof input === "object") return NATIVE_PNG_FROM.lossless.wasm[input.lossless ? "webpLossless" : input.alpha ? "webpAlpha" : "webp"] + (banded ? BAND_BYTES_PER_PIXEL : 0);
  return rowSourceBytesPerPixel(NATIVE_PNG.lossless.wasm, input, banded, progressive, bytes, pixels);
}

/**
 * A JPEG file to WebP, JPEG or TIFF (a baseline JPEG strip, Huffman tables optimised over the
 * whole image too). The whole-image coefficient arrays, a progressive file's decoder's and the
 * JPEG encoder's, are kept packed (native/coef_store.c): what they take follows how many nonzero
 * coefficients there are, which the upload's size tells, so those paths cost `perInputByte` for
 * each byte of the upload on top of `perPixel`. Measured at 12 and 24 MP from a smooth scene
 * (0.17 bytes of JPEG a pixel) to noise at quality 95 (0.76), the request's body counted; the
 * progressive figures hold 2 MB more than the highest 12 MP run (runs differ by that much).
 * WebP: the file is decoded into the encoder's YUV picture and the decoder is gone before
 * libwebp's peak, progressive or not.
 */
const NATIVE_JPEG = {
  baseline: { webp: { perPixel: 2.7, perInputByte: 0 }, jpeg: { perPixel: 0.3, perInputByte: 1.5 }, tiff: { perPixel: 0.3, perInputByte: 4.3 } },
  progressive: { webp: { perPixel: 2.7, perInputByte: 0 }, jpeg: { perPixel: 0.5, perInputByte: 4.1 }, tiff: { perPixel: 0.7, perInputByte: 5.4 } },
} as const;

/** The least a pixel costs among these rows of NATIVE_BYTES_PER_PIXEL, to any target. */
function cheapestOf(...rows: (keyof typeof NATIVE_BYTES_PER_PIXEL)[]): number {
  return Math.min(...rows.flatMap((row) => Object.values(NATIVE_BYTES_PER_PIXEL[row])));
}

/**
 * What the cheapest way a format is read costs a pixel: the limit for reading it at all
 * (limits.ts maxPixelsFor). A JPEG's to WebP, whatever its content; a HEIC's through libheif,
 * since not every HEIC is one our decoder reads.
 */
export const CHEAPEST_READ_BYTES_PER_PIXEL = {
  jpeg: NATIVE_JPEG.baseline.webp.perPixel,
  png: cheapestOf("pngOpaque", "pngAlpha"),
  webp: cheapestOf("webpLossy", "webpLossless", "webpAlpha", "webpLosslessAlpha"),
  heic: cheapestOf("heic", "heicAlpha"),
} as const;

/**
 * A baseline JPEG to WebP coded as it goes (WEBP_LOW_MEMORY), the file priced apart: the YUV
 * picture (1.5 B/px) and libwebp's per-macroblock state, the decoder's scanlines gone. Measured,
 * the upload and the file's price taken off: at most 1.41 B/px (the 12 MP noise JPEG at quality
 * 80, 62.7 MiB in all, its file priced from the upload; turned 63.3), 1.2 for the 24 MP camera
 * photo at 70 and 80, upright or turned (51.6 and 53.5 MiB), 0.7 for a 24 MP 11.8 MB one at 80
 * (68.7) and for the 24 MP noise JPEG (96.6). With the token buffer the 2.7 above holds (the
 * 12 MP phone photo at quality 100: 95.5 MiB against 99.5), and a progressive file's
 * coefficients are still in WASM memory when libwebp peaks (its 24 MP photo needs 2.4 at
 * quality 100, 81.7 MiB), so it keeps 2.7 either way.
 */
const BASELINE_JPEG_TO_WEBP_CODED_AS_IT_GOES = 1.7;

/** A turned or flipped JPEG goes to the JPEG encoder through oriented YUV 4:2:0 planes. */
const ORIENTED_PLANES_BYTES_PER_PIXEL = 1.5;

/** A JPEG file of `inputBytes` and `pixels` to `to`; `turned`: an EXIF orientation other than 1. */
export function jpegBytesPerPixel(progressive: boolean, to: NativeEncoderTarget | "tiff", turned: boolean, inputBytes: number, pixels: number): number {
  const cost = NATIVE_JPEG[progressive ? "progressive" : "baseline"][to];
  const planes = turned && to !== "webp" ? ORIENTED_PLANES_BYTES_PER_PIXEL : 0;
  return cost.perPixel + planes + (cost.perInputByte * inputBytes) / Math.max(1, pixels);
}

/** A JPEG file to WebP when the encoder codes as it goes, the file it writes priced apart. */
export function jpegToLowMemoryWebpBytesPerPixel(progressive: boolean): number {
  return progressive ? NATIVE_JPEG.progressive.webp.perPixel : BASELINE_JPEG_TO_WEBP_CODED_AS_IT_GOES;
}

/** A non-interlaced PNG file to WebP or JPEG, decoded a row at a time. */
export function pngToEncoderBytesPerPixel(alpha: boolean, to: NativeEncoderTarget): number {
  return NATIVE_BYTES_PER_PIXEL[alpha ? "pngAlpha" : "pngOpaque"][to];
}

/** A still WebP file to WebP or JPEG. */
export function webpBytesPerPixel({ lossless, alpha }: WebpLayout, to: NativeEncoderTarget): number {
  return NATIVE_BYTES_PER_PIXEL[lossless ? (alpha ? "webpLosslessAlpha" : "webpLossless") : alpha ? "webpAlpha" : "webpLossy"][to];
}

/** A HEIC's YCbCr planes to WebP or JPEG: through our HEVC decoder (a grid or a single image) or libheif (null). */
export function heicBytesPerPixel(alpha: boolean, to: NativeEncoderTarget, tiles: "grid" | "single" | null = null): number {
  if (tiles === "grid") return NATIVE_BYTES_PER_PIXEL[alpha ? "heicGridAlpha" : "heicGrid"][to];
  if (tiles === "single") return NATIVE_BYTES_PER_PIXEL[alpha ? "heicSingleAlpha" : "heicSingle"][to];
  return NATIVE_BYTES_PER_PIXEL[alpha ? "heicAlpha" : "heic"][to];
}

/**
 * WebP and HEIC written as PNG (native/png_webp_rows.c, png_planes_rows.c), the same model as
 * NATIVE_PNG: the WASM side plus the file the request holds `copies` of, predicted from the
 * upload's density (measured 4 and 12 MP, memory child of `npm run bench:codecs`): a lossless
 * PNG came out 14 to 16 times a lossy WebP, 1.35 times a lossless one, 6 times a HEIC; a
 * palette file 3.4, 0.27 and 1.9 times. WASM: a lossy WebP is decoded a macroblock row at a time
 * (0.3 B/px at 12 MP), its ALPH plane and a lossless file by our own decoder a row at a time
 * (native/vp8l.h: a window of up to 4 MB of recent pixels). Measured WASM at 4, 8 and 12 MP: with alpha 7.0,
 * 7.4 and 7.9 MiB lossless (priced 0.9: at 0.5 a 12 MP request came within 0.2 MiB of its estimate), 15.2 and 16.0 (4, 12) palette (17.5 MiB in all at 4 MP: priced 1.0,
 * the histogram and the window being most of it at that size); a lossless file (read from
 * JavaScript in pieces) 5.8 to 5.9 MiB at 4, 8 and 12 MP lossless, 7.2 and 9.8 palette.
 * Below quality 100 the colour histogram adds up to 10 MB. A HEIC's planes (1.5 B/px, 2.5 with
 * alpha) stay in JavaScript while the PNG is written.
 */
const NATIVE_PNG_FROM = {
  lossless: {
    file: { webp: { perInputByte: 16, most: 3.1 }, webpLossless: { perInputByte: 1.5, most: 4.1 }, heic: { perInputByte: 8, most: 3.1 } },
    wasm: { webp: 0.4, webpAlpha: 0.9, webpLossless: 0.5, heic: 0.3 },
  },
  palette: {
    file: { webp: { perInputByte: 4, most: 1.05 }, webpLossless: { perInputByte: 0.5, most: 1.05 }, heic: { perInputByte: 2.5, most: 1.05 } },
    wasm: { webp: 0.6, webpAlpha: 1.0, webpLossless: 0.8, heic: 0.6 },
  },
} as const;

/**
 * A HEIC's planes from our HEVC decoder (heic-tiles.ts heicPlanesFromTiles) written as GIF or
 * BMP (native/png_planes_rows.c into gif_sink.c, bmp_sink.c): as to PNG, the decode, then the
 * writer beside the planes, with the row writers' files. Measured at 12 MP (4000x3000, no alpha,
 * 1.7 MB), upload included: a grid to GIF 39.9 MB, a single image to GIF 49.6 (libde265's
 * picture while the planes are copied out). A BMP is streamed from the planes, which stay while
 * the answer is read, in bands.
 */
export function heicToRowWriterBytesPerPixel(bytes: Uint8Array, alpha: boolean, target: "gif" | "bmp", pixels: number, tiles: "grid" | "single", turned = false): number {
  const planes = alpha ? 2.5 : 1.5;
  const file = rowWriterFilePerPixel(target, "heic", bytes, pixels) + (target === "bmp" ? BAND_BYTES_PER_PIXEL : 0);
  return Math.max(heicPlanesDecodeBytesPerPixel(alpha, tiles, turned), planes + NATIVE_PNG_FROM.lossless.wasm.heic + file);
}

/**
 * Making a HEIC's whole planes for a row writer (heic-tiles.ts heicPlanesFromTiles): a grid
 * costs nothing beyond the planes (a row of tiles at a time); a single image its decode. Turned
 * by irot, 8-bit samples are turned as they leave the decoder (12 MP to GIF: 49.3 MB, as
 * upright); deeper ones are copied out, then turned into a second copy, which the header does
 * not tell apart: 1.5 B/px more for any turned single image (copying both out, 8-bit, measured
 * 67.7 MB to GIF).
 */
function heicPlanesDecodeBytesPerPixel(alpha: boolean, tiles: "grid" | "single" | null, turned: boolean): number {
  if (tiles === "grid") return 0;
  return heicBytesPerPixel(alpha, "jpeg", tiles) + (tiles === "single" && turned ? 1.5 : 0);
}

/**
 * A HEIC's whole planes made (heicPlanesDecodeBytesPerPixel), then read a row at a time beside
 * them (png_planes_rows.c, as for the PNG writer): a resize's reading (resize.ts).
 */
export function heicPlanesReadBytesPerPixel(alpha: boolean, tiles: "grid" | "single" | null, turned: boolean): number {
  return Math.max(heicPlanesDecodeBytesPerPixel(alpha, tiles, turned), (alpha ? 2.5 : 1.5) + NATIVE_PNG_FROM.lossless.wasm.heic);
}

/** `wasm` plus `copies` of the file predicted from the upload's density, within `most` bytes a pixel. */
function pngWithFile(wasm: number, copies: number, file: { perInputByte: number; most: number }, bytes: Uint8Array, pixels: number): number {
  return wasm + copies * filePerPixel(file, bytes, pixels);
}

/** A still WebP file written as PNG at `quality` (100: lossless); `banded`: turned or flipped by its EXIF orientation. */
export function webpToPngBytesPerPixel(bytes: Uint8Array, { lossless, alpha }: WebpLayout, pixels: number, quality: number, banded = false): number {
  const copies = (quality >= 100 ? NATIVE_PNG.lossless : NATIVE_PNG.palette).copies;
  const kind = quality >= 100 ? NATIVE_PNG_FROM.lossless : NATIVE_PNG_FROM.palette;
  const file = kind.file[lossless ? "webpLossless" : "webp"];
  const most = alpha && quality >= 100 ? NATIVE_PNG.lossless.file.png.most : file.most; // RGBA rows
  const wasm = kind.wasm[lossless ? "webpLossless" : alpha ? "webpAlpha" : "webp"] + (banded ? BAND_BYTES_PER_PIXEL : 0);
  return pngWithFile(wasm, copies, { ...file, most }, bytes, pixels);
}

/**
 * A HEIC's planes written as PNG: the decode first, then the writer beside the planes, whichever
 * is larger. A grid from our HEVC decoder makes the planes a row of tiles at a time (the planes
 * are its peak); a single image holds libde265's picture while they are copied out, libheif its
 * instance (the HEIC to JPEG figures; 81.1 MB at 12 MP).
 */
export function heicToPngBytesPerPixel(bytes: Uint8Array, alpha: boolean, pixels: number, quality: number, tiles: "grid" | "single" | null = null, turned = false): number {
  const copies = (quality >= 100 ? NATIVE_PNG.lossless : NATIVE_PNG.palette).copies;
  const kind = quality >= 100 ? NATIVE_PNG_FROM.lossless : NATIVE_PNG_FROM.palette;
  const planes = alpha ? 2.5 : 1.5;
  const file = alpha && quality >= 100 ? { ...kind.file.heic, most: NATIVE_PNG.lossless.file.png.most } : kind.file.heic;
  const decode = heicPlanesDecodeBytesPerPixel(alpha, tiles, turned);
  return Math.max(decode, planes + pngWithFile(kind.wasm.heic, copies, file, bytes, pixels));
}
