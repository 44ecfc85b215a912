// A file an answer shows inline as base64 (compress's data URI, the playground's converted file,
// `b64_json`), kept as bytes until it is written. The REST answer (json-answer.ts) encodes it a
// slice at a time as the client reads, so a 24 MP PNG's 28 MB of base64, or a 12 MP BMP's 46 MB,
// never exists as one string beside the file. Any other serialiser (the MCP SDK's
// JSON.stringify, a stored idempotent answer) gets the whole text from toJSON, as before.

import { Buffer } from "node:buffer";
import { z } from "@hono/zod-openapi";

/** Bytes per base64 slice: a multiple of 3, so slices join without padding in between. */
const SLICE_BYTES = 3 * 64 * 1024;

/** Set only while json-answer.ts serialises an answer: what a Base64Bytes writes in its place. */
let placeholderFor: ((value: Base64Bytes) => string) | null = null;

export class Base64Bytes {
  /** `prefix`: text before the base64, `data:<mime>;base64,` for a data URI. */
  constructor(
    readonly bytes: Uint8Array,
    readonly prefix = "",
  ) {}

  /** A data URI's media type, or null. */
  get mime(): string | null {
    return /^data:([^;,]+)/i.exec(this.prefix)?.[1]?.toLowerCase() ?? null;
  }

  /** Characters of the whole text. */
  get length(): number {
    return this.prefix.length + 4 * Math.ceil(this.bytes.length / 3);
  }

  /** The whole text, made now. */
  text(): string {
    return this.prefix + base64Of(this.bytes);
  }

  /** The first characters of the text, for showing, without making the rest. */
  head(characters: number): string {
    return (this.prefix + base64Of(this.bytes.subarray(0, Math.ceil((characters * 3) / 4)))).slice(0, characters);
  }

  toJSON(): string {
    return placeholderFor ? placeholderFor(this) : this.text();
  }

  toString(): string {
    return this.text();
  }

  /** The base64 (without the prefix) a slice at a time. */
  *base64Slices(): Generator<string> {
    for (let at = 0; at < this.bytes.length; at += SLICE_BYTES) yield base64Of(this.bytes.subarray(at, at + SLICE_BYTES));
  }
}

/** A result field holding a Base64Bytes: a string in the OpenAPI document and on the wire. */
export function base64Field(description: string) {
  return z.custom<Base64Bytes>((value) => value instanceof Base64Bytes).openapi({ type: "string", description });
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

/** A data URI of `bytes`, written as bytes are. */
export function dataUri(bytes: Uint8Array, mime: string): Base64Bytes {
  return new Base64Bytes(bytes, `data:${mime};base64,`);
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
