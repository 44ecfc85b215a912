import { assertDecodable, assertSafeToDecode, assertWithinPixelLimit, FORMAT_INFO, maxPixelsFor, readHeader, sniffFormat } from "../codecs";
import type { InputFormat } from "../codecs/formats";
import { MAX_HEADER_SIDE } from "../codecs/limits";
import { PixelgateError, type ErrorCode } from "../errors";
import { loadImageBytes, pickImageField, type OwnFiles } from "../images/input";
import { openResult } from "../storage/results";
import type { ToolContext } from "./types";
import { formatLatency } from "../usage/log";

// The input image of a tool, checked before any charge: bytes loaded (data URI, base64 or https
// URL), format sniffed from magic bytes, dimensions read from the header and held to the pixel
// limit of its format, the one compress and convert read it within (codecs/limits.ts
// maxPixelsFor: a 24 MP JPEG, a 12 MP PNG, WebP or HEIC). Pixels are decoded only later, after
// the reservation; what the work costs is priced by the memory gate first (tools/model-work.ts
// for the model tools, codec-work.ts for compress and convert).

export interface SourceImage {
  bytes: Uint8Array;
  format: InputFormat;
  width: number;
  height: number;
}

/** An input of the codec tools (compress, convert). */
export type CodecSource = SourceImage;

/** What loading and checking an input image can answer, besides the errors of every billed call. */
export const IMAGE_INPUT_ERRORS: ErrorCode[] = ["image_too_large", "unsupported_image_format", "invalid_image", "image_fetch_failed"];

export const imageFields = {
  description: "An https URL or a base64 data URI (bare base64 works too). `imageBase64` is an alias.",
};

/** Where a call's own result URLs are read from (see images/input). */
export function ownFilesOf(ctx: Pick<ToolContext, "env" | "baseUrl">): OwnFiles {
  return { baseUrl: ctx.baseUrl, open: (name) => openResult(ctx.env.FILES, name) };
}

export async function sourceImageOf(body: { image?: unknown; imageBase64?: unknown }, ctx: Pick<ToolContext, "env" | "baseUrl">): Promise<SourceImage> {
  const { value, param } = pickImageField(body);
  return loadSourceImage(value, param, ownFilesOf(ctx));
}

export async function codecSourceOf(body: { image?: unknown; imageBase64?: unknown }, ctx: Pick<ToolContext, "env" | "baseUrl">): Promise<CodecSource> {
  const { value, param } = pickImageField(body);
  return loadCodecSource(value, param, ownFilesOf(ctx));
}

/**
 * One input image of a model tool: what compress and convert take, HEIC included (the provider
 * is sent a copy in a format it documents: providers/accepted-inputs.ts).
 */
export async function loadSourceImage(value: unknown, param: string, ownFiles?: OwnFiles): Promise<SourceImage> {
  return loadCodecSource(value, param, ownFiles);
}

/** One input image from a request field, checked as far as can be done without decoding it. */
export async function loadCodecSource(value: unknown, param: string, ownFiles?: OwnFiles): Promise<CodecSource> {
  const { bytes } = await loadImageBytes(value, { param, ownFiles });
  const format = sniffFormat(bytes);
  if (format === "svg") {
    throw new PixelgateError("unsupported_image_format", "SVG input is not accepted; send a raster image (PNG, JPEG, WebP, AVIF, HEIC, GIF, BMP or TIFF).", { param });
  }
  if (format === null) {
    throw new PixelgateError("unsupported_image_format", "The image is not PNG, JPEG, WebP, AVIF, HEIC, GIF, BMP or TIFF.", { param });
  }
  const header = readHeader(bytes, format);
  // The format's pixel limit, named on this field (assertDecodable's own names `image`); an
  // impossible side is assertDecodable's invalid_image.
  if (Math.max(header.width, header.height) <= MAX_HEADER_SIDE) assertWithinPixelLimit(header.width, header.height, maxPixelsFor(format), `read as ${FORMAT_INFO[format].label}`, param);
  assertDecodable(header);
  assertSafeToDecode(bytes, header); // file structure (scan counts, frames, TIFF strips): hostile files stay free
  return { bytes, format, width: header.width, height: header.height };
}

/** `<n> KB`, the form results show sizes in. */
export function kilobytes(byteCount: number): string {
  return `${(byteCount / 1024).toFixed(2)} KB`;
}

/** Seconds with an `s` suffix, as results show latency. */
export function latencySince(startedAt: number): string {
  return formatLatency(Date.now() - startedAt);
}
