// A file an answer shows inline as base64 (compress's data URI, the playground's converted file,
// `b64_json`), kept as bytes until it is written. The REST answer (json-answer.ts) encodes it a
// slice at a time as the client reads, so a 24 MP PNG's 28 MB of base64, or a 12 MP BMP's 46 MB,
// never exists as one string beside the file. Any other serialiser (the MCP SDK's
// JSON.stringify, a stored idempotent answer) gets the whole text from toJSON, as before.

import { Buffer } from "node:buffer";
import { z } from "@hono/zod-openapi";
import { concatPieces, fileBytesOf, joinedFile, onlyPiece, type FileBytes, type FileLike } from "../codecs/file-pieces";

/**
 * Bytes per base64 slice: a multiple of 3, so slices join without padding in between. Each
 * slice's text (64 KB) stays under V8's large-object size, so it dies young; with 192 KB slices
 * the strings waited for a full collection (a 24 MP BMP answered whole, as it was then: 96.8 -> 92.3 MiB at the peak).
 */
const SLICE_BYTES = 3 * 16 * 1024;

/** Set only while json-answer.ts serialises an answer: what a Base64Bytes writes in its place. */
let placeholderFor: ((value: Base64Bytes) => string) | null = null;

export class Base64Bytes {
  /** The file: one array, the pieces our PNG and GIF writers leave it in (never joined here), or a streamed BMP. */
  readonly file: FileBytes;

  /** `prefix`: text before the base64, `data:<mime>;base64,` for a data URI. */
  constructor(
    file: FileLike,
    readonly prefix = "",
  ) {
    this.file = fileBytesOf(file);
  }

  /** Bytes in the file. */
  get byteLength(): number {
    return this.file.length;
  }

  #whenWritten: (() => void) | undefined;

  /** `release` runs once the text has been written (or made whole): what held the file's place at the memory gate. */
  whenWritten(release: () => void): this {
    this.#whenWritten = release;
    return this;
  }

  /** The answer holding the file was written out, or given up: see whenWritten. */
  written(): void {
    const release = this.#whenWritten;
    this.#whenWritten = undefined;
    release?.();
  }

  /** The file as one array (joined, for the surfaces that need it whole: MCP's hosting, the dashboard's download). */
  get bytes(): Uint8Array {
    return onlyPiece(this.file) ?? joinedFile(this.file);
  }

  /** Characters of the whole text. */
  get length(): number {
    return this.prefix.length + 4 * Math.ceil(this.byteLength / 3);
  }

  /** The whole text, made now (for every serialiser but json-answer.ts, which counts as writing it). */
  text(): string {
    const text = this.prefix + [...this.base64Slices()].join("");
    this.written();
    return text;
  }

  /** The first characters of the text, for showing, without making the rest. */
  head(characters: number): string {
    let text = this.prefix;
    for (const slice of this.base64Slices()) {
      if (text.length >= characters) break;
      text += slice;
    }
    return text.slice(0, characters);
  }

  toJSON(): string {
    return placeholderFor ? placeholderFor(this) : this.text();
  }

  toString(): string {
    return this.text();
  }

  /**
   * The base64 (without the prefix) a slice at a time. Each slice encodes a multiple of 3 bytes
   * (but the last), so the slices join into one base64 text; the up to 2 bytes a piece ends with
   * beyond that go to the front of the next slice.
   */
  *base64Slices(): Generator<string> {
    let carry = new Uint8Array(0);
    for (const piece of this.file.pieces) {
      for (let at = 0; at < piece.length; ) {
        const take = Math.min(piece.length - at, SLICE_BYTES - carry.length);
        const chunk = carry.length > 0 ? concatPieces([carry, piece.subarray(at, at + take)]) : piece.subarray(at, at + take);
        at += take;
        const whole = chunk.length - (chunk.length % 3);
        if (whole > 0) yield base64Of(chunk.subarray(0, whole));
        carry = chunk.slice(whole);
      }
    }
    if (carry.length > 0) yield base64Of(carry);
  }
}

/**
 * Marks a result field that carries a file inline (base64, a data URI) in the OpenAPI document:
 * surfaces that hand results to a model (MCP) leave such fields out and link the file instead.
 */
export const INLINE_FILE_KEYWORD = "x-inline-file";

/** A result field holding a Base64Bytes: a string in the OpenAPI document and on the wire. */
export function base64Field(description: string) {
  return z.custom<Base64Bytes>((value) => value instanceof Base64Bytes).openapi({ type: "string", description, [INLINE_FILE_KEYWORD]: true });
}

/** `value` with every Base64Bytes in it as its text: for results that leave as one JSON value (MCP). */
export function withInlineTexts<T>(value: T): T {
  if (value instanceof Base64Bytes) return value.text() as T;
  if (Array.isArray(value)) return value.map(withInlineTexts) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withInlineTexts(inner)])) as T;
  }
  return value;
}

/** A data URI of a file (one array, its pieces, or a streamed file), written as bytes are. */
export function dataUri(file: FileLike, mime: string): Base64Bytes {
  return new Base64Bytes(file, `data:${mime};base64,`);
}

export function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/**
 * Runs `serialise` (JSON.stringify, synchronous: nothing else runs in between) with every
 * Base64Bytes written as what `placeholder` says instead of its text.
 */
export function withPlaceholders<T>(placeholder: (value: Base64Bytes) => string, serialise: () => T): T {
  placeholderFor = placeholder;
  try {
    return serialise();
  } finally {
    placeholderFor = null;
  }
}
