// Hand-built WebP lossless (VP8L) bitstreams for the hostile corpus: a tiny valid image, and the
// same layout broken where a decoder must check (a copy reaching before the first pixel, a
// prefix code that does not cover every bit pattern). Written bit by bit, lowest bit first, as
// the format stores them.

/** Bits written lowest first into bytes. */
class Bits {
  private bytes: number[] = [];
  private used = 0;
  put(value: number, count: number): this {
    for (let i = 0; i < count; i++, this.used++) {
      if ((this.used & 7) === 0) this.bytes.push(0);
      this.bytes[this.bytes.length - 1]! |= ((value >> i) & 1) << (this.used & 7);
    }
    return this;
  }
  done(): Uint8Array {
    return new Uint8Array(this.bytes);
  }
}

// The order in which a code-length code's own lengths are stored.
const LENGTH_ORDER = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/** A code naming `symbol` only (a simple code: it takes no bits per pixel). */
function single(bits: Bits, symbol: number): void {
  bits.put(1, 1).put(0, 1).put(1, 1).put(symbol, 8);
}

/**
 * A normal code over `alphabet` symbols in which `symbols` have length `length` and the rest 0:
 * the code-length code has two 1-bit codes (0 for "length 0", 1 for "length `length`").
 */
function normal(bits: Bits, alphabet: number, symbols: number[], length: number): void {
  const stored = LENGTH_ORDER.indexOf(length) + 1;
  bits.put(0, 1).put(stored - 4, 4);
  for (const s of LENGTH_ORDER.slice(0, stored)) bits.put(s === 0 || s === length ? 1 : 0, 3);
  bits.put(0, 1); // every symbol's length follows
  for (let s = 0; s < alphabet; s++) bits.put(symbols.includes(s) ? 1 : 0, 1);
}

/**
 * A normal code giving each of the first 256 symbols 8 bits (the rest of `alphabet` none): the
 * code-length code has the single symbol 8 (no bits each), and only 256 lengths are stored.
 */
function bytewise(bits: Bits): void {
  const stored = LENGTH_ORDER.indexOf(8) + 1;
  bits.put(0, 1).put(stored - 4, 4);
  for (const s of LENGTH_ORDER.slice(0, stored)) bits.put(s === 8 ? 1 : 0, 3);
  bits.put(1, 1).put(3, 3).put(256 - 2, 8); // 2 + 2 * 3 = 8 bits of "how many lengths follow"
}

/** `value` as an 8-bit code of `bytewise`: canonical codes are the symbols, highest bit first. */
function byte(bits: Bits, value: number): void {
  for (let b = 7; b >= 0; b--) bits.put((value >> b) & 1, 1);
}

/** The header: signature, 14 bits each of width - 1 and height - 1, no alpha, version 0. */
function header(width: number, height: number): Bits {
  return new Bits().put(0x2f, 8).put(width - 1, 14).put(height - 1, 14).put(0, 1).put(0, 3);
}

/** No transform, no colour cache, no meta codes, then the green code. */
function start(bits: Bits, green: (bits: Bits) => void): void {
  bits.put(0, 1).put(0, 1).put(0, 1);
  green(bits);
  for (const symbol of [0, 0, 255, 0]) single(bits, symbol); // red, blue, alpha, distance
}

/** A valid image: green 0 or 255 per pixel (one bit each), opaque. */
export function vp8lStripes(width: number, height: number): Uint8Array {
  const bits = header(width, height);
  start(bits, (b) => b.put(1, 1).put(1, 1).put(1, 1).put(0, 8).put(255, 8)); // simple code, two symbols
  for (let i = 0; i < width * height; i++) bits.put((i >> 3) & 1, 1);
  return bits.done();
}

/** The first thing coded is a copy of the pixel above: there is nothing before it. */
export function vp8lCopyBeforeStart(width: number, height: number): Uint8Array {
  const bits = header(width, height);
  start(bits, (b) => normal(b, 280, [0, 256], 1)); // a literal 0 or a copy of length 1
  return bits.put(1, 1).put(0, 32).done();
}

/** A green code of two 2-bit codes: half the bit patterns lead nowhere. */
export function vp8lIncompleteCode(width: number, height: number): Uint8Array {
  const bits = header(width, height);
  start(bits, (b) => normal(b, 280, [0, 1], 2));
  return bits.put(0, 64).done();
}

/**
 * Meta codes whose entropy image names a different group of codes for every 4x4 block (16,384
 * groups, each of four full 256-symbol codes: 64 MB of decoding tables), which the decoder must refuse
 * as too large before it allocates them.
 */
export function vp8lManyGroups(side = 512): Uint8Array {
  const blocks = side / 4;
  const bits = header(side, side).put(0, 1).put(0, 1); // no transform, no colour cache
  bits.put(1, 1).put(0, 3); // meta codes, 4x4 blocks
  // The entropy image: no colour cache, green and red bytewise, blue, alpha and distance single.
  bits.put(0, 1);
  bytewise(bits);
  bytewise(bits);
  for (let k = 0; k < 3; k++) single(bits, 0);
  for (let i = 0; i < blocks * blocks; i++) {
    byte(bits, i & 255); // green: the group's low byte
    byte(bits, i >> 8); // red: its high byte
  }
  // The groups: green, red, blue and alpha bytewise, distance single.
  for (let g = 0; g < blocks * blocks; g++) {
    for (let k = 0; k < 4; k++) bytewise(bits);
    single(bits, 0);
  }
  return bits.done();
}
