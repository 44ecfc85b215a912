// An Idempotency-Key replay says that it charged nothing, in the body as well as in the
// Idempotency-Replayed header: clients and agents read `deductedCredits` and tell their user
// what was spent. The stored answer is streamed back from R2 (it can be 96 MB of JSON), so it is
// rewritten as it passes, never parsed whole:
//   - `"replayed":true,` is put after the opening brace;
//   - every `"deductedCredits":N` (the envelope's, the result's, each batch item's) becomes
//     `"deductedCredits":0` padded with spaces to N's width, so the length stays known.
// The key with its quotes and colon can only be a key: inside a JSON string every quote is
// escaped, and base64 has none.

const encoder = new TextEncoder();
const REPLAYED = encoder.encode('"replayed":true,');
const KEY = encoder.encode('"deductedCredits":');
const [ZERO, SPACE, NINE] = [0x30, 0x20, 0x39];

const isDigit = (byte: number | undefined) => byte !== undefined && byte >= ZERO && byte <= NINE;

function keyAt(bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < KEY.length; i++) if (bytes[at + i] !== KEY[i]) return false;
  return true;
}

/**
 * Zeroes the credits in `bytes` (in place) and says how many leading bytes are final: the rest
 * may be the start of a key or a number that the next chunk completes.
 */
function zeroCredits(bytes: Uint8Array, last: boolean): number {
  let at = 0;
  for (; at + KEY.length <= bytes.length; at++) {
    if (!keyAt(bytes, at)) continue;
    let end = at + KEY.length;
    while (isDigit(bytes[end])) end++;
    if (end === bytes.length && !last) return at; // the number may go on in the next chunk
    if (end > at + KEY.length) bytes.fill(SPACE, at + KEY.length + 1, end).fill(ZERO, at + KEY.length, at + KEY.length + 1);
    at = end - 1;
  }
  return last ? bytes.length : Math.min(bytes.length, at);
}

/** Bytes the replay adds to the stored answer's length. */
export const REPLAY_EXTRA_BYTES = REPLAYED.length;

/** The stored JSON answer as a replay: marked, and charging nothing (see above). */
export function replayOf(stored: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let carry = new Uint8Array(0);
  let opened = false;
  const pass = (chunk: Uint8Array, last: boolean, controller: TransformStreamDefaultController<Uint8Array>) => {
    const bytes = new Uint8Array(carry.length + chunk.length);
    bytes.set(carry);
    bytes.set(chunk, carry.length);
    let from = 0;
    if (!opened && bytes.length > 0) {
      // The answer is a JSON object: its first byte is the brace.
      controller.enqueue(bytes.subarray(0, 1));
      controller.enqueue(REPLAYED);
      opened = true;
      from = 1;
    }
    const rest = bytes.subarray(from);
    const done = zeroCredits(rest, last);
    if (done > 0) controller.enqueue(rest.slice(0, done));
    carry = rest.slice(done);
  };
  return stored.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => pass(chunk, false, controller),
      flush: (controller) => pass(new Uint8Array(0), true, controller),
    }),
  );
}
