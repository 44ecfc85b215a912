// A large inline image taken out of the request body before the JSON is parsed, so the upload
// is not held three times over (the body's bytes, its text, and the parsed string of every
// JSON.parse; Hono keeps the text and parses it again for each reader). The body's bytes are
// read once; the top-level `image` (or `imageBase64`) string is base64-decoded where it lies,
// into the same buffer (3 bytes written for every 4 characters read, always behind the read
// position), copied out at its exact size, and replaced in the JSON text by a short token that
// stands for it. The tools ask for the token's bytes (loadImageBytes); everything else about
// the body (validation, idempotency fingerprints) sees ordinary small JSON.
//
// Anything unusual is left to the ordinary path, which gives the precise error: escapes in the
// string, malformed base64, an oversized payload, a URL, a header that is not an image type.

import { AsyncLocalStorage } from "node:async_hooks";
import { decodeBase64InPlace } from "./base64";
import { dataUriImageType, type InlineImage } from "./inline-image";
import { MAX_INPUT_IMAGE_BYTES } from "./limits";

/** Strings shorter than this parse faster than they are worth splicing. */
export const INLINE_SPLICE_MIN_CHARS = 48 * 1024;
/** How a token starts; the rest is a content hash or a random id. Never valid base64 or a URL. */
export const INLINE_TOKEN_PREFIX = "pixelgate-inline:";

const IMAGE_FIELDS = new Set(["image", "imageBase64"]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export interface InlineUpload extends InlineImage {
  source: "data-uri" | "base64";
}

export interface SplicedBody {
  /** The JSON text to parse: the body, with the image string replaced by its token. */
  text: string;
  /** The token and what it stands for, when an image was taken out. */
  image?: { token: string; upload: InlineUpload };
}

/**
 * Takes the top-level inline image out of a JSON body's bytes (which it overwrites in that
 * string's place). `tokenFor` names the image from its base64 text, before it is decoded.
 */
export async function spliceInlineImage(body: Uint8Array, tokenFor: (base64Text: Uint8Array) => Promise<string>): Promise<SplicedBody> {
  const decoder = new TextDecoder();
  const found = findImageString(body);
  const upload = found && readUploadHeader(body.subarray(found.start, found.end), found.field);
  if (!found || !upload) return { text: decoder.decode(body) };
  const raw = body.subarray(found.start, found.end);
  const token = INLINE_TOKEN_PREFIX + (await tokenFor(raw));
  const decoded = decodeBase64InPlace(upload.payload);
  if ("malformed" in decoded || decoded.bytes.length === 0) {
    return { text: decoder.decode(body) }; // untouched: the ordinary path explains the problem
  }
  const bytes = decoded.bytes.slice(); // exact size; the body's buffer becomes garbage
  const text = decoder.decode(body.subarray(0, found.start)) + token + decoder.decode(body.subarray(found.end));
  return { text, image: { token, upload: { bytes, declaredType: upload.declaredType, source: upload.source } } };
}

/** The data URI's header checked and its payload located, or null for the ordinary path. */
function readUploadHeader(raw: Uint8Array, field: string): { payload: Uint8Array; declaredType: string | null; source: InlineUpload["source"] } | null {
  if (raw.includes(BACKSLASH)) return null; // JSON escapes: the text is not the bytes
  let start = 0;
  while (start < raw.length && raw[start]! <= 0x20) start++;
  const head = new TextDecoder().decode(raw.subarray(start, start + 256));
  let payload = raw.subarray(start);
  let declaredType: string | null = null;
  const source = /^data:/i.test(head) ? "data-uri" : "base64";
  if (source === "data-uri") {
    const comma = raw.indexOf(0x2c, start);
    if (comma < 0) return null;
    try {
      declaredType = dataUriImageType(new TextDecoder().decode(raw.subarray(start, comma)), field);
    } catch {
      return null;
    }
    payload = raw.subarray(comma + 1);
  } else if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(head)) {
    return null; // a URL
  }
  if (Math.floor((payload.length * 3) / 4) > MAX_INPUT_IMAGE_BYTES) return null;
  return { payload, declaredType, source };
}

/**
 * Where the top-level `image` / `imageBase64` string value lies in the body (quotes excluded),
 * when the body is a JSON object and that string is long. Scans the top level only: nested
 * values and other strings are skipped whole, escapes and all.
 */
function findImageString(body: Uint8Array): { field: string; start: number; end: number } | null {
  let i = skipSpace(body, body[0] === 0xef ? 3 : 0); // a UTF-8 byte-order mark
  if (body[i] !== 0x7b) return null; // {
  i = skipSpace(body, i + 1);
  while (i < body.length && body[i] === QUOTE) {
    const keyEnd = stringEnd(body, i);
    if (keyEnd < 0) return null;
    const key = new TextDecoder().decode(body.subarray(i + 1, keyEnd));
    i = skipSpace(body, keyEnd + 1);
    if (body[i] !== 0x3a) return null; // :
    i = skipSpace(body, i + 1);
    const valueStart = i;
    i = valueEnd(body, i);
    if (i < 0) return null;
    if (IMAGE_FIELDS.has(key) && body[valueStart] === QUOTE && i - valueStart - 2 >= INLINE_SPLICE_MIN_CHARS) {
      return { field: key, start: valueStart + 1, end: i - 1 };
    }
    i = skipSpace(body, i);
    if (body[i] !== 0x2c) return null; // , (or the end of the object: nothing found)
    i = skipSpace(body, i + 1);
  }
  return null;
}

function skipSpace(body: Uint8Array, i: number): number {
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  return i;
}

/** Index of the closing quote of the string opening at `start`, or -1. */
function stringEnd(body: Uint8Array, start: number): number {
  for (let i = start + 1; i < body.length; i++) {
    if (body[i] === BACKSLASH) i++;
    else if (body[i] === QUOTE) return i;
  }
  return -1;
}

/** Index just past the JSON value starting at `start`, or -1 when it does not end. */
function valueEnd(body: Uint8Array, start: number): number {
  let depth = 0;
  for (let i = start; i < body.length; i++) {
    const byte = body[i]!;
    if (byte === QUOTE) {
      i = stringEnd(body, i);
      if (i < 0) return -1;
      if (depth === 0) return i + 1;
    } else if (byte === 0x7b || byte === 0x5b) depth++;
    else if (byte === 0x7d || byte === 0x5d) {
      if (depth === 0) return i; // the enclosing object ends: a bare value stopped here
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (byte === 0x2c || byte <= 0x20)) return i;
  }
  return depth === 0 ? body.length : -1;
}

const uploads = new AsyncLocalStorage<Map<string, InlineUpload>>();

/** Runs `work` (the rest of the request) with this request's spliced image, if any. */
export function withInlineImage<T>(spliced: SplicedBody, work: () => Promise<T>): Promise<T> {
  return uploads.run(new Map(spliced.image ? [[spliced.image.token, spliced.image.upload]] : []), work);
}

/** The upload a token stands for in the current request; undefined for anything else. */
export function inlineUploadOf(text: string): InlineUpload | undefined {
  return text.startsWith(INLINE_TOKEN_PREFIX) ? uploads.getStore()?.get(text) : undefined;
}
