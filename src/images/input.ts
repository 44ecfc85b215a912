// Getting the bytes of an input image from what the client sent (`image` is an
// https URL or a base64 data URI, `imageBase64` its alias). Only the bytes: sniffing the format
// and decoding happen later, elsewhere. Every failure is a PixelgateError naming the field.

import { PixelgateError } from "../errors";
import { inlineUploadOf } from "./inline-body";
import { decodeBareBase64, decodeDataUri } from "./inline-image";
import { fetchImage, type Fetcher } from "./url-fetch";
import { checkImageUrl } from "./url-policy";

export { IMAGE_FETCH_TIMEOUT_MS, MAX_IMAGE_REDIRECTS, MAX_INPUT_IMAGE_BYTES } from "./limits";

export interface LoadedImageBytes {
  bytes: Uint8Array;
  /** `hosted`: one of this service's own result files, read from storage. */
  source: "data-uri" | "base64" | "url" | "hosted";
  /** What the sender claimed (data URI media type, or the response's Content-Type); never trusted for the format. */
  declaredType: string | null;
  /** For `source: "url"`: the URL the bytes came from, after redirects. */
  url?: string;
}

export interface LoadImageOptions {
  /** The request field the value came from; every error names it. */
  param: string;
  /** Defaults to the global fetch; tests pass one to observe calls. */
  fetcher?: typeof fetch;
  /** Whole-fetch budget; defaults to 10 s. */
  timeoutMs?: number;
  /** This service's result files: URLs under `${baseUrl}/files/` are read from here, not fetched. */
  ownFiles?: OwnFiles;
}

export interface OwnFiles {
  baseUrl: string;
  /** The stored result file of that name (the part after `/files/`), or null when there is none. */
  open(name: string): Promise<R2ObjectBody | null>;
}

/**
 * `image` wins when both are sent; `imageBase64` is its alias. A field counts as sent unless it
 * is absent or null (JSON clients often send null for "not set"). Errors about the value then
 * name the field the client actually used.
 */
export function pickImageField(body: { image?: unknown; imageBase64?: unknown }): { value: unknown; param: "image" | "imageBase64" } {
  if (body.image !== undefined && body.image !== null) return { value: body.image, param: "image" };
  if (body.imageBase64 !== undefined && body.imageBase64 !== null) return { value: body.imageBase64, param: "imageBase64" };
  throw new PixelgateError("missing_parameter", "An input image is required: send `image` as an https URL or a base64 data URI.", { param: "image" });
}

// A scheme ("https:", "ftp:", "javascript:") or a scheme-relative "//host": a URL, not base64,
// since neither ':' nor a leading "//" followed by a host fits base64 text.
const LOOKS_LIKE_URL = /^([a-z][a-z0-9+.-]*:|\/\/)/i;

export async function loadImageBytes(value: unknown, options: LoadImageOptions): Promise<LoadedImageBytes> {
  const { param } = options;
  if (value === undefined || value === null) {
    throw new PixelgateError("missing_parameter", "An input image is required.", { param });
  }
  if (typeof value !== "string") {
    throw new PixelgateError("invalid_parameter", "The image must be a string: an https URL, a base64 data URI or base64.", { param });
  }
  const text = value.trim();
  if (text === "") throw new PixelgateError("missing_parameter", "The image is empty.", { param });
  const spliced = inlineUploadOf(text); // decoded while the body was read (inline-body.ts)
  if (spliced) return spliced;

  const kind = /^data:/i.test(text) ? "data-uri" : LOOKS_LIKE_URL.test(text) ? "url" : "base64";
  try {
    if (kind === "data-uri") return { ...decodeDataUri(text, param), source: "data-uri" };
    if (kind === "base64") return { ...decodeBareBase64(text, param), source: "base64" };
    return (await loadOwnFile(text, options)) ?? (await loadFromUrl(text, options));
  } catch (error) {
    if (error instanceof PixelgateError) throw error;
    // Nothing untyped leaves this module: an unexpected failure still answers 400 for the field.
    throw kind === "url"
      ? new PixelgateError("image_fetch_failed", "The image URL could not be fetched.", { param })
      : new PixelgateError("invalid_image", "The image could not be read.", { param });
  }
}

/**
 * A result of this service (same origin as its public base URL, path /files/...) is read straight
 * from storage: results can be chained without a network round trip to ourselves, which the
 * URL policy would refuse anyway when the service runs on a private address (local dev).
 */
async function loadOwnFile(text: string, options: LoadImageOptions): Promise<LoadedImageBytes | null> {
  const own = options.ownFiles;
  if (!own) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.origin !== new URL(own.baseUrl).origin || !url.pathname.startsWith("/files/")) return null;
  const stored = await own.open(decodeURIComponent(url.pathname.slice("/files/".length)));
  if (!stored) {
    throw new PixelgateError("image_fetch_failed", "There is no result file at this address of ours (mistyped, or deleted).", { param: options.param });
  }
  return { bytes: new Uint8Array(await stored.arrayBuffer()), source: "hosted", declaredType: stored.httpMetadata?.contentType ?? null, url: url.href };
}

async function loadFromUrl(text: string, options: LoadImageOptions): Promise<LoadedImageBytes> {
  const { param } = options;
  const url = checkImageUrl(text);
  if (!(url instanceof URL)) {
    throw new PixelgateError("image_fetch_failed", `The image URL ${url.refused}; only public https URLs are fetched.`, { param });
  }
  // The global is looked up per call (so a test or a later polyfill is seen) and called as a
  // plain function, never detached from its global.
  const fetcher: Fetcher = options.fetcher ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs) && options.timeoutMs > 0 ? options.timeoutMs : undefined;
  const fetched = await fetchImage(url, { param, fetcher, timeoutMs });
  return { bytes: fetched.bytes, source: "url", declaredType: fetched.contentType, url: fetched.finalUrl };
}
