import type { Context, TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import { withPlaceholders, type Base64Bytes } from "./base64-bytes";

// A JSON answer written out as the client reads it. An image answered inline (a Base64Bytes:
// compress's data URI, the playground's converted file, `b64_json`) is encoded a slice at a time
// between the pieces of the envelope's text; so is any other long string (an SVG's markup).
// With c.json the base64 was held three times over beside the file: the string, the JSON text
// around it and that text encoded as bytes. At 24 MP a lossless PNG's base64 is 28 MB, of an
// isolate's 128.

/** Strings at least this long are written in slices; shorter ones go into the envelope's text. */
const LONG_STRING = 64 * 1024;
/** Characters per slice of a long string. */
const SLICE = 256 * 1024;

type Long = string | Base64Bytes;

/** The envelope's text in pieces, and between each two pieces the long value left out there. */
function piecesOf(value: unknown): { pieces: string[]; long: Long[] } {
  const long: Long[] = [];
  // A NUL and a random nonce: no string a caller sent can look like this placeholder.
  const marker = `\u0000${crypto.randomUUID()}:`;
  const placeholder = (inner: Long) => `${marker}${long.push(inner) - 1}`;
  const text = withPlaceholders(placeholder, () =>
    JSON.stringify(value, (_key, inner: unknown) => (typeof inner === "string" && inner.length >= LONG_STRING ? placeholder(inner) : inner)),
  );
  const quotedMarker = JSON.stringify(marker).slice(0, -1); // `"\u0000…:` as it appears in the text
  const pieces: string[] = [];
  let at = 0;
  long.forEach((_, index) => {
    const written = `${quotedMarker}${index}"`;
    const found = text.indexOf(written, at);
    pieces.push(text.slice(at, found));
    at = found + written.length;
  });
  pieces.push(text.slice(at));
  return { pieces, long };
}

/** A long string's JSON a slice at a time; a slice never ends between the two halves of a surrogate pair. */
function* stringSlices(string: string): Generator<string> {
  for (let at = 0; at < string.length; ) {
    let end = Math.min(string.length, at + SLICE);
    const last = string.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < string.length) end += 1;
    yield JSON.stringify(string.slice(at, end)).slice(1, -1);
    at = end;
  }
}

function* textOf(value: unknown): Generator<string> {
  const { pieces, long } = piecesOf(value);
  for (const [index, piece] of pieces.entries()) {
    yield piece;
    const inner = long[index];
    if (inner === undefined) continue;
    yield '"';
    if (typeof inner === "string") yield* stringSlices(inner);
    else {
      yield JSON.stringify(inner.prefix).slice(1, -1);
      yield* inner.base64Slices();
    }
    yield '"';
  }
}

/** `value` as JSON, as UTF-8 bytes made when the reader asks for them. */
export function jsonBytes(value: unknown): ReadableStream<Uint8Array> {
  const text = textOf(value);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      for (;;) {
        const next = text.next();
        if (next.done) return controller.close();
        if (next.value.length > 0) return controller.enqueue(encoder.encode(next.value));
      }
    },
  });
}

/** What c.json answers (and typed as its answer, for the OpenAPI routes), written as jsonBytes writes it. */
export function jsonAnswer<T>(c: Context, value: T, status: 200): Response & TypedResponse<JSONParsed<T>, 200, "json"> {
  c.header("Content-Type", "application/json");
  const answer: Response = c.body(jsonBytes(value), status);
  return answer as Response & TypedResponse<JSONParsed<T>, 200, "json">;
}
