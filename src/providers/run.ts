import { encodeImage, pngPieces, readHeader, sniffFormat, type ImageFormat } from "../codecs";
import { settingsOf } from "../config/settings";
import type { Env } from "../env";
import { PixelgateError } from "../errors";
import type { Model } from "../models/catalog";
import { sanitizeSvg } from "../svg/sanitize";
import { providerOf } from "./registry";
import { acceptedImagesBytes, withAcceptedImages } from "./accepted-inputs";
import type { ProviderOutput, ProviderTask, SeededKind } from "./types";

// Calling a model: the adapter chosen by the row, under the upstream time limit, and its answer
// turned into something the tools can store. What an upstream sends is checked here, once: an
// image must really be one, SVG is sanitised. Anything unusable is the provider's failure
// (502, refunded), not ours.

export interface ImageOutput {
  kind: "image";
  bytes: Uint8Array;
  format: ImageFormat;
  width: number;
  height: number;
  costUsd?: number;
}

/**
 * An image made as it is written (the local upscaler's rows, written by codecs/native.ts
 * pngPieces): its pieces, read once, by whoever hosts it. The file never exists whole.
 */
export interface StreamedImageOutput {
  kind: "streamed";
  pieces: AsyncIterable<Uint8Array>;
  format: "png";
  width: number;
  height: number;
  costUsd?: number;
}

export type ModelOutput = ImageOutput | StreamedImageOutput | { kind: "svg"; markup: string; costUsd?: number };

/** The pre-charge check of the model's provider (free 4xx). */
export function checkTask(task: ProviderTask, model: Model): void {
  providerOf(model.provider).check?.(task, model);
}

/**
 * Bytes the call's own codec work needs at its peak (its provider's memoryFor: input images made
 * acceptable, the local models' decoding and encoding); 0 when it does none.
 */
export function memoryForTask(task: ProviderTask, model: Model): number {
  const provider = providerOf(model.provider);
  const accepts = provider.accepts?.(model);
  return accepts ? acceptedImagesBytes(task, accepts) : (provider.memoryFor?.(task, model) ?? 0);
}

/** `{ seed }` when the model's provider uses the seed for this kind of task, else nothing: a result reports only a seed that was used. */
export function seedUsed(model: Model, task: { kind: SeededKind; seed: number }): { seed?: number } {
  return providerOf(model.provider).seeded.includes(task.kind) ? { seed: task.seed } : {};
}

/** What runModel needs of the call it serves (a ToolContext has both). */
export interface ModelCaller {
  env: Env;
  /** This service's public origin, for links to input copies a provider fetches. */
  baseUrl: string;
  /** Keeps the isolate alive for work that outlives the answer (see ProviderCall). */
  waitUntil: (work: Promise<unknown>) => void;
}

export async function runModel(caller: ModelCaller, model: Model, task: ProviderTask): Promise<ModelOutput> {
  const output = await (model.provider === "local" ? runLocally(caller, model, task) : runUpstream(caller, model, task));
  if (output.kind === "svg") return { kind: "svg", markup: sanitizeSvg(output.markup), costUsd: output.costUsd };
  if (output.kind === "rows") {
    const { rows } = output;
    return { kind: "streamed", pieces: pngPieces(rows), format: "png", width: rows.width, height: rows.height, costUsd: output.costUsd };
  }
  if (output.kind === "raster") {
    const bytes = await encodeImage(output.image, "png");
    return { kind: "image", bytes, format: "png", width: output.image.width, height: output.image.height, costUsd: output.costUsd };
  }
  return { ...imageOf(output.bytes, model), costUsd: output.costUsd };
}

/**
 * The built-in provider is CPU work in this isolate: there is no upstream to wait for and
 * nothing a timer could interrupt, so the upstream time limit does not apply to it.
 */
function runLocally({ env, baseUrl }: ModelCaller, model: Model, task: ProviderTask): Promise<ProviderOutput> {
  return providerOf("local").run(task, { env, model, publicBaseUrl: baseUrl, signal: new AbortController().signal });
}

async function runUpstream({ env, baseUrl, waitUntil }: ModelCaller, model: Model, sent: ProviderTask): Promise<ProviderOutput> {
  // The input images are made acceptable here, before the upstream's time limit starts: a 12 MP
  // photo turned upright or a HEIC converted is our work, not the provider's (the adapter then
  // finds them acceptable as they are).
  const accepts = providerOf(model.provider).accepts?.(model);
  const task = accepts ? await withAcceptedImages(sent, accepts) : sent;
  const timeoutMs = settingsOf(env).upstreamTimeoutMs;
  const timedOut = new PixelgateError("upstream_timeout", `${model.name} did not answer within ${timeoutMs / 1000} s.`);
  const deadline = new AbortController();
  const expired = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => {
      deadline.abort(timedOut);
      reject(timedOut);
    }, timeoutMs);
    deadline.signal.addEventListener("abort", () => clearTimeout(timer));
  });
  expired.catch(() => {}); // settled by the race below, or never observed when the call wins
  try {
    // The race keeps the limit even for an adapter that ignores the signal.
    return await Promise.race([providerOf(model.provider).run(task, { env, model, publicBaseUrl: baseUrl, signal: deadline.signal, waitUntil }), expired]);
  } catch (error) {
    // An adapter that saw the abort may throw whatever its fetch threw: past the deadline, that is a timeout.
    throw deadline.signal.aborted && !(error instanceof PixelgateError) ? timedOut : error;
  } finally {
    deadline.abort(); // clears the timer; adapters still running see the abort
  }
}

/** An upstream file checked from its header: a raster format we know, sensible dimensions. */
function imageOf(bytes: Uint8Array, model: Model): ImageOutput {
  const format = sniffFormat(bytes);
  if (format === null || format === "svg" || format === "heic") {
    // HEIC is never an output format: a model that answers with one is not understood.
    throw new PixelgateError("upstream_error", `${model.name} returned something that is not an image we can pass on.`);
  }
  try {
    const { width, height } = readHeader(bytes, format);
    return { kind: "image", bytes, format, width, height };
  } catch {
    throw new PixelgateError("upstream_error", `${model.name} returned a broken ${format.toUpperCase()} file.`);
  }
}
