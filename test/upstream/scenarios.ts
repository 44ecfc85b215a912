// The fake upstream's vocabulary, shared by the Node server (test/upstream/server.ts) and the tests
// running in workerd, so it uses no Node or Workers APIs. Behaviour is chosen by the upstream
// model id the worker sends: a test inserts a model row whose `upstream_model` names a scenario,
// and tests running in parallel never share state on the fake.

export const FAKE_OPENAI_HOST = "openai.upstream.test";
export const FAKE_REPLICATE_HOST = "replicate.upstream.test";
/** Where Replicate outputs live (replicate.delivery in production): no token needed. */
export const FAKE_REPLICATE_FILES_HOST = "replicate-delivery.upstream.test";
/** The Cloudflare REST API that the test AI binding forwards to. */
export const FAKE_WORKERS_AI_HOST = "workers-ai.upstream.test";
export const FAKE_UPSTREAM_SUFFIX = ".upstream.test";

export const FAKE_OPENAI_BASE_URL = `https://${FAKE_OPENAI_HOST}/v1`;
export const FAKE_REPLICATE_BASE_URL = `https://${FAKE_REPLICATE_HOST}`;

/**
 * Scripts that run `wrangler dev` (npm run stress, bench:batch) have no outbound proxy: the worker
 * calls the fake at its loopback origin, and a path prefix names the provider instead of the host.
 */
export const FAKE_DIRECT_PREFIXES: Record<string, string> = { "/openai": FAKE_OPENAI_HOST, "/replicate": FAKE_REPLICATE_HOST };

/** Provider base URLs for a fake reached directly at `origin` (e.g. "http://127.0.0.1:41234"). */
export function fakeDirectBaseUrls(origin: string): { OPENAI_BASE_URL: string; REPLICATE_BASE_URL: string } {
  return { OPENAI_BASE_URL: `${origin}/openai/v1`, REPLICATE_BASE_URL: `${origin}/replicate` };
}

// Credentials the fake accepts; any other Authorization header gets the provider's 401.
export const FAKE_OPENAI_KEY = "sk-test-pixelgate-openai-7f3c9a1e5b2d";
export const FAKE_REPLICATE_TOKEN = "r8_test_pixelgate_replicate_4d8e2a6c";
export const FAKE_CLOUDFLARE_TOKEN = "cf-test-pixelgate-workers-ai-9b1f";
export const FAKE_CLOUDFLARE_ACCOUNT = "0123456789abcdef0123456789abcdef";

/** What the "oversized" scenarios stream: over the adapters' 40 MB limit. */
export const OVERSIZED_BYTES = 41 * 1024 * 1024;
/** A "hang" scenario never answers; the fake drops the connection after this long. */
export const HANG_LIMIT_MS = 8_000;
/** fake/slow-poll answers "starting", then "processing", and succeeds at this poll. */
export const SLOW_POLL_SUCCEEDS_AT = 2;
/** How long fake/slow-create holds its create request open. */
export const SLOW_CREATE_MS = 5_000;
/** The error text of fake/failed-prediction. */
export const FAILED_PREDICTION_ERROR = "CUDA out of memory (fake GPU)";

/** Scenarios every provider's fake understands. */
const COMMON = {
  ok: "fake/ok",
  http400: "fake/http-400",
  http500: "fake/http-500",
  hang: "fake/hang",
  malformedJson: "fake/malformed-json",
  oversized: "fake/oversized",
  notAnImage: "fake/not-an-image",
  noImage: "fake/no-image",
  /** A 500 whose body quotes the Authorization header it received. */
  reflectAuth: "fake/reflect-auth",
} as const;

export const OPENAI_MODELS = {
  ...COMMON,
  /** Must be sent response_format=b64_json and DALL-E 3 sizes. */
  dallE3: "fake/dall-e-3",
  /** Answers data[0].url instead of b64_json. */
  urlOutput: "fake/url-output",
  /** HTTP 400 with code moderation_blocked, as OpenAI's own safety system answers. */
  moderationBlocked: "fake/moderation-blocked",
} as const;

export const REPLICATE_MODELS = {
  ...COMMON,
  /** Same as ok, addressed as owner/name:version (POST /v1/predictions). */
  versioned: `fake/ok:${"5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa"}`,
  arrayOutput: "fake/array-output",
  dataUriOutput: "fake/data-uri-output",
  svg: "fake/svg",
  slowPoll: "fake/slow-poll",
  /** Holds the create POST open for SLOW_CREATE_MS while the prediction runs (until its Cancel-After). */
  slowCreate: "fake/slow-create",
  /** Starts, then stays "processing" for ever. */
  hangPoll: "fake/hang-poll",
  failedPrediction: "fake/failed-prediction",
  canceled: "fake/canceled",
  /** Output file served as text/html. */
  htmlOutput: "fake/html-output",
  /** Output URL on plain http. */
  httpOutput: "fake/http-output",
} as const;

/** Workers AI ids are "@cf/..."; the fake strips the prefix and matches the rest. */
export const WORKERS_AI_MODELS = {
  /** Stable Diffusion style: width/height/seed, answers a PNG stream. */
  ok: "@cf/fake/ok",
  /** Matches the adapter's FLUX.1 schnell family: only prompt/steps/seed, answers { image }. */
  flux: "@cf/fake/flux-1-schnell",
  /** FLUX.2 [klein]: multipart form, fixed steps (fake-workers-ai-flux2.ts). */
  flux2Klein: "@cf/fake/flux-2-klein-4b",
  /** FLUX.2 [dev]: multipart form, takes steps. */
  flux2Dev: "@cf/fake/flux-2-dev",
  /** A FLUX.2 model whose well-formed request fails with the platform's 500. */
  flux2Http500: "@cf/fake/flux-2-klein-http-500",
  /** Matches the adapter's img2img family: needs `image`. */
  img2img: "@cf/fake/sd-img2img",
  http400: "@cf/fake/http-400",
  http500: "@cf/fake/http-500",
  hang: "@cf/fake/hang",
  malformedJson: "@cf/fake/malformed-json",
  oversized: "@cf/fake/oversized",
  notAnImage: "@cf/fake/not-an-image",
  noImage: "@cf/fake/no-image",
} as const;

/** What the fake saw, embedded in every image it makes (a PNG tEXt chunk, or an SVG <desc>). */
export interface FakeRequestRecord {
  provider: "openai" | "replicate" | "workers-ai";
  endpoint: string;
  model: string;
  prompt?: string;
  /** Input images received (multipart files, data URIs or byte arrays). */
  imageCount: number;
  /** Multipart field the files came in (`image` or `image[]`). */
  imageField?: string;
  size?: string;
  background?: string;
  responseFormat?: string;
  /** Request body keys (JSON) or Replicate input keys. */
  keys: string[];
  aspectRatio?: string;
  seed?: number;
  scale?: number;
  strength?: number;
  steps?: number;
  prefer?: string;
  /** The media types of the data URIs a Replicate prediction was given. */
  imageTypes?: string[];
  /** Input images received as http(s) URLs (Replicate inputs, OpenAI JSON edits' image_url). */
  imageUrls?: string[];
  /** Replicate's `Cancel-After` header as sent. */
  cancelAfter?: string;
  version?: string;
  /** Sizes of the input images received, in field order ("512x384"). */
  inputSizes?: string[];
  polls?: number;
}

export const FAKE_RECORD_KEYWORD = "fake-request";
