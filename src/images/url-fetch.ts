// Fetching a reference image from a client's https URL under the input limits: 10 s for the
// whole exchange, at most 20 MB, image/* only, no private hosts. Redirects are followed by hand
// so that every hop is checked by the same URL policy before anything is sent to it; the
// runtime's automatic redirects would go to a private address without asking.

import { PixelgateError } from "../errors";
import { IMAGE_FETCH_TIMEOUT_MS, MAX_IMAGE_REDIRECTS, MAX_INPUT_IMAGE_BYTES, MAX_INPUT_IMAGE_MB } from "./limits";
import { checkImageUrl } from "./url-policy";

export type Fetcher = (input: string, init: RequestInit) => Promise<Response>;

export interface FetchImageOptions {
  param: string;
  fetcher: Fetcher;
  timeoutMs?: number;
}

export interface FetchedImage {
  bytes: Uint8Array;
  /** The response's media type (lower-case, parameters dropped), e.g. "image/png". */
  contentType: string;
  /** The URL the bytes came from, after redirects. */
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Fetches the image at an already-checked https URL. Every failure is a PixelgateError. */
export async function fetchImage(url: URL, options: FetchImageOptions): Promise<FetchedImage> {
  const { param } = options;
  const timeoutMs = options.timeoutMs ?? IMAGE_FETCH_TIMEOUT_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error("image fetch deadline")), timeoutMs);
  const failed = (reason: string) => new PixelgateError("image_fetch_failed", `The image URL ${reason}.`, { param });
  // Every await below races the deadline, so the budget holds even for a fetcher or a body
  // stream that ignores the abort signal.
  const withinDeadline = <T>(step: Promise<T>): Promise<T> =>
    raceAbort(step, deadline.signal).catch((error: unknown) => {
      if (error instanceof PixelgateError) throw error;
      if (deadline.signal.aborted) throw failed(`did not answer within ${timeoutMs / 1000} s`);
      throw failed("could not be fetched (network error)");
    });

  try {
    let current = url;
    for (let redirects = 0; ; redirects++) {
      const response = await withinDeadline(
        options.fetcher(current.href, {
          method: "GET",
          redirect: "manual",
          signal: deadline.signal,
          headers: { Accept: "image/*", "User-Agent": "Pixelgate-ImageFetcher/1.0" },
        }),
      );

      if (REDIRECT_STATUSES.has(response.status)) {
        discard(response);
        if (redirects >= MAX_IMAGE_REDIRECTS) throw failed(`redirected more than ${MAX_IMAGE_REDIRECTS} times`);
        const location = response.headers.get("Location");
        if (!location) throw failed(`answered a redirect (HTTP ${response.status}) without a Location`);
        const next = checkImageUrl(location, current);
        if (!(next instanceof URL)) throw failed(`redirected to a location that is refused: it ${next.refused}`);
        current = next;
        continue;
      }

      if (response.status < 200 || response.status > 299) {
        discard(response);
        throw failed(`answered HTTP ${response.status} instead of an image`);
      }

      const contentType = mediaTypeOf(response.headers.get("Content-Type"));
      if (contentType === null || !/^image\/[^/\s]+$/.test(contentType)) {
        discard(response);
        // SVG (image/svg+xml) passes here on purpose: the caller sniffs the bytes and refuses it there.
        throw failed(`answered ${contentType ? `Content-Type ${contentType}` : "no Content-Type"}, not an image/* type`);
      }

      const declared = declaredLength(response.headers.get("Content-Length"));
      if (declared !== null && declared > MAX_INPUT_IMAGE_BYTES) {
        discard(response);
        throw tooLarge(param, `declares ${declared} bytes`);
      }

      const bytes = await readAtMost(response, declared, withinDeadline, param);
      if (bytes.length === 0) throw new PixelgateError("invalid_image", "The image URL answered an empty body.", { param });
      return { bytes, contentType, finalUrl: current.href };
    }
  } catch (error) {
    deadline.abort(); // tears down whatever subrequest is still open
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads the body, counting bytes as they arrive (decoded bytes: a gzip body's Content-Length
 * says nothing about its real size) and giving up the moment the limit is passed.
 */
async function readAtMost(
  response: Response,
  declared: number | null,
  withinDeadline: <T>(step: Promise<T>) => Promise<T>,
  param: string,
): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  // An honest Content-Length lets the whole body land in one allocation; otherwise grow by doubling.
  let buffer = new Uint8Array(declared ?? 64 * 1024);
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await withinDeadline(reader.read());
      if (done) break;
      if (length + value.byteLength > MAX_INPUT_IMAGE_BYTES) throw tooLarge(param, "sent more bytes than that");
      if (length + value.byteLength > buffer.length) {
        const grown = new Uint8Array(Math.min(MAX_INPUT_IMAGE_BYTES, Math.max(buffer.length * 2, length + value.byteLength)));
        grown.set(buffer.subarray(0, length));
        buffer = grown;
      }
      buffer.set(value, length);
      length += value.byteLength;
    }
  } catch (error) {
    reader.cancel().catch(() => {}); // not awaited: a stalled stream must not hold up the answer
    throw error;
  }
  // Exact-length result, so code that reads bytes.buffer never sees spare capacity.
  return length === buffer.length ? buffer : buffer.slice(0, length);
}

function tooLarge(param: string, what: string): PixelgateError {
  return new PixelgateError("image_too_large", `The image URL ${what}: the limit for one input image is ${MAX_INPUT_IMAGE_MB} MB.`, { param });
}

/** "Image/PNG; charset=binary" -> "image/png"; null when absent or empty. */
function mediaTypeOf(header: string | null): string | null {
  const type = header?.split(";")[0]?.trim().toLowerCase();
  return type ? type : null;
}

function declaredLength(header: string | null): number | null {
  return header !== null && /^\s*\d+\s*$/.test(header) ? Number(header) : null;
}

/** Drops a body we will not read, so the connection is released. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

function raceAbort<T>(step: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    step.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
