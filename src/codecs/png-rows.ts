// Reading a PNG a row at a time from a stream, never whole: for previews of results too large to
// decode (an 8192 x 8192 upscale is 256 MB as a raster and up to 150 MB as a file, read from
// R2 as it arrives). Chunks are parsed as the bytes come, IDAT data is inflated by the runtime's
// zlib as a stream, and each row is unfiltered against the one above and handed out as RGBA.
// What is held is two rows, zlib's window and the pieces in flight.
//
// It reads what the service writes and what upstream models send: 8-bit (or 16-bit, read by its
// high bytes) grey, RGB, palette, grey+alpha and RGBA, not interlaced. Anything else (an
// interlaced file, sub-byte depths) answers null, and the caller goes without.

import { createInflate } from "node:zlib";
import { unfilter } from "./png.ts";

export interface PngRowsHeader {
  width: number;
  height: number;
}

/** Channels per colour type. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Bytes pulled from a stream on demand. */
class StreamBytes {
  private pending: Uint8Array[] = [];
  private available = 0;
  private done = false;
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Exactly `n` bytes, or null when the stream ends first. */
  async take(n: number): Promise<Uint8Array | null> {
    while (this.available < n && !this.done) {
      const { value, done } = await this.reader.read();
      if (done) this.done = true;
      else if (value.length > 0) (this.pending.push(value), (this.available += value.length));
    }
    if (this.available < n) return null;
    const out = new Uint8Array(n);
    for (let at = 0; at < n; ) {
      const piece = this.pending[0]!;
      const take = Math.min(piece.length, n - at);
      out.set(piece.subarray(0, take), at);
      at += take;
      if (take === piece.length) this.pending.shift();
      else this.pending[0] = piece.subarray(take);
    }
    this.available -= n;
    return out;
  }
}

/**
 * Reads the PNG on `stream` and hands each row to `onRow` (top to bottom, RGBA, a reused
 * array), after `onHeader` saw its size. Resolves true once every row was handed out, false for
 * a file this reader does not take (null layout) or that is damaged or cut short.
 */
