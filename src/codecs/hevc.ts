// Our HEVC decoder (src/codecs/native/pixelgate-hevc.wasm: Debian's libde265 and the binding
// native/hevc/hevc_tile.cc, built by scripts/build-hevc-wasm.sh; docs/native-codecs.md). It
// decodes one coded image of a HEIC at a time (a grid tile, or a single image) and lends its
// planes in place, so the caller copies what it needs and the next tile reuses the memory.
//
// One instance per image (not per tile): linear memory never shrinks, and a tile's picture
// freed by pg_hevc_release is the space the next tile's picture takes.

import { invalidImage } from "./bytes.ts";
import { fuelImports } from "./fuel.ts";
import nativeHevc from "./native/pixelgate-hevc.wasm";
import { NativeFailure, type SamplePlane, wasiStubs } from "./native.ts";

interface HevcExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  malloc(size: number): number;
  free(pointer: number): void;
  pg_hevc_decode(hvcc: number, hvccSize: number, data: number, dataSize: number, width: number, height: number): number;
  pg_hevc_release(): void;
  pg_hevc_width(channel: number): number;
  pg_hevc_height(channel: number): number;
  pg_hevc_bits(channel: number): number;
  pg_hevc_chroma(): number;
  pg_hevc_plane(channel: number): number;
  pg_hevc_stride(channel: number): number;
}

/** Status codes of native/hevc/hevc_tile.cc. */
const enum HevcStatus {
  Ok = 0,
  Invalid = 2,
  NoMemory = 3,
}

/** de265_chroma: how the decoded picture's chroma is sampled. */
export const enum HevcChroma {
  Monochrome = 0,
  Yuv420 = 1,
  Yuv422 = 2,
  Yuv444 = 3,
}

/** A plane of a decoded picture: a view of the decoder's memory, valid until the next call. */
export interface HevcPlane {
  width: number;
  height: number;
  /** Bytes from one row to the next (two bytes a sample above 8 bits). */
  stride: number;
  bits: number;
  data: Uint8Array;
}

/** A decoded picture: luma, then Cb and Cr (absent for monochrome). */
export interface HevcPicture {
  chroma: HevcChroma;
  planes: HevcPlane[];
}

/** One HEVC decoder instance, for the coded images of one HEIC. */
export class HevcDecoder {
  private readonly wasm: HevcExports;

  constructor() {
    const instance = new WebAssembly.Instance(nativeHevc, {
      env: { emscripten_notify_memory_growth: () => {} },
      wasi_snapshot_preview1: wasiStubs,
      ...fuelImports(nativeHevc),
    });
    this.wasm = instance.exports as unknown as HevcExports;
    this.wasm._initialize();
  }

  /**
   * Decodes one image item from its hvcC box body (from configurationVersion on) and its data
   * (length-prefixed NAL units). `width` x `height`: the size the container declares for it,
   * which its parameter sets may not exceed. Throws invalid_image for data libde265 refuses.
   */
  decode(hvcc: Uint8Array, data: Uint8Array, width: number, height: number): HevcPicture {
    const w = this.wasm;
    const status = this.call(() => {
      const inputs = w.malloc(hvcc.length + data.length);
      if (inputs === 0) return HevcStatus.NoMemory;
      new Uint8Array(w.memory.buffer, inputs, hvcc.length).set(hvcc);
      new Uint8Array(w.memory.buffer, inputs + hvcc.length, data.length).set(data);
      try {
        return w.pg_hevc_decode(inputs, hvcc.length, inputs + hvcc.length, data.length, width, height);
      } finally {
        w.free(inputs);
      }
    });
    if (status === HevcStatus.NoMemory) throw new RangeError("The HEVC decoder ran out of memory.");
    if (status !== HevcStatus.Ok) throw invalidImage("The HEIC's HEVC data could not be decoded.");
    const chroma = w.pg_hevc_chroma() as HevcChroma;
    const planes: HevcPlane[] = [];
    for (let channel = 0; channel < (chroma === HevcChroma.Monochrome ? 1 : 3); channel++) {
      const [pw, ph, stride] = [w.pg_hevc_width(channel), w.pg_hevc_height(channel), w.pg_hevc_stride(channel)];
      planes.push({ width: pw, height: ph, stride, bits: w.pg_hevc_bits(channel), data: new Uint8Array(w.memory.buffer, w.pg_hevc_plane(channel), stride * ph) });
    }
    return { chroma, planes };
  }

  /** Drops the last picture and its decoder. */
  release(): void {
    this.wasm.pg_hevc_release();
  }

  /** A trap or an abort inside libde265 (a hostile bitstream) counts as invalid data. */
  private call(run: () => number): number {
    try {
      return run();
    } catch (error) {
      if (error instanceof RangeError) return HevcStatus.NoMemory;
      if (error instanceof NativeFailure || error instanceof WebAssembly.RuntimeError) return HevcStatus.Invalid;
      throw error;
    }
  }
}

/**
 * Copies `width` x `rows` samples of a decoded plane into `to`, its first at offset `at`, as 8-bit
 * samples: deeper ones (two bytes each, little-endian) rounded to 8 bits.
 */
export function copyEight(from: Pick<HevcPlane, "data" | "stride" | "bits">, to: SamplePlane, at: number, width: number, rows: number): void {
  const { data, stride, bits } = from;
  if (bits <= 8) {
    for (let y = 0; y < rows; y++) to.data.set(data.subarray(y * stride, y * stride + width), y * to.stride + at);
    return;
  }
  const shift = bits - 8;
  const half = 1 << (shift - 1);
  for (let y = 0; y < rows; y++) {
    const out = y * to.stride + at;
    for (let x = 0, at = y * stride; x < width; x++, at += 2) to.data[out + x] = Math.min(255, ((data[at]! | (data[at + 1]! << 8)) + half) >> shift);
  }
}
