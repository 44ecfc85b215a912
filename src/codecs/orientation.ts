// EXIF orientation. Cameras store the sensor's pixels as shot and record how to turn them in
// the Orientation tag (0x0112). Output never carries EXIF (the spec strips it), so the turn has
// to be applied to the pixels before the metadata is dropped, or portrait photos come out
// sideways.
//
// readOrientation looks in the places a decoder would: the JPEG APP1 "Exif" segment, the TIFF
// first IFD, the WebP "EXIF" chunk and the PNG "eXIf" chunk. Malformed metadata never fails an
// image: it reads as 1 (as stored), the same as no tag.

import { ByteReader, hasAscii } from "./bytes.ts";
import type { InputFormat, RasterImage } from "./formats.ts";
import { pixelWords } from "./raster.ts";

/** EXIF orientation: 1 = as stored, 2-8 = the flips and quarter turns of the EXIF table. */
export type Orientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

const ORIENTATION_TAG = 0x0112;

/**
 * The EXIF orientation of the image in `bytes` (1 when absent, unreadable or out of range).
 * Reads metadata only; never decodes pixels.
 */
export function readOrientation(bytes: Uint8Array, format: InputFormat): Orientation {
  try {
    switch (format) {
      case "jpeg":
        return orientationFromTiff(findJpegExif(bytes));
      case "tiff":
        return orientationFromTiff(bytes);
      case "webp":
        return orientationFromTiff(findRiffChunk(bytes, "EXIF"));
      case "png":
        return orientationFromTiff(findPngChunk(bytes, "eXIf"));
      default:
        return 1;
    }
  } catch {
    return 1;
  }
}

/** Reads tag 0x0112 from IFD0 of a TIFF structure (a TIFF file or an EXIF payload). */
export function orientationFromTiff(tiff: Uint8Array | null): Orientation {
  if (!tiff || tiff.length < 8) return 1;
  const r = new ByteReader(tiff, false, "EXIF block");
  if (hasAscii(tiff, 0, "II")) r.littleEndian = true;
  else if (!hasAscii(tiff, 0, "MM")) return 1;
  if (r.u16(2) !== 42) return 1;
  const ifd = r.u32(4);
  const count = r.u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (r.u16(entry) !== ORIENTATION_TAG) continue;
    // SHORT (type 3) as the standard says; a few writers use LONG (type 4). Either way the
    // single value sits at the start of the entry's value field.
    const type = r.u16(entry + 2);
    const value = type === 3 ? r.u16(entry + 8) : type === 4 ? r.u32(entry + 8) : 1;
    return value >= 1 && value <= 8 ? (value as Orientation) : 1;
  }
  return 1;
}

/** The TIFF structure inside the first APP1 "Exif\0\0" segment before the image data. */
function findJpegExif(bytes: Uint8Array): Uint8Array | null {
  const r = new ByteReader(bytes);
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (r.u8(offset) !== 0xff) return null;
    const marker = r.u8(offset + 1);
    if (marker === 0xff) {
      offset++; // fill byte
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null; // scan data: metadata comes before it
    const length = r.u16(offset + 2);
    if (marker === 0xe1 && hasAscii(bytes, offset + 4, "Exif\0\0")) {
      return r.slice(offset + 10, length - 8);
    }
    offset += 2 + length;
  }
  return null;
}

function findRiffChunk(bytes: Uint8Array, fourcc: string): Uint8Array | null {
  const r = new ByteReader(bytes, true);
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const size = r.u32(offset + 4);
    if (hasAscii(bytes, offset, fourcc)) {
      const payload = r.slice(offset + 8, Math.min(size, bytes.length - offset - 8));
      // Some writers keep the JPEG-style "Exif\0\0" prefix inside the chunk.
      return hasAscii(payload, 0, "Exif\0\0") ? payload.subarray(6) : payload;
    }
    offset += 8 + size + (size & 1);
  }
  return null;
}

