import { assertRecodable, estimateCodecBytes, isolateCodecGate, nativeBytesPerPixel, recodeQuality, waitingBytes, type Permit } from "../codecs";
import type { ImageFormat } from "../codecs/formats";
import type { ErrorCode } from "../errors";
import type { Base64Bytes } from "../http/base64-bytes";
import type { ToolContext } from "./types";
import { IMAGE_INPUT_ERRORS, type CodecSource } from "./source-image";

/** What compress and convert can answer besides every billed call's errors. */
export const CODEC_TOOL_ERRORS: ErrorCode[] = [...IMAGE_INPUT_ERRORS, "service_busy"];

// The memory side of compress and convert: before the charge, the target's own pixel limit and
// admission by the isolate's memory gate; after it, the work runs holding that admission.

/**
 * Admits `source` -> `target` codec work, in prepare(): image_too_large when the target cannot
 * be written at this size, service_busy (503, Retry-After) when the isolate stays full for the
 * gate's whole wait. Both before any credit is taken. `quality`: compress's (absent: convert's).
 * The items of one batch share their ToolContext, which makes them one group at the gate
 * (memory-gate.ts).
 */
export function admitCodecWork(source: CodecSource, target: ImageFormat, ctx: ToolContext, quality?: number): Promise<Permit> {
  const pixels = source.width * source.height;
  const recodedAt = recodeQuality(target, { quality });
  const native = nativeBytesPerPixel(source.bytes, source.format, target, pixels, recodedAt);
  assertRecodable(source, target, native);
  const estimate = estimateCodecBytes(pixels, source.format, target, source.bytes.length, native, recodedAt);
  return isolateCodecGate.acquire(estimate, ctx, waitingBytes(source.bytes.length));
}

/**
 * Runs `work` holding `permit`, which is given back however the work ends, except the part the
 * work handed to its answer (answerHolding).
 */
export async function holdingPermit<T>(permit: Permit, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    if (!permit.handedOver) permit.release();
  }
}

/**
 * `file` answered inline, its bytes still counted by the gate until the answer is written
 * (Base64Bytes.written): the rest of the permit is given back now. A streamed file (a BMP made
 * as the client reads it) keeps the whole permit: the work it was priced for runs then.
 */
export function answerHolding(permit: Permit, file: Base64Bytes): Base64Bytes {
  return file.whenWritten(permit.handOver(file.file.streamed ? permit.bytes : file.byteLength));
}