export async function readPngRows(
  stream: ReadableStream<Uint8Array>,
  onHeader: (header: PngRowsHeader) => void,
  onRow: (y: number, rgba: Uint8Array) => void,
): Promise<boolean> {
  const reader = stream.getReader();
  try {
    return await readRows(new StreamBytes(reader), onHeader, onRow);
  } catch {
    return false;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function readRows(bytes: StreamBytes, onHeader: (header: PngRowsHeader) => void, onRow: (y: number, rgba: Uint8Array) => void): Promise<boolean> {
  const signature = await bytes.take(8);
  if (!signature || signature[0] !== 0x89 || signature[1] !== 0x50) return false;
  let layout: Layout | null = null;
  let rows: RowUnfilter | null = null;
  let palette: Uint8Array | null = null;
  let transparency: Uint8Array | null = null;
  const inflater = createInflate({ chunkSize: 64 * 1024 });
  let failed = false;
  inflater.on("data", (data: Uint8Array) => {
    if (!failed) rows?.push(data);
  });
  inflater.on("error", () => {
    failed = true;
  });
  const ended = new Promise<void>((resolve) => {
    inflater.on("end", resolve);
    inflater.on("error", () => resolve());
  });
  try {
    for (;;) {
      const head = await bytes.take(8);
      if (!head) return false;
      const length = new DataView(head.buffer).getUint32(0);
      const type = String.fromCharCode(head[4]!, head[5]!, head[6]!, head[7]!);
      const data = await bytes.take(length + 4); // with its CRC
      if (!data) return false;
      const body = data.subarray(0, length);
      if (type === "IHDR") {
        layout = layoutOf(body);
        if (!layout) return false;
        onHeader({ width: layout.width, height: layout.height });
      } else if (type === "PLTE") {
        palette = body.slice();
      } else if (type === "tRNS") {
        transparency = body.slice();
      } else if (type === "IDAT") {
        if (!layout) return false;
        rows ??= new RowUnfilter(layout, toRgba(layout, palette, transparency), onRow);
        if (!inflater.write(body)) await new Promise<void>((resolve) => inflater.once("drain", resolve));
        if (failed) return false;
      } else if (type === "IEND") {
        inflater.end();
        await ended;
        return !failed && rows !== null && rows.complete;
      }
    }
  } finally {
    inflater.destroy();
  }
}

interface Layout {
  width: number;
  height: number;
  colorType: number;
  /** Bytes per sample: 1 or 2. */
  sampleBytes: number;
  /** Bytes per pixel, the filters' distance. */
  bpp: number;
}

function layoutOf(ihdr: Uint8Array): Layout | null {
  const view = new DataView(ihdr.buffer, ihdr.byteOffset, ihdr.byteLength);
  const width = view.getUint32(0);
  const height = view.getUint32(4);
  const depth = ihdr[8]!;
  const colorType = ihdr[9]!;
  const channels = CHANNELS[colorType];
  const interlaced = ihdr[12] !== 0;
  if (!channels || interlaced || width === 0 || height === 0) return null;
  if (depth !== 8 && !(depth === 16 && colorType !== 3)) return null;
  const sampleBytes = depth / 8;
  return { width, height, colorType, sampleBytes, bpp: channels * sampleBytes };
}

/** Writes one unfiltered row as RGBA into `out`. */
type ToRgba = (row: Uint8Array, out: Uint8Array) => void;

function toRgba({ width, colorType, sampleBytes }: Layout, palette: Uint8Array | null, transparency: Uint8Array | null): ToRgba {
  const s = sampleBytes; // a 16-bit sample is read by its high (first) byte
  switch (colorType) {
    case 0:
      return (row, out) => {
        for (let x = 0; x < width; x++) {
          const v = row[x * s]!;
          out[x * 4] = out[x * 4 + 1] = out[x * 4 + 2] = v;
          out[x * 4 + 3] = 255;
        }
      };
    case 2:
      return (row, out) => {
        for (let x = 0; x < width; x++) {
          out[x * 4] = row[x * 3 * s]!;
          out[x * 4 + 1] = row[(x * 3 + 1) * s]!;
          out[x * 4 + 2] = row[(x * 3 + 2) * s]!;
          out[x * 4 + 3] = 255;
        }
      };
    case 3:
      return (row, out) => {
        for (let x = 0; x < width; x++) {
          const k = row[x]!;
          out[x * 4] = palette?.[k * 3] ?? 0;
          out[x * 4 + 1] = palette?.[k * 3 + 1] ?? 0;
          out[x * 4 + 2] = palette?.[k * 3 + 2] ?? 0;
          out[x * 4 + 3] = transparency?.[k] ?? 255;
        }
      };
    case 4:
      return (row, out) => {
        for (let x = 0; x < width; x++) {
          out[x * 4] = out[x * 4 + 1] = out[x * 4 + 2] = row[x * 2 * s]!;
          out[x * 4 + 3] = row[(x * 2 + 1) * s]!;
        }
      };
    default:
      return (row, out) => {
        if (s === 1) return out.set(row);
        for (let i = 0; i < width * 4; i++) out[i] = row[i * 2]!;
      };
  }
}

/** Collects inflated bytes into rows, unfilters each and hands it out. */
class RowUnfilter {
  private current: Uint8Array;
  private previous: Uint8Array;
  private filled = 0;
  private y = 0;
  private readonly rgba: Uint8Array;

  constructor(
    private readonly layout: Layout,
    private readonly convert: ToRgba,
    private readonly onRow: (y: number, rgba: Uint8Array) => void,
  ) {
    const stride = layout.width * layout.bpp + 1;
    this.current = new Uint8Array(stride);
    this.previous = new Uint8Array(stride);
    this.rgba = new Uint8Array(layout.width * 4);
  }

  get complete(): boolean {
    return this.y === this.layout.height;
  }

  push(data: Uint8Array): void {
    for (let at = 0; at < data.length && this.y < this.layout.height; ) {
      const take = Math.min(data.length - at, this.current.length - this.filled);
      this.current.set(data.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      if (this.filled === this.current.length) this.finishRow();
    }
  }

  private finishRow(): void {
    const row = this.current;
    const prev = this.previous;
    unfilter(row, prev, this.layout.bpp);
    this.convert(row.subarray(1), this.rgba);
    this.onRow(this.y++, this.rgba);
    this.current = prev;
    this.previous = row;
    this.filled = 0;
  }
}
