import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { decodeImage, encodeImage, readHeader, sniffFormat, type RasterImage } from "../../src/codecs/index.ts";
import type { Env } from "../../src/env.ts";
import { PixelgateError } from "../../src/errors.ts";
import type { Model, ModelProvider, ModelTask } from "../../src/models/catalog.ts";
import type { AspectRatio, ProviderCall, ProviderOutput, TaskImage } from "../../src/providers/types.ts";
import { discOnPlainBackground } from "../support/pictures.ts";
import { FAKE_RECORD_KEYWORD, FAKE_REPLICATE_BASE_URL, FAKE_REPLICATE_TOKEN, type FakeRequestRecord } from "./scenarios.ts";

// Calling an adapter directly inside workerd against the fake upstream, and reading back what the
// fake saw (the record it embeds in every image it makes).

export function modelFor(provider: ModelProvider, upstreamModel: string, task: ModelTask = "image"): Model {
  return {
    modelId: `test-${provider}-${upstreamModel}`,
    name: `Test ${provider} ${upstreamModel}`,
    description: "adapter test",
    provider,
    upstreamModel,
    task,
    costPerReq: 10,
    priority: 0,
    outputsSupported: [task === "svg" ? "svg" : "image"],
    enabled: true,
    retiresAt: null,
    replacedBy: null,
    isLive: true,
  };
}

/** A call with its own deadline (generous unless a test asks for a short one). */
export function callFor(model: Model, options: { timeoutMs?: number; env?: Partial<Env>; waitUntil?: (work: Promise<unknown>) => void } = {}): ProviderCall {
  return { env: { ...env, ...options.env }, model, publicBaseUrl: env.PUBLIC_BASE_URL ?? "https://pixelgate.test", signal: AbortSignal.timeout(options.timeoutMs ?? 20_000), waitUntil: options.waitUntil };
}

/** The fake's state of the Replicate prediction created for `prompt` (GET /v1/predictions, Replicate's list). */
export async function fakeReplicatePrediction(prompt: string): Promise<{ status?: string; input?: Record<string, unknown> } | undefined> {
  const response = await fetch(`${FAKE_REPLICATE_BASE_URL}/v1/predictions`, { headers: { Authorization: `Bearer ${FAKE_REPLICATE_TOKEN}` } });
  const { results } = (await response.json()) as { results: { status?: string; input?: Record<string, unknown> }[] };
  return results.find((prediction) => prediction.input?.prompt === prompt);
}

export function ratio(label: string): AspectRatio {
  const [width, height] = label.split(":").map(Number) as [number, number];
  return { label, width, height };
}

/** A real PNG input image (a disc on a plain background). */
export async function pngInput(width: number, height: number): Promise<TaskImage> {
  const bytes = await encodeImage(discOnPlainBackground(width, height), "png");
  return { bytes, format: "png", width, height };
}

/** The encoded output decoded by our own codecs: it must be a real image. */
export async function decodedOutput(output: ProviderOutput): Promise<{ image: RasterImage; bytes: Uint8Array }> {
  expect(output.kind).toBe("encoded");
  if (output.kind !== "encoded") throw new Error("not encoded");
  const format = sniffFormat(output.bytes);
  expect(format).toBe("png");
  const image = await decodeImage(output.bytes, readHeader(output.bytes, "png"));
  return { image, bytes: output.bytes };
}

/** The request record the fake wrote into a PNG's tEXt chunk. */
export function recordOf(png: Uint8Array): FakeRequestRecord {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  for (let offset = 8; offset + 12 <= png.length; ) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    if (type === "tEXt") {
      const text = new TextDecoder("latin1").decode(png.subarray(offset + 8, offset + 8 + length));
      const [keyword, value] = [text.slice(0, text.indexOf("\0")), text.slice(text.indexOf("\0") + 1)];
      if (keyword === FAKE_RECORD_KEYWORD) return JSON.parse(value) as FakeRequestRecord;
    }
    offset += 12 + length;
  }
  throw new Error("the image carries no fake-request record");
}

/** The record in an SVG output's <desc>. */
export function svgRecordOf(markup: string): FakeRequestRecord {
  const desc = /<desc>([\s\S]*?)<\/desc>/.exec(markup)?.[1];
  if (!desc) throw new Error("the SVG carries no fake-request record");
  return JSON.parse(desc.replace(/&lt;/g, "<").replace(/&amp;/g, "&")) as FakeRequestRecord;
}

/** Awaits a rejection that must be a PixelgateError with this code; returns it for more checks. */
export async function expectFailure(work: Promise<unknown>, code: "upstream_error" | "upstream_timeout" | "invalid_parameter"): Promise<PixelgateError> {
  const error = await work.then(
    () => {
      throw new Error(`expected ${code}, but the call succeeded`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PixelgateError);
  expect((error as PixelgateError).code).toBe(code);
  return error as PixelgateError;
}

export function alphaAt(image: RasterImage, x: number, y: number): number {
  return image.data[(y * image.width + x) * 4 + 3]!;
}
