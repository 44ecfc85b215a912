// The batches `npm run bench:batch` times. I/O-bound: items served by fake upstream models that
// answer after a fixed delay (test/upstream/chaos.ts `fake/delay-<ms>`), with small pictures so
// the fake's own PNG work stays negligible, as a real provider's GPU time costs our worker
// nothing. CPU-bound, for information: compress, convert and the built-in local models, which
// all share the one isolate's thread.
import { delayModel } from "../../test/upstream/chaos.ts";
import type { Pictures } from "../stress/inputs.ts";
import type { ModelRow } from "../stress/worker.ts";

export interface BatchItem {
  tool: string;
  /** The single-call path of the same item. */
  path: string;
  args: Record<string, unknown>;
}

export interface BatchCase {
  name: string;
  kind: "io" | "cpu";
  items: BatchItem[];
}

export function delayRows(delayMs: number): ModelRow[] {
  const upstreamModel = delayModel(delayMs);
  return [
    { modelId: "bench-delay-cutout", provider: "replicate", upstreamModel, task: "remove_bg", costPerReq: 8 },
    { modelId: "bench-delay-upscale", provider: "replicate", upstreamModel, task: "upscale", costPerReq: 15 },
    { modelId: "bench-delay-svg", provider: "replicate", upstreamModel, task: "svg", costPerReq: 5 },
  ];
}

const times = (count: number, make: (i: number) => BatchItem) => Array.from({ length: count }, (_, i) => make(i));

export function batchCases(pictures: Pictures, size: number): BatchCase[] {
  const cutout = (model: string): BatchItem => ({ tool: "remove_background", path: "/v1/remove-background", args: { image: pictures.png64, model } });
  const upscale = (model: string): BatchItem => ({ tool: "upscale_image", path: "/v1/upscale", args: { image: pictures.png64, scaleFactor: "2x", model } });
  const svg = (model: string, i: number): BatchItem => ({ tool: "text_to_svg", path: "/v1/text-to-svg", args: { prompt: `a blue rocket number ${i}`, model, seed: i } });
  const mixed = [() => cutout("bench-delay-cutout"), () => upscale("bench-delay-upscale"), (i: number) => svg("bench-delay-svg", i)];
  return [
    { name: "upstream delay: remove-background", kind: "io", items: times(size, () => cutout("bench-delay-cutout")) },
    { name: "upstream delay: cut-out/upscale/svg", kind: "io", items: times(size, (i) => mixed[i % mixed.length]!(i)) },
    { name: "compress (128 px PNG -> WebP)", kind: "cpu", items: times(size, () => ({ tool: "compress_image", path: "/v1/compress", args: { image: pictures.png128, targetFormat: "webp" } })) },
    { name: "convert-format (128 px PNG -> JPEG)", kind: "cpu", items: times(size, () => ({ tool: "convert_format", path: "/v1/convert-format", args: { image: pictures.png128, targetFormat: "jpeg" } })) },
    { name: "local generate (1024 px)", kind: "cpu", items: times(size, (i) => ({ tool: "generate_image", path: "/v1/generate", args: { prompt: "a red balloon over hills", model: "local-draw-v1", seed: i } })) },
    { name: "local remove-background (128 px)", kind: "cpu", items: times(size, () => ({ tool: "remove_background", path: "/v1/remove-background", args: { image: pictures.png128, model: "local-cutout-v1" } })) },
    { name: "local upscale 4x (64 px)", kind: "cpu", items: times(size, () => ({ tool: "upscale_image", path: "/v1/upscale", args: { image: pictures.png64, scaleFactor: "4x", model: "local-lanczos-v1" } })) },
    { name: "local text-to-svg", kind: "cpu", items: times(size, (i) => svg("local-svg-v1", i)) },
  ];
}
