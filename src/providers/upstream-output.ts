import { Buffer } from "node:buffer";
import { FORMAT_INFO, sniffFormat } from "../codecs";
import { decodeBase64 } from "../images/base64";
import { MAX_UPSTREAM_BODY_BYTES, UpstreamClient, discard } from "./upstream-http";
import type { ProviderOutput, TaskImage } from "./types";

// Turning what an upstream made into bytes we can trust: base64 payloads, data URIs and output
// file URLs. A first look at the magic bytes happens here so the error can say which provider
// sent what; run.ts still reads the header of every encoded result before it is stored.

/** An input image as the data URI upstream JSON APIs accept. */
export function dataUriOf(image: TaskImage): string {
  return `data:${FORMAT_INFO[image.format].mime};base64,${Buffer.from(image.bytes).toString("base64")}`;
}

/** Encoded raster bytes, refused as the provider's failure when they are not an image. */
export function encodedImage(upstream: UpstreamClient, bytes: Uint8Array, what: string): ProviderOutput {
  const format = sniffFormat(bytes);
  if (format === null || format === "svg") {
    throw upstream.failure(`returned ${what} that is not an image (${bytes.length} bytes of something else).`);
  }
  return { kind: "encoded", bytes };
}

/** SVG markup, refused when the bytes are not SVG. */
export function svgMarkup(upstream: UpstreamClient, bytes: Uint8Array, what: string): ProviderOutput {
  if (sniffFormat(bytes) !== "svg") throw upstream.failure(`returned ${what} that is not SVG markup.`);
  return { kind: "svg", markup: new TextDecoder().decode(bytes) };
}

export function decodeBase64Image(upstream: UpstreamClient, text: string, what: string): Uint8Array {
  // Checked before decoding: 4 characters per 3 bytes.
  if (text.length > (MAX_UPSTREAM_BODY_BYTES / 3) * 4) throw upstream.failure(`returned ${what} over the size limit.`);
  const decoded = decodeBase64(text);
  if ("malformed" in decoded) throw upstream.failure(`returned ${what} whose base64 is malformed (${decoded.malformed}).`);
  return decoded.bytes;
}

/** `data:[type][;base64],payload` as some providers return small outputs inline. */
export function decodeDataUri(upstream: UpstreamClient, uri: string, what: string): Uint8Array {
  const comma = uri.indexOf(",");
  const meta = comma > 0 ? uri.slice(5, comma) : "";
  if (comma < 0 || !/^data:/i.test(uri)) throw upstream.failure(`returned ${what} as a malformed data URI.`);
  const payload = uri.slice(comma + 1);
  if (/;base64$/i.test(meta)) return decodeBase64Image(upstream, payload, what);
  try {
    return new TextEncoder().encode(decodeURIComponent(payload));
  } catch {
    throw upstream.failure(`returned ${what} as a malformed data URI.`);
  }
}

export interface OutputFileOptions {
  /** Sent only when the file lives on the API's own origin (the provider's authenticated files API). */
  authorization?: { origin: string; header: string };
}

/**
 * Downloads an output file the provider points to: https only, image/* only, size-limited while
 * streaming. The URL comes from the provider, not the client, but it is still checked: a plain
 * http or odd scheme would mean a misbehaving upstream.
 */
export async function fetchOutputFile(upstream: UpstreamClient, href: string, options: OutputFileOptions = {}): Promise<Uint8Array> {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw upstream.failure("returned an output that is not a URL.");
  }
  if (url.protocol !== "https:") throw upstream.failure(`returned an output URL that is not https (${url.protocol}).`);
  const headers: Record<string, string> = { Accept: "image/*" };
  if (options.authorization && url.origin === options.authorization.origin) headers.Authorization = options.authorization.header;
  const response = await upstream.send(url.href, { method: "GET", headers, redirect: "follow" });
  if (!response.url.startsWith("https:") && response.url !== "") {
    discard(response);
    throw upstream.failure("redirected its output file to a URL that is not https.");
  }
  await upstream.expectOk(response, "for the output file");
  const type = response.headers.get("Content-Type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (!type.startsWith("image/")) {
    discard(response);
    throw upstream.failure(`served its output file as ${type ? `"${type}"` : "no Content-Type"}, not an image.`);
  }
  const declared = Number(response.headers.get("Content-Length") ?? "NaN");
  if (declared > MAX_UPSTREAM_BODY_BYTES) {
    discard(response);
    throw upstream.failure(`declared an output file of ${declared} bytes, over the ${MAX_UPSTREAM_BODY_BYTES / 1024 / 1024} MB limit.`);
  }
  return upstream.readBytes(response, MAX_UPSTREAM_BODY_BYTES);
}
