// Bounds-checked reads over untrusted image bytes. Every read past the end throws
// invalid_image, so header parsers can be written straight through without length checks
// and a truncated file never turns into an untyped RangeError or a silent zero.

import { PixelgateError } from "../errors.ts";

export function invalidImage(message: string): PixelgateError {
  return new PixelgateError("invalid_image", message, { param: "image" });
}

export class ByteReader {
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    /** Byte order for the multi-byte reads; TIFF decides it per file. */
    public littleEndian = false,
    private readonly what = "image",
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get length(): number {
    return this.bytes.length;
  }

  private need(offset: number, size: number): void {
    if (!Number.isInteger(offset) || offset < 0 || offset + size > this.bytes.length) {
      throw invalidImage(`The ${this.what} is truncated or its header is malformed.`);
    }
  }

  u8(offset: number): number {
    this.need(offset, 1);
    return this.bytes[offset]!;
  }

  u16(offset: number): number {
    this.need(offset, 2);
    return this.view.getUint16(offset, this.littleEndian);
  }

  u24(offset: number): number {
    this.need(offset, 3);
    const b = this.bytes;
    return this.littleEndian
      ? b[offset]! | (b[offset + 1]! << 8) | (b[offset + 2]! << 16)
      : (b[offset]! << 16) | (b[offset + 1]! << 8) | b[offset + 2]!;
  }

  u32(offset: number): number {
    this.need(offset, 4);
    return this.view.getUint32(offset, this.littleEndian);
  }

  i32(offset: number): number {
    this.need(offset, 4);
    return this.view.getInt32(offset, this.littleEndian);
  }

  u64(offset: number): number {
    this.need(offset, 8);
    const value = this.view.getBigUint64(offset, this.littleEndian);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidImage(`The ${this.what} has an impossible box size.`);
    return Number(value);
  }

  ascii(offset: number, length: number): string {
    this.need(offset, length);
    let out = "";
    for (let i = 0; i < length; i++) out += String.fromCharCode(this.bytes[offset + i]!);
    return out;
  }

  /** A view (no copy) of `length` bytes at `offset`. */
  slice(offset: number, length: number): Uint8Array {
    this.need(offset, length);
    return this.bytes.subarray(offset, offset + length);
  }
}

/** True when `bytes` holds `ascii` at `offset` (no throw: used by sniffing). */
export function hasAscii(bytes: Uint8Array, offset: number, ascii: string): boolean {
  if (offset + ascii.length > bytes.length) return false;
  for (let i = 0; i < ascii.length; i++) {
    if (bytes[offset + i] !== ascii.charCodeAt(i)) return false;
  }
  return true;
}

/** Index of `needle` in `haystack` from `from`, or -1. */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  outer: for (let i = haystack.indexOf(first!, from); i !== -1 && i + needle.length <= haystack.length; i = haystack.indexOf(first!, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** `parts` joined into one array; a single part is returned as it is, not copied. */
export function concatBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
