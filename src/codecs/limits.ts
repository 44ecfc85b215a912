// How big an image the worker agrees to decode. Checked from the header, before any pixel is
// decoded, because a decoded image costs width * height * 4 bytes of a 128 MB isolate and the
// codecs need working memory on top of that.

/** Hard ceiling from decisions.md "Limits": 16,777,216 pixels (4096 x 4096). */
export const HARD_MAX_PIXELS = 16_777_216;

/**
 * The limit actually enforced. It stays at the hard ceiling until the peak memory of one request
 * has been measured; it is then lowered to the largest size that stays under 100 MB (README).
 * Everything that checks pixel counts reads this one constant.
 */
export const MAX_DECODE_PIXELS = HARD_MAX_PIXELS;

/**
 * A side longer than this cannot come from an honest header: PNG and BMP store sides as signed
 * 32-bit values and no other format we read allows more. Such a header is corrupt, not large.
 */
export const MAX_HEADER_SIDE = 0x7fff_ffff;
