// Base64 as clients actually send it: the standard (+/) or the URL-safe (-_) alphabet, wrapped
// in newlines or spaces (MIME-style line breaks, pretty-printed JSON), padding present or not.
// Hand-written rather than atob(): atob rejects URL-safe text and whitespace variants, and it
// builds a binary string first, doubling peak memory on a 20 MB image.

const INVALID = -1;
const SKIP = -2; // whitespace, ignored anywhere
const PAD = -3;

const SEXTET = new Int8Array(128).fill(INVALID);
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".split("").forEach((c, i) => {
  SEXTET[c.charCodeAt(0)] = i;
});
SEXTET["+".charCodeAt(0)] = 62;
SEXTET["-".charCodeAt(0)] = 62;
SEXTET["/".charCodeAt(0)] = 63;
SEXTET["_".charCodeAt(0)] = 63;
SEXTET["=".charCodeAt(0)] = PAD;
for (const c of [" ", "\t", "\n", "\r", "\f", "\v"]) SEXTET[c.charCodeAt(0)] = SKIP;

function sextetOf(code: number): number {
  return code < 128 ? SEXTET[code]! : INVALID;
}

/**
 * Whether the text would decode to more than `maxBytes`, judged from its length alone. Only
 * alphabet characters count (whitespace and padding do not), and the scan stops as soon as the
 * limit is passed, so an oversized image is refused before anything is allocated or decoded.
 */
export function base64ExceedsDecodedSize(text: string, maxBytes: number): boolean {
  // Every 4 characters carry 3 bytes: maxChars characters decode to at most maxBytes, and one
  // character more decodes to more.
  const maxChars = Math.floor((maxBytes * 4) / 3) + 1;
  if (text.length <= maxChars) return false; // cheap exit: cannot exceed even if all characters count
  let chars = 0;
  for (let i = 0; i < text.length; i++) {
    const sextet = sextetOf(text.charCodeAt(i));
    if (sextet !== SKIP && sextet !== PAD && ++chars > maxChars) return true;
  }
  return Math.floor((chars * 3) / 4) > maxBytes;
}

export type Base64Result = { bytes: Uint8Array } | { malformed: string };

/** Reads the character code at an index: of a string, or of text still held as bytes. */
type CodeAt = (index: number) => number;

/**
 * Decodes base64 text, or says why it is malformed. Strict about what would silently corrupt the
 * image (foreign characters, data after padding, a dangling character, mixed alphabets, wrong
 * padding); lenient about what carries no information (whitespace, missing padding, and nonzero
 * unused bits in the last character, which many encoders leave).
 */
export function decodeBase64(text: string): Base64Result {
  const codeAt: CodeAt = (i) => text.charCodeAt(i);
  const checked = checkBase64(text.length, codeAt);
  if ("malformed" in checked) return checked;
  const bytes = new Uint8Array(checked.byteCount);
  fillBytes(text.length, codeAt, bytes);
  return { bytes };
}

/**
 * decodeBase64 for ASCII text held as bytes (a request body), decoded into the same buffer:
 * every 4 characters become 3 bytes written behind the read position, so no second buffer is
 * needed. The result is a view of `text`'s start. Malformed text is left untouched.
 */
export function decodeBase64InPlace(text: Uint8Array): Base64Result {
  const codeAt: CodeAt = (i) => text[i]!;
  const checked = checkBase64(text.length, codeAt);
  if ("malformed" in checked) return checked;
  const bytes = text.subarray(0, checked.byteCount);
  fillBytes(text.length, codeAt, bytes);
  return { bytes };
}

function checkBase64(length: number, codeAt: CodeAt): { byteCount: number } | { malformed: string } {
  let chars = 0;
  let padding = 0;
  let standard = false;
  let urlSafe = false;
  for (let i = 0; i < length; i++) {
    const code = codeAt(i);
    const sextet = sextetOf(code);
    if (sextet === SKIP) continue;
    if (sextet === INVALID) return { malformed: `it contains a character outside the base64 alphabet at position ${i}` };
    if (sextet === PAD) {
      padding++;
      continue;
    }
    if (padding > 0) return { malformed: "it has data after the '=' padding" };
    if (code === 0x2b || code === 0x2f) standard = true; // + /
    else if (code === 0x2d || code === 0x5f) urlSafe = true; // - _
    chars++;
  }
  if (standard && urlSafe) return { malformed: "it mixes the standard (+/) and URL-safe (-_) alphabets" };
  if (chars % 4 === 1) return { malformed: "it is truncated (a dangling character that holds no whole byte)" };
  if (padding > 0 && (padding > 2 || (chars + padding) % 4 !== 0)) return { malformed: "its '=' padding does not match its length" };
  return { byteCount: Math.floor((chars * 3) / 4) };
}

function fillBytes(length: number, codeAt: CodeAt, bytes: Uint8Array): void {
  let out = 0;
  let bits = 0;
  let bitCount = 0;
  for (let i = 0; i < length && out < bytes.length; i++) {
    const sextet = sextetOf(codeAt(i));
    if (sextet < 0) continue; // whitespace; padding only ever trails the data
    bits = ((bits << 6) | sextet) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      bytes[out++] = (bits >> bitCount) & 0xff;
    }
  }
}
