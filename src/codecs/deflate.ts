// Inflating zlib streams through the runtime's native zlib (node:zlib; "deflate" is the zlib
// format PNG uses), for the PNG and TIFF decoders. Streaming keeps memory flat: the whole
// compressed image is never inflated as one extra buffer. inflateAtMost is the exception, for
// data that must fit a known size (TIFF strips). Deflating is the PNG writer's, in C
// (native/png_deflate.c).

import { createInflate, inflateSync } from "node:zlib";
import { concatBytes, invalidImage } from "./bytes.ts";

/**
 * Inflates one whole zlib stream that may hold at most `limit` bytes (under 128 MB), never
 * producing more: node:zlib gives up as soon as its output passes maxOutputLength, so a bomb
 * costs `limit` bytes and a millisecond, not its full size. DecompressionStream cannot bound
 * this in workerd, which has no backpressure there: each write is inflated whole into a native
 * buffer before its first chunk can be read (a 200 KB write of zeros is 200 MB, ~150 ms).
 * Throws invalid_image when the data is corrupt, cut short or inflates past `limit`.
 */
export function inflateAtMost(data: Uint8Array, limit: number, what: string): Uint8Array {
  let out: Uint8Array;
  try {
    // One byte of room past the limit, so zlib always has room to reach the end of a stream that
    // fills the limit exactly; anything longer fails here or in the length check below.
    out = inflateSync(data, { maxOutputLength: limit + 1 });
  } catch {
    throw invalidImage(`The ${what} data is corrupt, cut short, or inflates to more than its ${limit} bytes.`);
  }
  if (out.length > limit) throw invalidImage(`The ${what} data inflates to more than its ${limit} bytes.`);
  return out;
}

/**
 * The first `size` bytes that `parts` (one zlib stream split across chunks) inflate to; bytes
 * past them are ignored, as image decoders do. Fails with invalid_image on corrupt data or a
 * stream that ends short of `size`. One synchronous call bounded at `size`, the fast path (the
 * streaming inflater's round trips made PNG decoding 3 to 6 times slower than sharp's); a stream
 * that is longer than `size` falls back to inflateInto, which stops there.
 */
export async function inflatePrefix(parts: Uint8Array[], size: number, what: string): Promise<Uint8Array> {
  const whole = concatBytes(parts);
  let out: Uint8Array | null = null;
  try {
    out = inflateSync(whole, { maxOutputLength: Math.max(1, size) });
  } catch {
    // Corrupt, or longer than `size`: the streaming path tells which, and keeps the prefix.
  }
  if (out !== null) {
    if (out.length < size) throw invalidImage(`The ${what} data is truncated.`);
    return out;
  }
  const prefix = new Uint8Array(size);
  let filled = 0;
  await inflateInto(
    parts,
    (chunk) => {
      const take = Math.min(chunk.length, size - filled);
      prefix.set(chunk.subarray(0, take), filled);
      filled += take;
      return filled === size;
    },
    what,
  );
  return prefix;
}

/**
 * Inflates `parts` (one zlib stream split across chunks) and hands each output chunk to
 * `consume`, which returns true once it has everything it needs. Trailing bytes after that
 * are ignored, as image decoders do. Fails with invalid_image on corrupt or short data.
 *
 * node:zlib's streaming inflater produces output in INFLATE_CHUNK pieces and stops as soon as the
 * stream is destroyed, so a bomb (a few KB that inflate to gigabytes) costs only what the image
 * needs. DecompressionStream could not do this in workerd: it inflates each write whole before
 * the first byte can be read.
 */
export function inflateInto(parts: Uint8Array[], consume: (chunk: Uint8Array) => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const inflater = createInflate({ chunkSize: INFLATE_CHUNK });
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      inflater.destroy();
      if (error) reject(error);
      else resolve();
    };
    inflater.on("data", (chunk: Uint8Array) => {
      if (settled) return;
      try {
        if (consume(chunk)) finish();
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    });
    inflater.on("error", () => finish(invalidImage(`The ${what} data is corrupt.`)));
    inflater.on("end", () => finish(invalidImage(`The ${what} data is truncated.`)));
    // Fed in slices so that the inflater never holds more than a slice's worth of pending input.
    const feed = (part = 0, at = 0): void => {
      if (settled) return;
      if (part === parts.length) {
        inflater.end();
        return;
      }
      const bytes = parts[part]!;
      const slice = bytes.subarray(at, at + INFLATE_SLICE);
      const next = at + INFLATE_SLICE >= bytes.length ? () => feed(part + 1, 0) : () => feed(part, at + INFLATE_SLICE);
      if (inflater.write(slice)) next();
      else inflater.once("drain", next);
    };
    feed();
  });
}

const INFLATE_CHUNK = 64 * 1024;
const INFLATE_SLICE = 16 * 1024;
