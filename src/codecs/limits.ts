// How big an image the worker agrees to decode. Checked from the header, before any pixel is
// decoded, because a decoded image costs width * height * 4 bytes of a 128 MB isolate and the
// codecs need working memory on top of that.

/** Hard ceiling from decisions.md "Limits": 16,777,216 pixels (4096 x 4096). */
export const HARD_MAX_PIXELS = 16_777_216;

/**
 * The limit actually enforced: the largest size whose measured peak memory for one request stays
 * under 100 MB of a 128 MB isolate (npm run bench:codecs; table in the README). The worst
 * non-AVIF case, a JPEG compress, peaks at 71 MB at 4 MP and crosses 100 MB near 5.6 MP (with
 * the codecs' memory grown to what they ask for, wasm.ts; it was 80 MB and 5 MP before). The
 * limit stays at 4 MP: the request's base64 text, the V8 heap and the response are not in that
 * figure and need the remaining room.
 */
export const MAX_DECODE_PIXELS = 4_000_000;

/**
 * AVIF's codecs (libaom, dav1d) need far more working memory: converting a 4 MP image to AVIF
 * peaked at 144 MB and decoding one at 112 MB, crossing 100 MB near 2.7 MP. This cap applies to
 * AVIF input and to AVIF as a conversion target.
 */
export const MAX_AVIF_PIXELS = 2_000_000;

/** The pixel limit for reading or writing `format`. */
export function maxPixelsFor(format: string): number {
  return format === "avif" ? MAX_AVIF_PIXELS : MAX_DECODE_PIXELS;
}

/**
 * A side longer than this cannot come from an honest header: PNG and BMP store sides as signed
 * 32-bit values and no other format we read allows more. Such a header is corrupt, not large.
 */
export const MAX_HEADER_SIDE = 0x7fff_ffff;
