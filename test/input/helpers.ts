import { expect } from "vitest";
import { type ErrorCode, PixelgateError } from "../../src/errors";

// Shared by the input-image tests: the one way a failure may look, and fetchers that record calls.

/** The promise must reject with a PixelgateError of this code naming this field; returns it. */
export async function expectRefusal(promise: Promise<unknown>, code: ErrorCode, param: string): Promise<PixelgateError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected ${code}, but it resolved: ${JSON.stringify(value, (_k, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v))}`);
    },
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(PixelgateError);
  const typed = error as PixelgateError;
  expect({ code: typed.code, param: typed.param }).toEqual({ code, param });
  expect(typed.message.length).toBeGreaterThan(0);
  return typed;
}

/** A fetcher that must never be called: it records the attempt and fails it. */
export function countingFetcher(): { fetcher: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const fetcher = async (input: RequestInfo | URL): Promise<Response> => {
    calls.push(String(input instanceof Request ? input.url : input));
    throw new Error("the network must not be reached");
  };
  return { fetcher, calls };
}

/** Passes every call on to the real global fetch, recording the URLs asked for. */
export function observingFetcher(): { fetcher: typeof fetch; calls: string[]; inits: Array<RequestInit | undefined> } {
  const calls: string[] = [];
  const inits: Array<RequestInit | undefined> = [];
  const fetcher = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    calls.push(String(input instanceof Request ? input.url : input));
    inits.push(init);
    return fetch(input, init);
  };
  return { fetcher, calls, inits };
}

/** Standard base64 of arbitrary bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function toUrlSafe(base64: string): string {
  return base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
