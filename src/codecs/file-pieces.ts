// A file as our build writes it. The PNG and GIF writers hand their file out in pieces as they
// deflate or code it (native.ts), so WASM memory never holds it whole; joining the pieces holds
// it twice for a moment, and a lossless PNG of a 24 MP camera photo is 20 to 50 MB. The tools
// send the pieces as they are (base64 slices, an R2 upload), so nothing joins them on the
// service's path; `bytes` joins them for callers that want one array. A BMP (69 MB at 24 MP) is
// not kept at all: it is made again from the upload each time it is read (a streamed file).

import { onCallBudget } from "./fuel.ts";

/** A file's bytes, in order, and how many there are. */
export interface FileBytes {
  /** The file as written: one array, its pieces, or (streamed) pieces made as they are read. */
  readonly pieces: Iterable<Uint8Array>;
  /** Bytes in the file. */
  readonly length: number;
  /**
   * Made again, a piece at a time, each time it is read (native.ts streamBmp): what it holds
   * until then is what makes it (a codec instance, the upload), not its bytes.
   */
  readonly streamed?: boolean;
}

/** A file in any of the forms the tools hand on: one array, its pieces, or a FileBytes. */
export type FileLike = Uint8Array | readonly Uint8Array[] | FileBytes;

export function fileBytesOf(file: FileLike): FileBytes {
  if (file instanceof Uint8Array) return { pieces: [file], length: file.length };
  if (Array.isArray(file)) return { pieces: file as readonly Uint8Array[], length: lengthOf(file as readonly Uint8Array[]) };
  return file as FileBytes;
}

/** The file's one array when it is held as exactly one (nothing to join); undefined otherwise. */
export function onlyPiece({ pieces }: FileBytes): Uint8Array | undefined {
  return Array.isArray(pieces) && pieces.length === 1 ? (pieces as readonly Uint8Array[])[0] : undefined;
}

/** The file as one new array, read once (a streamed file is made once more for it). */
export function joinedFile({ pieces, length }: FileBytes): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

export interface RecodedImage extends FileBytes {
  /** The file as one array: joined on first use when it was written in pieces (from then on `pieces` is that one array). */
  readonly bytes: Uint8Array;
  readonly width: number;
  readonly height: number;
}

/** The pieces as one array, dropped from the list (which held them only for this). */
export function joinPieces(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = concatPieces(pieces);
  pieces.fill(out.subarray(0, 0));
  return out;
}

export function lengthOf(pieces: readonly Uint8Array[]): number {
  return pieces.reduce((n, piece) => n + piece.length, 0);
}

/** The pieces copied into one new array, the pieces left as they are (they may be a result's own). */
export function concatPieces(pieces: readonly Uint8Array[]): Uint8Array {
  return joinedFile({ pieces, length: lengthOf(pieces) });
}

class PiecedImage implements RecodedImage {
  readonly length: number;
  #pieces: Uint8Array[];

  constructor(
    pieces: Uint8Array[],
    readonly width: number,
    readonly height: number,
  ) {
    this.#pieces = pieces;
    this.length = lengthOf(pieces);
  }

  get pieces(): readonly Uint8Array[] {
    return this.#pieces;
  }

  get bytes(): Uint8Array {
    if (this.#pieces.length !== 1) this.#pieces = [joinPieces(this.#pieces)];
    return this.#pieces[0]!;
  }
}

/** An encoded image from its file (one array or its pieces) and its size. */
export function recodedImage(file: Uint8Array | Uint8Array[], width: number, height: number): RecodedImage {
  return new PiecedImage(Array.isArray(file) ? file : [file], width, height);
}

/**
 * A file made again each time it is read: `first` is a reading already begun (the one that
 * checked the input), `again` begins another. Each reading hands out the same bytes.
 */
class StreamedImage implements RecodedImage {
  readonly streamed = true;
  #first: Iterator<Uint8Array> | undefined;

  constructor(
    readonly length: number,
    readonly width: number,
    readonly height: number,
    first: Iterator<Uint8Array>,
    private readonly again: () => Iterator<Uint8Array>,
  ) {
    this.#first = first;
  }

  get pieces(): Iterable<Uint8Array> {
    return {
      [Symbol.iterator]: () => {
        const reading = this.#first ?? this.again();
        this.#first = undefined;
        return reading;
      },
    };
  }

  get bytes(): Uint8Array {
    return joinedFile(this);
  }
}

/** A streamed file of `length` bytes: see StreamedImage. Its later readings run on the budget of the call that made it (fuel.ts). */
export function streamedImage(length: number, width: number, height: number, first: Iterator<Uint8Array>, again: () => Iterator<Uint8Array>): RecodedImage {
  return new StreamedImage(length, width, height, first, onCallBudget(again));
}
