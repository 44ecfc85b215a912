// A file as our build writes it. The PNG and GIF writers hand their file out in pieces as they
// deflate or code it (native.ts), so WASM memory never holds it whole; joining the pieces holds
// it twice for a moment, and a lossless PNG of a 24 MP camera photo is 20 to 50 MB. The tools
// send the pieces as they are (base64 slices, an R2 upload), so nothing joins them on the
// service's path; `bytes` joins them for callers that want one array.

export interface RecodedImage {
  /** The file as one array: joined on first use when it was written in pieces (from then on `pieces` is that one array). */
  readonly bytes: Uint8Array;
  /** The file as written, in order: one array, or a PNG's or GIF's pieces. */
  readonly pieces: readonly Uint8Array[];
  /** Bytes in the file. */
  readonly length: number;
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
  const out = new Uint8Array(lengthOf(pieces));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
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
