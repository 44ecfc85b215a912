// The raster formats Pixelgate reads and writes, each described once: MIME type, file
// extension, the upper-case name results show, and how to recognise it from magic bytes.

/** The formats read and written. */
export const IMAGE_FORMATS = ["png", "jpeg", "webp", "avif", "gif", "bmp", "tiff"] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
/** Every format read: the written ones plus HEIC, which is only ever an input. */
export const INPUT_FORMATS = [...IMAGE_FORMATS, "heic"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface FormatInfo {
  mime: string;
  ext: string;
  label: string;
}

export const FORMAT_INFO: Record<InputFormat, FormatInfo> = {
  png: { mime: "image/png", ext: "png", label: "PNG" },
  jpeg: { mime: "image/jpeg", ext: "jpg", label: "JPEG" },
  webp: { mime: "image/webp", ext: "webp", label: "WEBP" },
  avif: { mime: "image/avif", ext: "avif", label: "AVIF" },
  gif: { mime: "image/gif", ext: "gif", label: "GIF" },
  bmp: { mime: "image/bmp", ext: "bmp", label: "BMP" },
  tiff: { mime: "image/tiff", ext: "tiff", label: "TIFF" },
  heic: { mime: "image/heic", ext: "heic", label: "HEIC" },
};

/** A decoded image: 8-bit RGBA, row-major, no padding. */
export interface RasterImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/**
 * An image made a band of rows at a time (the local upscaler): RGBA rows top to bottom, each
 * band made when asked for, so the whole raster need never exist (native.ts pngPieces writes it).
 */
export interface RasterRows {
  width: number;
  height: number;
  /** Whether any pixel may be translucent (else the file is written without alpha). */
  alpha: boolean;
  /** Bands of whole rows; read once. */
  bands: IterableIterator<Uint8ClampedArray>;
}

/** What the header says, read before any pixel is decoded. */
export interface ImageHeader {
  format: InputFormat;
  width: number;
  height: number;
}
