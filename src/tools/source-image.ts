import { assertDecodable, assertSafeToDecode, readHeader, sniffFormat } from "../codecs";
import type { ImageFormat } from "../codecs/formats";
import { PixelgateError, type ErrorCode } from "../errors";
import { loadImageBytes, pickImageField, type OwnFiles } from "../images/input";
import type { ToolContext } from "./types";
import { formatLatency } from "../usage/log";
import { Buffer } from "node:buffer";

// The input image of a tool, checked before any charge: bytes loaded (data URI, base64 or https
// URL), format sniffed from magic bytes, dimensions read from the header and held to the pixel
// limit. Pixels are decoded only later, after the reservation.

export interface SourceImage {
  bytes: Uint8Array;
  format: ImageFormat;
  width: number;
  height: number;
}

/** What loading and checking an input image can answer, besides the errors of every billed call. */
export const IMAGE_INPUT_ERRORS: ErrorCode[] = ["image_too_large", "unsupported_image_format", "invalid_image", "image_fetch_failed"];

export const imageFields = {
  description: "An https URL or a base64 data URI (bare base64 works too). `imageBase64` is an alias.",
};

/** Where a call's own result URLs are read from (see images/input). */
export function ownFilesOf(ctx: Pick<ToolContext, "env" | "baseUrl">): OwnFiles {
  return { baseUrl: ctx.baseUrl, bucket: ctx.env.FILES };
}

export async function sourceImageOf(body: { image?: unknown; imageBase64?: unknown }, ctx: Pick<ToolContext, "env" | "baseUrl">): Promise<SourceImage> {
  const { value, param } = pickImageField(body);
  return loadSourceImage(value, param, ownFilesOf(ctx));
}

/** One input image from a request field, checked as far as can be done without decoding it. */
export async function loadSourceImage(value: unknown, param: string, ownFiles?: OwnFiles): Promise<SourceImage> {
  const { bytes } = await loadImageBytes(value, { param, ownFiles });
  const format = sniffFormat(bytes);
  if (format === "svg") {
    throw new PixelgateError("unsupported_image_format", "SVG input is not accepted; send a raster image (PNG, JPEG, WebP, AVIF, GIF, BMP or TIFF).", { param });
  }
  if (format === null) {
    throw new PixelgateError("unsupported_image_format", "The image is not PNG, JPEG, WebP, AVIF, GIF, BMP or TIFF.", { param });
  }
  const header = readHeader(bytes, format);
  assertDecodable(header);
  assertSafeToDecode(bytes, header); // file structure (scan counts, frames, TIFF strips): hostile files stay free
  return { bytes, format, width: header.width, height: header.height };
}

/** `<n> KB`, the form results show sizes in. */
export function kilobytes(byteCount: number): string {
  return `${(byteCount / 1024).toFixed(2)} KB`;
}

export function dataUri(bytes: Uint8Array, mime: string): string {
  return `data:${mime};base64,${base64Of(bytes)}`;
}

export function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Seconds with an `s` suffix, as results show latency. */
export function latencySince(startedAt: number): string {
  return formatLatency(Date.now() - startedAt);
}
