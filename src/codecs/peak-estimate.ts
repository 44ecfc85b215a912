import type { ImageFormat, InputFormat } from "./formats.ts";
import { estimateCodecBytes, ISOLATE_CODEC_BUDGET, maxRecodePixels } from "./limits.ts";
import type { Price, RecordedPeak } from "./recode-cost.ts";
import { planPrice } from "./recode-route.ts";
import { resizedPrice, type ResizedCall } from "./resize-cost.ts";
import type { RouteFacts } from "./route-table.ts";

// A recorded peak's estimate computed again from the cost table as it is now, on the route the
// planner would take now: what test/codecs/measured-peaks.test.ts checks every recorded peak
// against, and what the bench's fit (scripts/bench/route-costs-fit.ts) raises terms from.

export interface PeakEstimate {
  /** The route's row ("general": the decode and encode; "resize: ..." a resized call's). */
  row: string;
  /** The price of the stage that sets the estimate, and the pixels it is priced at (a resized call's encode: the answer's). */
  price: Price;
  pixels: number;
  estimate: number;
  /** Whether the service takes this call at all (within the route's pixel limit for this upload, or a resize within the isolate's budget). */
  admitted: boolean;
}

export function peakEstimate(p: RecordedPeak): PeakEstimate {
  const input = p.input as InputFormat;
  if (p.resize) {
    const plan = p.resize as ResizedCall["plan"];
    const priced = resizedPrice({ format: input, pixels: p.pixels, inputBytes: p.inputBytes, target: p.target as ImageFormat, quality: p.quality, plan });
    return { ...priced, admitted: priced.estimate <= ISOLATE_CODEC_BUDGET };
  }
  const { row, price } = planPrice(p.facts as RouteFacts | null, input, p.target as ImageFormat | null, p.pixels, p.inputBytes, p.quality);
  const admitted = maxRecodePixels(input, price, p.inputBytes) >= p.pixels;
  return { row, price, pixels: p.pixels, estimate: estimateCodecBytes(p.pixels, price, p.inputBytes), admitted };
}
