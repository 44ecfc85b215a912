// Recognising an image from its first bytes. The declared content type of an upload or a fetch
// is not trusted; the bytes decide which decoder runs.

import { hasAscii } from "./bytes.ts";
import type { InputFormat } from "./formats.ts";
import { looksLikeHeic } from "./heic.ts";
import { looksLikeAvif } from "./avif.ts";
import { looksLikeBmp } from "./bmp.ts";

/**
 * The format the magic bytes announce, "svg" for SVG markup (which the raster pipeline refuses,
 * so callers can say so plainly), or null for anything else.
 */
export function sniffFormat(bytes: Uint8Array): InputFormat | "svg" | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && hasAscii(bytes, 1, "PNG\r\n\x1a\n")) return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (hasAscii(bytes, 0, "RIFF") && hasAscii(bytes, 8, "WEBP")) return "webp";
  if (hasAscii(bytes, 0, "GIF87a") || hasAscii(bytes, 0, "GIF89a")) return "gif";
  // Classic TIFF only; BigTIFF (43) is not read.
  if (hasAscii(bytes, 0, "II*\0") || hasAscii(bytes, 0, "MM\0*")) return "tiff";
  if (looksLikeAvif(bytes)) return "avif";
  if (looksLikeHeic(bytes)) return "heic";
  if (looksLikeBmp(bytes)) return "bmp";
  if (looksLikeSvg(bytes)) return "svg";
  return null;
}

/** SVG markup, possibly after a BOM, whitespace, an XML declaration, comments or a doctype. */
function looksLikeSvg(bytes: Uint8Array): boolean {
  // SVG is text: the first kilobytes decide. Decoding is lenient so stray bytes do not throw.
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 4096))
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (!head.startsWith("<")) return false;
  // Skip the prolog (<?xml ...?>, <!-- ... -->, <!DOCTYPE ...>) and look at the first element.
  const rest = head.replace(/^(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>\s*)*/i, "");
  return /^<(?:[a-z0-9_-]+:)?svg[\s>/]/i.test(rest);
}
