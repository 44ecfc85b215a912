// Mutations of image files for `npm run fuzz`: bit flips, interesting values written over
// header fields and box/chunk sizes, truncations, splices of two files, inserted, repeated and
// deleted runs. Each mutant names the operations that made it, so a finding can say how.

export type Rng = () => number;

export interface Mutant {
  bytes: Uint8Array;
  ops: string[];
}

/** Mutants stay under this size (the service's own upload limit is 20 MB). */
const MAX_MUTANT_BYTES = 4 * 1024 * 1024;

/** Values that sit on limits: sides at and past what formats and encoders store, signs, overflows. */
const INTERESTING = [
  0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 511, 512, 1023, 1024, 4095, 4096, 4097, 8192, 16_383, 16_384, 32_767,
  32_768, 65_500, 65_501, 65_535, 65_536, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff,
];

const int = (rng: Rng, below: number) => Math.floor(rng() * below);

/** An offset, half the time in the first 512 bytes, where headers are. */
function offset(rng: Rng, length: number): number {
  return rng() < 0.5 ? int(rng, Math.min(length, 512)) : int(rng, length);
}

/** Where 4 ASCII letters or digits stand: the type of a box, chunk or marker name, whose neighbours are sizes and fields. */
function fourCcOffsets(bytes: Uint8Array): number[] {
  const found: number[] = [];
  const letter = (b: number) => (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39);
  for (let i = 4; i + 4 <= bytes.length && found.length < 4096; i++) {
    if (letter(bytes[i]!) && letter(bytes[i + 1]!) && letter(bytes[i + 2]!) && letter(bytes[i + 3]!)) found.push(i);
  }
  return found;
}

function writeValue(bytes: Uint8Array, at: number, value: number, size: 1 | 2 | 4, littleEndian: boolean): void {
  for (let k = 0; k < size && at + k < bytes.length; k++) {
    const shift = 8 * (littleEndian ? k : size - 1 - k);
    bytes[at + k] = Math.floor(value / 2 ** shift) & 0xff;
  }
}

function interesting(rng: Rng): number {
  return rng() < 0.85 ? INTERESTING[int(rng, INTERESTING.length)]! : int(rng, 2 ** 32);
}

type Operation = (bytes: Uint8Array, other: Uint8Array, rng: Rng) => [Uint8Array, string];

const OPERATIONS: Operation[] = [
  function flip(bytes, _other, rng) {
    const out = bytes.slice();
    const count = 1 + int(rng, 8);
    for (let k = 0; k < count; k++) {
      const at = offset(rng, out.length);
      out[at]! ^= 1 << int(rng, 8);
    }
    return [out, `flip ${count} bits`];
  },
  function field(bytes, _other, rng) {
    const out = bytes.slice();
    const at = offset(rng, out.length);
    const size = ([1, 2, 4] as const)[int(rng, 3)]!;
    const little = rng() < 0.5;
    const value = interesting(rng);
    writeValue(out, at, value, size, little);
    return [out, `field @${at} ${size}B ${little ? "le" : "be"} = ${value}`];
  },
  function boxField(bytes, _other, rng) {
    const names = fourCcOffsets(bytes);
    if (names.length === 0) return [bytes, "no box"];
    const name = names[int(rng, names.length)]!;
    const out = bytes.slice();
    // The size before the name (ISO-BMFF, PNG, RIFF keep one), or a field in the body after it.
    const at = rng() < 0.4 ? name - 4 : name + 4 + int(rng, 24);
    const value = interesting(rng);
    const little = rng() < 0.3;
    writeValue(out, at, value, 4, little);
    return [out, `box field @${at} (after "${String.fromCharCode(...bytes.subarray(name, name + 4))}") = ${value}`];
  },
  function truncate(bytes, _other, rng) {
    const length = rng() < 0.5 ? int(rng, Math.min(bytes.length, 1024)) : int(rng, bytes.length);
    return [bytes.slice(0, length), `truncate to ${length}`];
  },
  function splice(bytes, other, rng) {
    const head = int(rng, bytes.length);
    const tail = int(rng, other.length);
    const out = new Uint8Array(head + other.length - tail);
    out.set(bytes.subarray(0, head));
    out.set(other.subarray(tail), head);
    return [out, `splice ${head} + other from ${tail}`];
  },
  function insert(bytes, other, rng) {
    const at = offset(rng, bytes.length);
    const from = int(rng, other.length);
    const piece = other.subarray(from, from + 1 + int(rng, 256));
    const out = new Uint8Array(bytes.length + piece.length);
    out.set(bytes.subarray(0, at));
    out.set(piece, at);
    out.set(bytes.subarray(at), at + piece.length);
    return [out, `insert ${piece.length} of other @${at}`];
  },
  function repeat(bytes, _other, rng) {
    const at = offset(rng, bytes.length);
    const piece = bytes.subarray(at, at + 1 + int(rng, 512));
    const times = 1 + int(rng, 64);
    const out = new Uint8Array(Math.min(MAX_MUTANT_BYTES, bytes.length + piece.length * times));
    out.set(bytes.subarray(0, at));
    let to = at;
    for (let k = 0; k < times && to + piece.length <= out.length; k++, to += piece.length) out.set(piece, to);
    out.set(bytes.subarray(at).subarray(0, out.length - to), to);
    return [out, `repeat ${piece.length} x ${times} @${at}`];
  },
  function remove(bytes, _other, rng) {
    const length = Math.min(bytes.length, 1 + int(rng, 256));
    const at = offset(rng, bytes.length - length + 1);
    const out = new Uint8Array(bytes.length - length);
    out.set(bytes.subarray(0, at));
    out.set(bytes.subarray(at + length), at);
    return [out, `delete ${length} @${at}`];
  },
];

/** One mutant of `seed`: one to four operations, `other` (another seed) lending bytes to splices and inserts. */
export function mutate(seed: Uint8Array, other: Uint8Array, rng: Rng): Mutant {
  let bytes = seed;
  const ops: string[] = [];
  const count = 1 + int(rng, 4);
  for (let k = 0; k < count && bytes.length > 0; k++) {
    const [out, op] = OPERATIONS[int(rng, OPERATIONS.length)]!(bytes, other, rng);
    bytes = out.length > MAX_MUTANT_BYTES ? out.subarray(0, MAX_MUTANT_BYTES) : out;
    ops.push(op);
  }
  return { bytes, ops };
}
