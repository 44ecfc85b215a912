// A fake public image host at the HTTP boundary. vitest.config.ts installs `fakeImageHostOutbound`
// as miniflare's `outboundService`, so every fetch() the worker makes leaves workerd as real HTTP
// and arrives here, in Node. Requests for *.pixelgate.test hosts are answered from the routes
// below; anything else goes on to the real network unchanged, so other tests are not affected.
//
// This file runs in Node (imported by vitest.config.ts) and its constants are imported by tests
// running in workerd, so it uses only web-standard APIs that both runtimes have.

export const FAKE_IMAGE_HOST = "images.pixelgate.test";
/** A second host, so redirects can be shown to cross hosts. */
export const FAKE_MIRROR_HOST = "mirror.pixelgate.test";
export const FAKE_IMAGE_ORIGIN = `https://${FAKE_IMAGE_HOST}`;
export const FAKE_MIRROR_ORIGIN = `https://${FAKE_MIRROR_HOST}`;

const MB = 1024 * 1024;
/** Declared by /lying-length.png while it sends only a few bytes. */
export const LYING_DECLARED_LENGTH = 25 * MB;
/** Size of /huge-stream.png, sent chunked with no Content-Length. */
export const HUGE_STREAM_BYTES = 21 * MB;
/** Decoded size of /gzip-bomb.png; its Content-Length is only the compressed size. */
export const GZIP_BOMB_BYTES = 21 * MB;

/** Arbitrary bytes behind a PNG signature: this host does not care what format they are. */
export const FAKE_PNG = payload([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 4096, 7);
export const FAKE_JPEG = payload([0xff, 0xd8, 0xff, 0xe0], 3000, 11);
export const FAKE_SVG = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');

function payload(signature: number[], length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  bytes.set(signature);
  for (let i = signature.length; i < length; i++) bytes[i] = (i * seed + (i >> 8)) & 0xff;
  return bytes;
}

/** How long each hop of /slow-hops/N takes. */
export const SLOW_HOP_MS = 200;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Redirect statuses cycled along a chain, so every one the loader follows is exercised. */
const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

/** The outboundService: fake hosts answered here, everything else forwarded. */
export async function fakeImageHostOutbound(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname === FAKE_IMAGE_HOST || url.hostname === FAKE_MIRROR_HOST) return serveFake(url);
  return forwardToNetwork(request);
}