function findPngChunk(bytes: Uint8Array, type: string): Uint8Array | null {
  const r = new ByteReader(bytes);
  let offset = 8;
  while (offset + 8 <= bytes.length) {
    const length = r.u32(offset);
    if (hasAscii(bytes, offset + 4, type)) return r.slice(offset + 8, length);
    if (hasAscii(bytes, offset + 4, "IDAT")) return null; // eXIf must precede the image data
    offset += 12 + length;
  }
  return null;
}

/**
 * The image as it is meant to be seen: `orientation` applied to the stored pixels. 1 returns
 * the same image; 2-4 reuse its buffer (flips in place); 5-8 swap width and height and need a
 * new buffer, after which the input buffer is garbage.
 */
export function applyOrientation(image: RasterImage, orientation: Orientation): RasterImage {
  if (orientation === 1) return image;
  const { width: w, height: h } = image;
  const src = pixelWords(image.data);
  if (orientation <= 4) {
    if (orientation === 2 || orientation === 3) {
      for (let y = 0; y < h; y++) src.subarray(y * w, y * w + w).reverse();
    }
    if (orientation === 3 || orientation === 4) {
      const row = new Uint32Array(w);
      for (let top = 0, bottom = h - 1; top < bottom; top++, bottom--) {
        row.set(src.subarray(top * w, top * w + w));
        src.copyWithin(top * w, bottom * w, bottom * w + w);
        src.set(row, bottom * w);
      }
    }
    return { width: w, height: h, data: new Uint8ClampedArray(src.buffer, src.byteOffset, w * h * 4) };
  }
  // Quarter turns: the output is h wide and w tall. For each stored pixel (x, y) the EXIF table
  // gives where it lands (orientedPoint's table, inline here for speed): 5 transpose, 6 rotate
  // 90 clockwise, 7 transverse, 8 rotate 90 counter.
  const out = new Uint32Array(w * h);
  const ow = h;
  for (let y = 0; y < h; y++) {
    const rowStart = y * w;
    for (let x = 0; x < w; x++) {
      let ox: number, oy: number;
      switch (orientation) {
        case 5: ox = y; oy = x; break;
        case 6: ox = h - 1 - y; oy = x; break;
        case 7: ox = h - 1 - y; oy = w - 1 - x; break;
        default: ox = y; oy = w - 1 - x; break;
      }
      out[oy * ow + ox] = src[rowStart + x]!;
    }
  }
  return { width: h, height: w, data: new Uint8ClampedArray(out.buffer) };
}

/** Where stored pixel (x, y) of a `w` x `h` picture lands once `orientation` is applied (as applyOrientation places it). */
export function orientedPoint(x: number, y: number, w: number, h: number, orientation: Orientation): [number, number] {
  switch (orientation) {
    case 1: return [x, y];
    case 2: return [w - 1 - x, y];
    case 3: return [w - 1 - x, h - 1 - y];
    case 4: return [x, h - 1 - y];
    case 5: return [y, x];
    case 6: return [h - 1 - y, x];
    case 7: return [h - 1 - y, w - 1 - x];
    case 8: return [y, w - 1 - x];
  }
}

const ORIENTATIONS: readonly Orientation[] = [1, 2, 3, 4, 5, 6, 7, 8];

/** The one orientation that does what `first` and then `then` do: the eight form a group. */
export function composeOrientations(first: Orientation, then: Orientation): Orientation {
  // Followed on a 3x2 picture, where every orientation moves the corners differently.
  const [w, h] = [3, 2];
  const [mw, mh] = first >= 5 ? [h, w] : [w, h];
  const lands = (x: number, y: number) => {
    const [fx, fy] = orientedPoint(x, y, w, h, first);
    return orientedPoint(fx, fy, mw, mh, then);
  };
  const found = ORIENTATIONS.find((o) =>
    [[0, 0], [w - 1, 0], [0, h - 1]].every(([x, y]) => {
      const [ax, ay] = lands(x!, y!);
      const [bx, by] = orientedPoint(x!, y!, w, h, o);
      return ax === bx && ay === by;
    }),
  );
  return found!;
}
