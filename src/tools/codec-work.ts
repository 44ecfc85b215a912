import { assertRecodable, estimateCodecBytes, isolateCodecGate, planRecode, waitingBytes, type Permit, type RecodePlan, type ResizeRequest } from "../codecs";
import { WorkBudget } from "../codecs/fuel";
import { assertResizable, estimateResizedBytes } from "../codecs/resize-cost";
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
 * Plans `source` -> `target` codec work and admits it, in prepare(): image_too_large when the
 * target cannot be written at this size on the plan's route, unsupported_image_format for a file
 * no reader here takes, service_busy (503, Retry-After) when the isolate stays full for the
 * gate's whole wait. All before any credit is taken. `quality`: compress's (absent: convert's).
 * The plan is what run() then runs (runRecode), so the route priced here is the route taken.
 * The items of one batch share their ToolContext, which makes them one group at the gate
 * (memory-gate.ts).
 */
export async function admitCodecWork(source: CodecSource, target: ImageFormat, ctx: ToolContext, quality?: number, resize: ResizeRequest = {}): Promise<{ plan: RecodePlan; permit: Permit }> {
  const plan = planRecode(source.bytes, { format: source.format, width: source.width, height: source.height }, target, quality === undefined ? {} : { quality }, resize);
  return { plan, permit: await isolateCodecGate.acquire(codecWorkBytes(source, target, plan), ctx, waitingBytes(source.bytes.length)) };
}

/** Checks the plan against the limits (throws before the charge) and gives what the memory gate admits it with. */
function codecWorkBytes(source: CodecSource, target: ImageFormat, plan: RecodePlan): number {
  if (plan.resize) {
    const estimate = estimateResizedBytes(source, target, plan.resize, plan.quality);
    assertResizable(source, target, plan.resize, estimate);
    return estimate;
  }
  assertRecodable(source, target, plan.price);
  return estimateCodecBytes(source.width * source.height, plan.price, source.bytes.length);
}

/**
 * Runs `work` holding `permit` (none: as it is), which is given back however the work ends,
 * except the part the work handed to its answer (answerHolding).
 */
export async function holdingPermit<T>(permit: Permit | null, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    if (permit && !permit.handedOver) permit.release();
  }
}

/** The work budget of `source` -> `target` codec work: the source's pixels at the route's rate. */
export function codecWorkBudget(source: CodecSource, target: ImageFormat): WorkBudget {
  return WorkBudget.forWork("codec", source.width * source.height, `${source.format}>${target}`);
}

/**
 * `file` answered inline, its bytes still counted by the gate until the answer is written
 * (Base64Bytes.written): the rest of the permit is given back now. A streamed file (a BMP made
 * as the client reads it) keeps the whole permit: the work it was priced for runs then.
 */
export function answerHolding(permit: Permit, file: Base64Bytes): Base64Bytes {
  return file.whenWritten(permit.handOver(file.file.streamed ? permit.bytes : file.byteLength));
}
