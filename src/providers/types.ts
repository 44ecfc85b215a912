import type { ImageFormat, InputFormat, RasterImage, RasterRows } from "../codecs/formats";
import type { Env } from "../env";
import type { Model, ModelProvider } from "../models/catalog";
import type { AcceptedInputs } from "./accepted-inputs";

// The one small interface every model provider implements.
// A tool turns its request into a ProviderTask, the model row picks the adapter, the adapter
// does the work and returns pixels, encoded bytes or SVG markup. Everything around the call
// (credits, storing, logging, response shapes) belongs to the tools and the billed-call path.

/**
 * An input image that passed the pre-charge checks: sniffed, header read, within limits. Its
 * size is the header's (before any EXIF orientation); a HEIC is read here and never sent on.
 */
export interface TaskImage {
  bytes: Uint8Array;
  format: InputFormat;
  width: number;
  height: number;
}

/** An input image as a provider is sent it (accepted-inputs.ts): in a format it documents. */
export interface SentImage extends TaskImage {
  format: ImageFormat;
}

/** `1:1`, `16:9`, ... parsed: width and height units, both positive integers. */
export interface AspectRatio {
  label: string;
  width: number;
  height: number;
}

export interface GenerateTask {
  kind: "generate";
  prompt: string;
  aspectRatio: AspectRatio;
  seed: number;
  /** `image` and `referenceImages` merged, at most 8. */
  references: TaskImage[];
}

export interface EditTask {
  kind: "edit";
  /** The instruction. For `action: remove_bg` and `upscale` the tool fills in a fixed one. */
  prompt: string;
  action: "edit" | "remove_bg" | "upscale";
  image: TaskImage;
  aspectRatio: AspectRatio;
  seed: number;
}

export interface RemoveBackgroundTask {
  kind: "remove_bg";
  image: TaskImage;
}

export type ScaleFactor = 2 | 4 | 8;

export interface UpscaleTask {
  kind: "upscale";
  image: TaskImage;
  factor: ScaleFactor;
}

export interface SvgTask {
  kind: "svg";
  prompt: string;
  style: string;
  seed: number;
}

export type ProviderTask = GenerateTask | EditTask | RemoveBackgroundTask | UpscaleTask | SvgTask;
/** The tasks that carry a seed. */
export type SeededKind = (GenerateTask | EditTask | SvgTask)["kind"];
export type TaskKind = ProviderTask["kind"];

/**
 * What a provider hands back. `raster` when it computed pixels itself (the tool encodes them),
 * `rows` when it makes them as they are written (the tool streams them into the hosted file),
 * `encoded` when the upstream sent a finished file (the tool checks it really is an image),
 * `svg` for markup (the tool sanitises it). `costUsd` is the provider's price when known.
 */
export type ProviderOutput =
  | { kind: "raster"; image: RasterImage; costUsd?: number }
  | { kind: "rows"; rows: RasterRows; costUsd?: number }
  | { kind: "encoded"; bytes: Uint8Array; costUsd?: number }
  | { kind: "svg"; markup: string; costUsd?: number };

export interface ProviderCall {
  env: Env;
  /** The model row chosen for this call; `upstreamModel` is the provider's own id. */
  model: Model;
  /** This service's public origin (PUBLIC_BASE_URL or the request's): links to input copies start with it. */
  publicBaseUrl: string;
  /** Aborted at UPSTREAM_TIMEOUT_MS; adapters pass it to every fetch. */
  signal: AbortSignal;
  /**
   * Keeps the isolate alive for work that must outlive the answer, such as cancelling an
   * upstream job our deadline gave up on. Absent (tests, the local provider): the work runs
   * for as long as the isolate does.
   */
  waitUntil?: (work: Promise<unknown>) => void;
}

export interface ImageProvider {
  readonly name: ModelProvider;
  /** The kinds of task whose result depends on the seed sent: only their answers report one. */
  readonly seeded: readonly SeededKind[];
  /**
   * Refuses, before any credit is taken, a task this provider cannot do for this model (an edit
   * instruction the local editor does not know, an upscale whose output would be too large).
   * Throws PixelgateError with a 4xx code. Optional: most upstreams accept anything well-formed.
   */
  check?(task: ProviderTask, model: Model): void;
  /**
   * What the model documents it takes as input images (accepted-inputs.ts): runModel makes every
   * input image fit it before the upstream's time limit starts, and the memory gate prices that
   * work before the charge. Absent: the adapter takes any image the tools accept (local).
   */
  accepts?(model: Model): AcceptedInputs;
  /**
   * Bytes the call's own codec work needs at its peak in this isolate (a local model's decoding
   * and encoding), from the headers, before any credit is taken: the memory gate admits the call
   * with it. An adapter with `accepts` is priced from that instead.
   */
  memoryFor?(task: ProviderTask, model: Model): number;
  /**
   * Does the work. Failures of the upstream are PixelgateError `upstream_error` or
   * `upstream_timeout` (refunded); a bug of ours is anything else (500, not refunded).
   */
  run(task: ProviderTask, call: ProviderCall): Promise<ProviderOutput>;
}