function serveFake(url: URL): Response | Promise<Response> {
  const path = url.pathname;

  const hops = /^\/hops\/(\d+)$/.exec(path);
  if (hops) {
    // /hops/N answers with N redirects in a row: relative Locations down to /hops/1, which sends
    // the client to the mirror host with an absolute one.
    const left = Number(hops[1]);
    const status = REDIRECT_STATUSES[left % REDIRECT_STATUSES.length]!;
    const location = left > 1 ? `/hops/${left - 1}` : `${FAKE_MIRROR_ORIGIN}/photo.png`;
    return new Response(null, { status, headers: { Location: location } });
  }

  const slowHops = /^\/slow-hops\/(\d+)$/.exec(path);
  if (slowHops) {
    // Like /hops/N, but every hop takes SLOW_HOP_MS to answer: the hops are each quick enough
    // for any per-hop timeout, while the chain as a whole is not.
    const left = Number(slowHops[1]);
    const location = left > 1 ? `/slow-hops/${left - 1}` : "/photo.png";
    return delay(SLOW_HOP_MS).then(() => new Response(null, { status: 302, headers: { Location: location } }));
  }

  const streamed = /^\/stream\/(\d+)$/.exec(path);
  if (streamed) {
    // Exactly N bytes, chunked (no Content-Length); ?then=hang keeps the response open afterwards.
    return new Response(chunkedBytes(Number(streamed[1]), url.searchParams.get("then") === "hang"), {
      headers: { "Content-Type": "image/png" },
    });
  }

  if (path === "/echo") {
    // Answers with exactly the bytes given as base64url in `b64`, under the Content-Type given in
    // `type`: lets a test serve any generated file (the hostile-input corpus) from a public URL.
    return echo(url.searchParams.get("b64") ?? "", url.searchParams.get("type"));
  }

  switch (path) {
    case "/photo.png":
      return image(FAKE_PNG, "image/png");
    case "/photo.jpg":
      return image(FAKE_JPEG, "image/jpeg; charset=binary");
    case "/logo.svg":
      return image(FAKE_SVG, "image/svg+xml");
    case "/IMAGE.PNG":
      return image(FAKE_PNG, "IMAGE/PNG");
    case "/empty.png":
      return new Response(new Uint8Array(0), { headers: { "Content-Type": "image/png" } });
    case "/redirect-to-loopback":
      return new Response(null, { status: 302, headers: { Location: "http://127.0.0.1/photo.png" } });
    case "/redirect-to-metadata":
      return new Response(null, { status: 307, headers: { Location: "https://169.254.169.254/latest/meta-data/" } });
    case "/redirect-to-mapped-loopback":
      return new Response(null, { status: 301, headers: { Location: "https://[::ffff:127.0.0.1]/photo.png" } });
    case "/redirect-without-location":
      return new Response(null, { status: 302 });
    case "/page.html":
      return new Response("<!doctype html><title>not an image</title>", { headers: { "Content-Type": "text/html; charset=utf-8" } });
    case "/octet-stream":
      return image(FAKE_PNG, "application/octet-stream");
    case "/no-content-type":
      // A Uint8Array body gets no Content-Type of its own.
      return new Response(FAKE_PNG);
    case "/missing.png":
      return new Response("not found", { status: 404, headers: { "Content-Type": "text/plain" } });
    case "/broken.png":
      return new Response("boom", { status: 500, headers: { "Content-Type": "text/plain" } });
    case "/lying-length.png":
      // Claims 25 MB, sends 16 bytes and never finishes: only a loader that believes the header
      // and refuses early answers quickly; one that reads the body waits for its timeout.
      return new Response(hangAfter(FAKE_PNG.subarray(0, 16)), {
        headers: { "Content-Type": "image/png", "Content-Length": String(LYING_DECLARED_LENGTH) },
      });
    case "/gzip-bomb.png":
      return gzipBomb();
    case "/huge-stream.png":
      // 21 MB chunked with no Content-Length, then the response stays open: only a loader that
      // counts while streaming and stops at 20 MB can answer image_too_large.
      return new Response(chunkedBytes(HUGE_STREAM_BYTES, true), { headers: { "Content-Type": "image/png" } });
    case "/slow-body.png":
      // Headers and a first chunk at once, then nothing, ever.
      return new Response(hangAfter(FAKE_PNG.subarray(0, 64)), { headers: { "Content-Type": "image/png" } });
    case "/slow-headers.png":
      // Never answers at all.
      return new Promise<Response>(() => {});
    default:
      return new Response("no such fake image", { status: 404, headers: { "Content-Type": "text/plain" } });
  }
}

function echo(b64url: string, type: string | null): Response {
  const binary = atob(b64url.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return type === null ? new Response(bytes) : image(bytes, type);
}

function image(bytes: Uint8Array, type: string): Response {
  return new Response(bytes, { headers: { "Content-Type": type, "Content-Length": String(bytes.length) } });
}

const CHUNK = new Uint8Array(64 * 1024).fill(0x42);

function chunkedBytes(total: number, hang: boolean): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        if (hang) return new Promise<void>(() => {});
        controller.close();
        return;
      }
      const size = Math.min(CHUNK.length, total - sent);
      controller.enqueue(CHUNK.slice(0, size));
      sent += size;
    },
  });
}

function hangAfter(first: Uint8Array): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(first.slice());
        return;
      }
      return new Promise<void>(() => {});
    },
  });
}

/**
 * 21 MB of one repeated byte, gzip-compressed to a few KB. The honest Content-Length is the compressed size;
 * the runtime decodes the body, so only counting decoded bytes catches it.
 */
async function gzipBomb(): Promise<Response> {
  const compressed = await new Response(chunkedBytes(GZIP_BOMB_BYTES, false).pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
  return new Response(compressed, {
    headers: { "Content-Type": "image/png", "Content-Encoding": "gzip", "Content-Length": String(compressed.byteLength) },
  });
}

/** Non-fake hosts: the same request, sent on to the real network from Node. */
async function forwardToNetwork(request: Request): Promise<Response> {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  // `duplex` is required by Node's fetch for a streamed body; neither runtime's RequestInit type names it.
  const init = { method: request.method, headers: request.headers, body: hasBody ? request.body : null, redirect: "manual", duplex: "half" };
  return fetch(request.url, init as RequestInit);
}
