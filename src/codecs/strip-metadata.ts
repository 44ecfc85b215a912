// An input file as it is, minus its metadata: what compress answers when re-encoding would
// make the file larger (tools/compress-image.ts). The image data is copied byte for byte, so
// nothing is lost and no codec runs. Removed: EXIF, XMP, ICC profiles, comments and any other
// ancillary data. Kept: what decoding needs (JPEG tables and the Adobe colour-transform marker,
// PNG palette and transparency, WebP alpha), and the orientation, rewritten as a minimal EXIF
// block holding that one tag, so a portrait photo still shows upright.

import { ByteReader, concatBytes } from "./bytes.ts";
import { crc32 } from "../ids/crc32.ts";
import type { InputFormat } from "./formats.ts";
import type { Orientation } from "./orientation.ts";

/**
 * `bytes` (a valid `format` file) without metadata, or null when the format or this file's
 * layout has no metadata-free form kept here (animations, formats compress never writes).
 */
export function stripMetadata(bytes: Uint8Array, format: InputFormat, orientation: Orientation): Uint8Array | null {
  switch (format) {
    case "jpeg":
      return stripJpeg(bytes, orientation);
    case "png":
      return stripPng(bytes, orientation);
    case "webp":
      return stripWebp(bytes, orientation);
    default:
      return null;
  }
}

/** A big-endian TIFF structure with one IFD holding only the orientation tag (26 bytes). */
export function orientationExif(orientation: Orientation): Uint8Array {
  const tiff = new Uint8Array(26);
  const view = new DataView(tiff.buffer);
  tiff.set([0x4d, 0x4d, 0x00, 0x2a]); // "MM", 42
  view.setUint32(4, 8); // IFD0 right after the header
  view.setUint16(8, 1); // one entry
  view.setUint16(10, 0x0112); // Orientation
  view.setUint16(12, 3); // SHORT
  view.setUint32(14, 1); // one value
  view.setUint16(18, orientation); // left-justified in the value field
  view.setUint32(22, 0); // no next IFD
  return tiff;
}

function u16be(value: number): Uint8Array {
  return new Uint8Array([value >> 8, value & 0xff]);
}

function u32(value: number, littleEndian: boolean): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, littleEndian);
  return out;
}

const ascii = (text: string) => new TextEncoder().encode(text);

/** Segments before the scan: JFIF (APP0), Adobe (APP14), tables and frame headers stay. */
function stripJpeg(bytes: Uint8Array, orientation: Orientation): Uint8Array | null {
  const r = new ByteReader(bytes, false, "JPEG");
  const kept: Uint8Array[] = [bytes.subarray(0, 2)];
  if (orientation !== 1) {
    const payload = concatBytes([ascii("Exif\0\0"), orientationExif(orientation)]);
    kept.push(new Uint8Array([0xff, 0xe1]), u16be(payload.length + 2), payload);
  }
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (r.u8(offset) !== 0xff) return null;
    const marker = r.u8(offset + 1);
    if (marker === 0xff) {
      offset++;
      continue;
    }
    if (marker === 0xda) {
      kept.push(bytes.subarray(offset)); // the scans and everything after: untouched
      return concatBytes(kept);
    }
    const end = offset + 2 + r.u16(offset + 2);
    const isApp = marker >= 0xe0 && marker <= 0xef;
    const needed = (isApp && (marker === 0xe0 || marker === 0xee)) || (!isApp && marker !== 0xfe);
    if (needed) kept.push(bytes.subarray(offset, end));
    offset = end;
  }
  return null;
}

/** Critical chunks and tRNS; an APNG's animation chunks go too, leaving its default image. */
const PNG_KEPT = new Set(["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]);

function stripPng(bytes: Uint8Array, orientation: Orientation): Uint8Array | null {
  const r = new ByteReader(bytes, false, "PNG");
  const kept: Uint8Array[] = [bytes.subarray(0, 8)];
  let exifDue = orientation !== 1; // eXIf must come before the first IDAT
  for (let offset = 8; offset + 12 <= bytes.length; ) {
    const end = offset + 12 + r.u32(offset);
    const type = r.ascii(offset + 4, 4);
    if (type === "IDAT" && exifDue) {
      kept.push(pngChunk("eXIf", orientationExif(orientation)));
      exifDue = false;
    }
    if (PNG_KEPT.has(type)) kept.push(bytes.subarray(offset, end));
    if (type === "IEND") return concatBytes(kept);
    offset = end;
  }
  return null;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concatBytes([ascii(type), data]);
  return concatBytes([u32(data.length, false), typed, u32(crc32(typed), false)]);
}

const VP8X_ALPHA = 0x10;
const VP8X_EXIF = 0x08;

function stripWebp(bytes: Uint8Array, orientation: Orientation): Uint8Array | null {
  const r = new ByteReader(bytes, true, "WebP");
  const chunks: { fourcc: string; chunk: Uint8Array }[] = [];
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const size = r.u32(offset + 4);
    const end = Math.min(bytes.length, offset + 8 + size + (size & 1));
    chunks.push({ fourcc: r.ascii(offset, 4), chunk: bytes.subarray(offset, end) });
    offset = end;
  }
  const vp8x = chunks.find((c) => c.fourcc === "VP8X");
  if (!vp8x) return orientation === 1 ? bytes : null; // a simple file has nowhere to keep metadata
  if (chunks.some((c) => c.fourcc === "ANIM")) return null;
  const header = vp8x.chunk.slice();
  header[8] = (header[8]! & VP8X_ALPHA) | (orientation !== 1 ? VP8X_EXIF : 0);
  const kept = [header, ...chunks.filter((c) => ["ALPH", "VP8 ", "VP8L"].includes(c.fourcc)).map((c) => c.chunk)];
  if (orientation !== 1) {
    const exif = orientationExif(orientation);
    kept.push(ascii("EXIF"), u32(exif.length, true), exif);
  }
  const body = concatBytes(kept);
  return concatBytes([ascii("RIFF"), u32(body.length + 4, true), ascii("WEBP"), body]);
}
