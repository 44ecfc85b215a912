import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { decodeImage, encodeImage, readHeader, sniffFormat, type ImageFormat, type InputFormat, type RasterImage } from "../../src/codecs/index.ts";
import { call, withKey } from "./fixtures";

// Calling the image tools as a client would, and reading back what they produced.

export async function dataUriOf(image: RasterImage, format: ImageFormat = "png"): Promise<string> {
  const bytes = await encodeImage(image, format);
  return `data:image/${format};base64,${base64(bytes)}`;
}

export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function bytesOfBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

export function bytesOfDataUri(uri: string): { mime: string; bytes: Uint8Array } {
  const match = /^data:([^;,]+);base64,(.*)$/.exec(uri);
  expect(match, "a base64 data URI").not.toBeNull();
  return { mime: match![1]!, bytes: bytesOfBase64(match![2]!) };
}

export function postTool(path: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call(
    path,
    withKey(key, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) }),
  );
}

/** Downloads a hosted result through the worker and checks the headers a hosted file must carry. */
export async function fetchHosted(url: string, mime: string): Promise<Uint8Array> {
  const response = await call(new URL(url).pathname);
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toBe(mime);
  expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
  expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
  return new Uint8Array(await response.arrayBuffer());
}

export async function decodeAny(bytes: Uint8Array): Promise<{ format: InputFormat; image: RasterImage }> {
  const format = sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error(`not a raster image (${format})`);
  return { format, image: await decodeImage(bytes, readHeader(bytes, format)) };
}

export async function balanceOf(accountId: string): Promise<number> {
  return (await env.LEDGER.getByName(accountId).snapshot()).balance;
}

/**
 * What an Idempotency-Key replay of `first` (a JSON answer's text) must say: the same answer,
 * marked `replayed`, with every `deductedCredits` 0, as nothing was charged by the replay.
 */
export function expectedReplay(first: string): unknown {
  const zeroed = JSON.parse(first, (key, value: unknown) => (key === "deductedCredits" ? 0 : value)) as Record<string, unknown>;
  return { replayed: true, ...zeroed };
}

/** Checks a replay's body against the first answer's text, its Content-Length included. */
export async function expectReplayOf(replay: Response, first: string): Promise<void> {
  expect(replay.headers.get("Idempotency-Replayed")).toBe("true");
  const text = await replay.text();
  expect(new TextEncoder().encode(text).byteLength).toBe(Number(replay.headers.get("Content-Length")));
  expect(text.startsWith('{"replayed":true,')).toBe(true);
  expect(JSON.parse(text)).toEqual(expectedReplay(first));
}

export { usageRows, type LogRow } from "./usage-log";
