import { afterEach, describe, expect, it, vi } from "vitest";
import { IMAGE_FETCH_TIMEOUT_MS, loadImageBytes, MAX_INPUT_IMAGE_BYTES } from "../../src/images/input";
import { FAKE_IMAGE_ORIGIN, FAKE_JPEG, FAKE_MIRROR_ORIGIN, FAKE_PNG, FAKE_SVG, SLOW_HOP_MS } from "./fake-image-host";
import { expectRefusal, observingFetcher } from "./helpers";

// Reference images fetched from https URLs (https only, 10 s, 20 MB,
// image/*). These go through the real global fetch: workerd sends real HTTP, and miniflare's
// outboundService (vitest.config.ts) answers it from the fake host in fake-image-host.ts.
// A fetcher is passed only to observe which URLs were asked for; it still calls the real fetch.

const param = "image";
const at = (path: string) => `${FAKE_IMAGE_ORIGIN}${path}`;

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
}

describe("fetching an image URL", () => {
  it("returns the bytes, the declared type and the URL", async () => {
    const loaded = await loadImageBytes(at("/photo.png"), { param });
    expect(loaded).toEqual({ bytes: FAKE_PNG, source: "url", declaredType: "image/png", url: at("/photo.png") });
  });

  it("reduces the Content-Type to its lower-case media type", async () => {
    expect(await loadImageBytes(at("/photo.jpg"), { param })).toMatchObject({ bytes: FAKE_JPEG, declaredType: "image/jpeg" });
    expect((await loadImageBytes(at("/IMAGE.PNG"), { param })).declaredType).toBe("image/png");
  });

  it("lets image/svg+xml through (the caller refuses SVG by sniffing)", async () => {
    expect(await loadImageBytes(at("/logo.svg"), { param })).toMatchObject({ bytes: FAKE_SVG, declaredType: "image/svg+xml" });
  });

  it("trims whitespace around the URL", async () => {
    expect((await loadImageBytes(`  ${at("/photo.png")}\n`, { param })).bytes).toEqual(FAKE_PNG);
  });

  it("sends GET with redirect: manual, an abort signal and Accept: image/*", async () => {
    const { fetcher, inits } = observingFetcher();
    await loadImageBytes(at("/photo.png"), { param, fetcher });
    expect(inits).toHaveLength(1);
    expect(inits[0]).toMatchObject({ method: "GET", redirect: "manual" });
    expect(inits[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(new Headers(inits[0]?.headers).get("Accept")).toBe("image/*");
  });

  it("uses the global fetch when no fetcher is given", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    try {
      await loadImageBytes(at("/photo.png"), { param });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(String(spy.mock.calls[0]?.[0])).toBe(at("/photo.png"));
    } finally {
      spy.mockRestore();
    }
  });
});

describe("redirects", () => {
  it("follows one redirect to another host and reports the final URL", async () => {
    const { fetcher, calls } = observingFetcher();
    const loaded = await loadImageBytes(at("/hops/1"), { param, fetcher });
    expect(loaded).toMatchObject({ bytes: FAKE_PNG, url: `${FAKE_MIRROR_ORIGIN}/photo.png` });
    expect(calls).toEqual([at("/hops/1"), `${FAKE_MIRROR_ORIGIN}/photo.png`]);
  });

  it("follows three redirects, resolving relative Locations against the current URL", async () => {
    const { fetcher, calls } = observingFetcher();
    const loaded = await loadImageBytes(at("/hops/3"), { param, fetcher });
    expect(loaded.bytes).toEqual(FAKE_PNG);
    expect(calls).toEqual([at("/hops/3"), at("/hops/2"), at("/hops/1"), `${FAKE_MIRROR_ORIGIN}/photo.png`]);
  });

  it("refuses a fourth redirect without following it", async () => {
    const { fetcher, calls } = observingFetcher();
    const error = await expectRefusal(loadImageBytes(at("/hops/4"), { param, fetcher }), "image_fetch_failed", param);
    expect(error.message).toMatch(/more than 3/);
    expect(calls).toEqual([at("/hops/4"), at("/hops/3"), at("/hops/2"), at("/hops/1")]);
  });

  it.each([
    ["http://127.0.0.1", "/redirect-to-loopback", /https/],
    ["the metadata endpoint", "/redirect-to-metadata", /metadata/],
    ["an IPv4-mapped loopback", "/redirect-to-mapped-loopback", /loopback|IPv4-mapped/],
  ])("re-checks every hop: a redirect to %s is refused before it is fetched", async (_name, path, reason) => {
    const { fetcher, calls } = observingFetcher();
    const error = await expectRefusal(loadImageBytes(at(path), { param, fetcher }), "image_fetch_failed", param);
    expect(error.message).toMatch(/redirected to a location that is refused/);
    expect(error.message).toMatch(reason);
    expect(calls).toEqual([at(path)]);
  });

  it("refuses a redirect without a Location", async () => {
    const error = await expectRefusal(loadImageBytes(at("/redirect-without-location"), { param }), "image_fetch_failed", param);
    expect(error.message).toMatch(/Location/);
  });
});

describe("responses that are not an image", () => {
  it.each([
    ["text/html", "/page.html", /text\/html/],
    ["application/octet-stream", "/octet-stream", /application\/octet-stream/],
    ["no Content-Type", "/no-content-type", /no Content-Type/],
  ])("refuses %s with image_fetch_failed", async (_name, path, reason) => {
    const error = await expectRefusal(loadImageBytes(at(path), { param }), "image_fetch_failed", param);
    expect(error.message).toMatch(reason);
  });

  it.each([404, 500])("refuses HTTP %i with the status in the message", async (status) => {
    const path = status === 404 ? "/missing.png" : "/broken.png";
    const error = await expectRefusal(loadImageBytes(at(path), { param }), "image_fetch_failed", param);
    expect(error.message).toContain(String(status));
  });

  it("refuses an empty body as invalid_image", async () => {
    await expectRefusal(loadImageBytes(at("/empty.png"), { param }), "invalid_image", param);
  });
});

describe("size limit (20 MB)", () => {
  it("accepts a chunked body of exactly 20 MB", async () => {
    const loaded = await loadImageBytes(at(`/stream/${MAX_INPUT_IMAGE_BYTES}`), { param });
    expect(loaded.bytes.length).toBe(MAX_INPUT_IMAGE_BYTES);
    expect(loaded.bytes.buffer.byteLength).toBe(MAX_INPUT_IMAGE_BYTES); // no spare capacity behind it
  });

  it("refuses a chunked body one byte over", async () => {
    await expectRefusal(loadImageBytes(at(`/stream/${MAX_INPUT_IMAGE_BYTES + 1}`), { param }), "image_too_large", param);
  });

  it("stops a 21 MB stream with no Content-Length while it is streaming", async () => {
    // The fake host keeps this response open after 21 MB: waiting for its end would hit the timeout.
    const { result, ms } = await timed(() => expectRefusal(loadImageBytes(at("/huge-stream.png"), { param, timeoutMs: 8_000 }), "image_too_large", param));
    expect(result.message).toMatch(/20 MB/);
    expect(ms).toBeLessThan(8_000);
  });

  it("refuses at once when Content-Length declares more than 20 MB, without reading the body", async () => {
    // The body never ends: only a refusal based on the header answers before the timeout.
    const { ms } = await timed(() => expectRefusal(loadImageBytes(at("/lying-length.png"), { param, timeoutMs: 5_000 }), "image_too_large", param));
    expect(ms).toBeLessThan(2_000);
  });

  it("counts decoded bytes: a small gzip Content-Length does not let 21 MB through", async () => {
    await expectRefusal(loadImageBytes(at("/gzip-bomb.png"), { param }), "image_too_large", param);
  });
});

describe("timeout", () => {
  it.each([
    ["a body that never finishes", "/slow-body.png"],
    ["headers that never come", "/slow-headers.png"],
  ])("gives up on %s after timeoutMs", async (_name, path) => {
    const { result, ms } = await timed(() => expectRefusal(loadImageBytes(at(path), { param, timeoutMs: 300 }), "image_fetch_failed", param));
    expect(result.message).toMatch(/did not answer within 0\.3 s/);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(3_000);
  });

  it("covers the whole redirect chain, not each hop", async () => {
    // Three hops of SLOW_HOP_MS each: every hop fits the budget, the chain does not.
    const timeoutMs = SLOW_HOP_MS * 2.5;
    expect((await loadImageBytes(at("/slow-hops/1"), { param, timeoutMs })).bytes).toEqual(FAKE_PNG);
    const { ms } = await timed(() => expectRefusal(loadImageBytes(at("/slow-hops/3"), { param, timeoutMs }), "image_fetch_failed", param));
    expect(ms).toBeLessThan(SLOW_HOP_MS * 3);
  });

  describe("default budget", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("is 10 s when timeoutMs is not given", async () => {
      expect(IMAGE_FETCH_TIMEOUT_MS).toBe(10_000);
      vi.useFakeTimers();
      const never: typeof fetch = () => new Promise<Response>(() => {});
      let settled: unknown = "pending";
      const loading = loadImageBytes(at("/photo.png"), { param, fetcher: never }).catch((error: unknown) => {
        settled = error;
      });
      await vi.advanceTimersByTimeAsync(IMAGE_FETCH_TIMEOUT_MS - 1);
      expect(settled).toBe("pending");
      await vi.advanceTimersByTimeAsync(1);
      await loading;
      expect(settled).toMatchObject({ code: "image_fetch_failed", param, message: expect.stringMatching(/within 10 s/) });
    });
  });
});

describe("fetcher failures", () => {
  it("turns a network error into image_fetch_failed", async () => {
    const failing: typeof fetch = async () => {
      throw new TypeError("Network connection lost.");
    };
    const error = await expectRefusal(loadImageBytes(at("/photo.png"), { param, fetcher: failing }), "image_fetch_failed", param);
    expect(error.message).toMatch(/network error/);
  });

  it("turns even a synchronous throw into image_fetch_failed, never an untyped error", async () => {
    const broken = (() => {
      throw new Error("boom");
    }) as unknown as typeof fetch;
    await expectRefusal(loadImageBytes(at("/photo.png"), { param: "referenceImages[0]", fetcher: broken }), "image_fetch_failed", "referenceImages[0]");
  });
});
