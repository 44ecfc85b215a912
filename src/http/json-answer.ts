import type { Context, TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import type { AppEnv } from "../env";
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
/**
 * Answers up to this many bytes go out as one text. For them a stream only adds cost (a pipe
 * and a generator per answer, about a millisecond of a tiny compress end to end), and one
 * slice of base64 (64 KB) is already as much as a streamed answer holds at a time.
 */
const WHOLE_ANSWER_BYTES = 64 * 1024;

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

function* textOf({ pieces, long }: { pieces: string[]; long: Long[] }): Generator<string> {
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

const encoder = new TextEncoder();

/** UTF-8 bytes of the text; a Base64Bytes (ASCII) is counted without being encoded. */
function byteLengthOf({ pieces, long }: { pieces: string[]; long: Long[] }): number {
  let total = 0;
  for (const piece of pieces) total += encoder.encode(piece).byteLength;
  for (const inner of long) {
    total += 2; // its quotes
    if (typeof inner === "string") for (const slice of stringSlices(inner)) total += encoder.encode(slice).byteLength;
    else total += JSON.stringify(inner.prefix).length - 2 + inner.length - inner.prefix.length;
  }
  return total;
}

/** The UTF-8 bytes of a text's slices, made when the reader asks for them; `ended` once read to the end or given up. */
function streamOf(text: Generator<string>, ended: () => void = () => undefined): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      for (;;) {
        const next = text.next();
        if (next.done) {
          controller.close();
          return ended();
        }
        if (next.value.length > 0) return controller.enqueue(encoder.encode(next.value));
      }
    },
    cancel: ended,
  });
}

/** `value` as JSON, as UTF-8 bytes made when the reader asks for them. */
export function jsonBytes(value: unknown): ReadableStream<Uint8Array> {
  return streamOf(textOf(piecesOf(value)));
}

/**
 * An answer's JSON that can be written more than once (to the client, and to R2 for an
 * Idempotency-Key replay) without ever being whole, and its length in bytes, known before it
 * is written: R2 takes a stream only when its length is known, and clients see Content-Length.
 */
export interface AnswerBody {
  byteLength: number;
  /** The bytes, once more; `ended` once they were all read or the reader gave up. */
  stream(ended?: () => void): ReadableStream<Uint8Array>;
  /** The whole text at once: for an answer of at most WHOLE_ANSWER_BYTES. */
  text(): string;
  /** Tells every inline file in the answer that it was written (Base64Bytes.written: its place at the memory gate). */
  written(): void;
}

export function answerBody(value: unknown): AnswerBody {
  const parts = piecesOf(value);
  const byteLength = byteLengthOf(parts);
  return {
    byteLength,
    stream(ended) {
      // The runtime's FixedLengthStream sends Content-Length and refuses a body of another size.
      const { readable, writable } = new FixedLengthStream(byteLength);
      // A client that goes away cancels the pipe: nothing is left to clean up.
      streamOf(textOf(parts), ended)
        .pipeTo(writable)
        .catch(() => undefined);
      return readable;
    },
    text() {
      return [...textOf(parts)].join("");
    },
    written() {
      for (const inner of parts.long) if (typeof inner !== "string") inner.written();
    },
  };
}

/**
 * What c.json answers (and typed as its answer, for the OpenAPI routes), written as jsonBytes
 * writes it. The body is kept on the context (`answer`) for the Idempotency-Key store.
 */
export function jsonAnswer<T>(c: Context<AppEnv>, value: T, status: 200): Response & TypedResponse<JSONParsed<T>, 200, "json"> {
  const body = answerBody(value);
  c.set("answer", body);
  c.header("Content-Type", "application/json");
  c.header("Content-Length", String(body.byteLength));
  // The client's copy, read to its end or dropped, is what frees the files it carries.
  const answer: Response = body.byteLength <= WHOLE_ANSWER_BYTES ? c.body(wholeText(body), status) : c.body(body.stream(() => body.written()), status);
  return answer as Response & TypedResponse<JSONParsed<T>, 200, "json">;
}

/** A small answer's text, made now: it counts as written. */
function wholeText(body: AnswerBody): string {
  const text = body.text();
  body.written();
  return text;
}
