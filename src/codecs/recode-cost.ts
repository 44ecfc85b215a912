import type { WebpLayout } from "./webp.ts";

// What one compress or convert costs per pixel on each native path (recode-route.ts decides
// which runs). Our own WASM build (native.ts) takes JPEG, PNG, still WebP and HEIC (libheif's
// YCbCr planes) to WebP or JPEG, and JPEG and PNG to PNG, without an RGBA raster; the figures
// are its measured peaks (memory child of `npm run bench:codecs`, docs/codecs.md), the upload
// counted separately (limits.ts). The general path's figures are in limits.ts.

/** What the WebP and JPEG encoders cost (a TIFF's strip is a baseline JPEG from the same encoder). */
export type NativeEncoderTarget = "webp" | "jpeg";

/** Peak WASM bytes per pixel of the native paths, as measured (slopes between 4, 12 and 24 MP). */
const NATIVE_BYTES_PER_PIXEL = {
  pngOpaque: { webp: 2.4, jpeg: 3.1 },
  // libwebp's lossless alpha coder needs ~22 B/px (289 MB for a 12 MP PNG with alpha). To
  // JPEG the alpha is flattened row by row: 13.2 MB of WASM at 4 MP, 26.1 at 8 MP.
  pngAlpha: { webp: 24, jpeg: 3.3 },
  // Still WebP, lossy: decoded into the WebP encoder's YUV planes, or streamed as rows into
  // the JPEG encoder (its coefficients, 3 B/px, are then the picture's only whole copy).
  webpLossy: { webp: 2.5, jpeg: 3.6 },
  // VP8L goes through a whole ARGB image inside libwebp (4 B/px) before the planes are written.
  webpLossless: { webp: 5.7, jpeg: 5.9 },
  // The ALPH plane is held whole inside libwebp, twice, plus 4 B/px when its stream uses more
  // than a palette; a WebP target then pays for libwebp's lossless alpha coder, as PNG with
  // alpha does.
  webpAlpha: { webp: 22.4, jpeg: 10.3 },
  webpLosslessAlpha: { webp: 22.4, jpeg: 6.6 },
  // libheif's instance (~4.7 B/px at its peak, 6.4 with an alpha plane) and the planes copied
  // out of it; the encoder comes after libheif is gone and needs less.
  heic: { webp: 6.2, jpeg: 6.2 },
  heicAlpha: { webp: 25.5, jpeg: 8.7 },
} as const;

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
 * colour histogram: `wasm`); what grows is the file it writes, which the request then holds
 * more than once (its pieces and the joined file, the answer's base64 and JSON: `copies`, from
 * the worst run measured). The header cannot tell how big the file will be; the upload's own
 * density can: a lossless PNG of a JPEG measured 4.1 (noise) to 5.0 (photo) times the JPEG's
 * size, a palette file 1.3 to 1.5 times; a PNG re-encoded comes out near its own size. Capped by
 * what the layout can take at most (RGB, RGBA, 8-bit indices, plus deflate's overhead).
 */
const NATIVE_PNG = {
  lossless: {
    file: { jpeg: { perInputByte: 5.5, most: 3.1 }, png: { perInputByte: 1.2, most: 4.1 } },
    copies: 4.7,
    // A progressive JPEG's decoder holds its whole coefficient array, packed (coef_store.c), in
    // every pass; turned or flipped, in every band of every pass too: `progressivePerInputByte`
    // more for each byte of the upload (22 MB upright, 30 turned, for a 4 MB 24 MP file).
    wasm: { jpeg: 0.4, jpegProgressive: 0.5, jpegProgressiveBanded: 0.8, png: 0.2 },
    progressivePerInputByte: 2.6,
  },
  // The lossless candidate is kept too, at most the palette file's size: one copy more.
  palette: {
    file: { jpeg: { perInputByte: 2, most: 1.05 }, png: { perInputByte: 0.5, most: 1.05 } },
    copies: 5.7,
    wasm: { jpeg: 0.7, jpegProgressive: 0.5, jpegProgressiveBanded: 0.8, png: 1.0 },
    progressivePerInputByte: 4.2,
  },
} as const;

/** A JPEG turned or flipped by its EXIF orientation is decoded in bands of up to 8 MB (0.7 B/px at 12 MP). */
const BAND_BYTES_PER_PIXEL = 0.7;

/**
 * Bytes per pixel of writing `input` as PNG natively at `quality` (100: lossless); `banded`: a
 * JPEG turned or flipped by its EXIF orientation, `progressive`: a progressive JPEG.
 */
export function pngBytesPerPixel(bytes: Uint8Array, input: "jpeg" | "png", pixels: number, quality: number, banded: boolean, progressive: boolean): number {
  const kind = quality >= 100 ? NATIVE_PNG.lossless : NATIVE_PNG.palette;
  const wasm =
    kind.wasm[progressive ? (banded ? "jpegProgressiveBanded" : "jpegProgressive") : input] +
    (progressive ? (kind.progressivePerInputByte * bytes.length) / Math.max(1, pixels) : 0);
  const file = kind.file[input];
  const filePerPixel = Math.min(file.most, (file.perInputByte * bytes.length) / Math.max(1, pixels));
  return wasm + (banded && !progressive ? BAND_BYTES_PER_PIXEL : 0) + kind.copies * filePerPixel;
}

/**
 * A JPEG file to WebP, JPEG or TIFF (a baseline JPEG strip, Huffman tables optimised over the
 * whole image too). The whole-image coefficient arrays, a progressive file's decoder's and the
 * JPEG encoder's, are kept packed (native/coef_store.c): what they take follows how many nonzero
 * coefficients there are, which the upload's size tells, so those paths cost `perInputByte` for
 * each byte of the upload on top of `perPixel`. Measured at 12 and 24 MP from a smooth scene
 * (0.17 bytes of JPEG a pixel) to noise at quality 95 (0.76), the request's body counted; the
 * progressive figures hold 2 MB more than the highest 12 MP run (runs differ by that much).
 * Before the store, 3.3 (baseline) and 4.7 (progressive) bytes a pixel whatever the content.
 * WebP: the file is decoded into the encoder's YUV picture and the decoder is gone before
 * libwebp's peak, progressive or not.
 */
const NATIVE_JPEG = {
  baseline: { webp: { perPixel: 2.7, perInputByte: 0 }, jpeg: { perPixel: 0.3, perInputByte: 1.5 }, tiff: { perPixel: 0.3, perInputByte: 4.3 } },
  progressive: { webp: { perPixel: 2.7, perInputByte: 0 }, jpeg: { perPixel: 0.5, perInputByte: 4.1 }, tiff: { perPixel: 0.7, perInputByte: 5.4 } },
} as const;

/** A turned or flipped JPEG goes to the JPEG encoder through oriented YUV 4:2:0 planes. */
const ORIENTED_PLANES_BYTES_PER_PIXEL = 1.5;

/** A JPEG file of `inputBytes` and `pixels` to `to`; `turned`: an EXIF orientation other than 1. */
export function jpegBytesPerPixel(progressive: boolean, to: NativeEncoderTarget | "tiff", turned: boolean, inputBytes: number, pixels: number): number {
  const cost = NATIVE_JPEG[progressive ? "progressive" : "baseline"][to];
  const planes = turned && to !== "webp" ? ORIENTED_PLANES_BYTES_PER_PIXEL : 0;
  return cost.perPixel + planes + (cost.perInputByte * inputBytes) / Math.max(1, pixels);
}

/** A non-interlaced PNG file to WebP or JPEG, decoded a row at a time. */
export function pngToEncoderBytesPerPixel(alpha: boolean, to: NativeEncoderTarget): number {
  return NATIVE_BYTES_PER_PIXEL[alpha ? "pngAlpha" : "pngOpaque"][to];
}

/** A still WebP file to WebP or JPEG. */
export function webpBytesPerPixel({ lossless, alpha }: WebpLayout, to: NativeEncoderTarget): number {
  return NATIVE_BYTES_PER_PIXEL[lossless ? (alpha ? "webpLosslessAlpha" : "webpLossless") : alpha ? "webpAlpha" : "webpLossy"][to];
}

/** A HEIC's YCbCr planes to WebP or JPEG. */
export function heicBytesPerPixel(alpha: boolean, to: NativeEncoderTarget): number {
  return NATIVE_BYTES_PER_PIXEL[alpha ? "heicAlpha" : "heic"][to];
}
