import { encodeFakePng, seedOf } from "./png.ts";
import { bearerOf, hang, isJson, parseJson, sendBytes, sendJson, sendMalformedJson, sendOversized, type FakeExchange } from "./http-kit.ts";
import { serveFlux2 } from "./fake-workers-ai-flux2.ts";
import { serveLlamaGuard } from "./fake-moderation.ts";
import { FAKE_CLOUDFLARE_ACCOUNT, FAKE_CLOUDFLARE_TOKEN, type FakeRequestRecord } from "./scenarios.ts";

// The Workers AI REST API as documented: POST /client/v4/accounts/{account}/ai/run/{model},
// Bearer token, JSON inputs. Stable Diffusion models answer the PNG itself (image/png);
// FLUX.1 schnell answers { result: { image: base64 }, success: true, errors: [], messages: [] };
// failures answer { success: false, errors: [{ code, message }], result: null }. FLUX.2 models take
// multipart form data instead (fake-workers-ai-flux2.ts). The input
// checks follow the models' published schemas, so a wrong mapping in the adapter fails here.

const FLUX_KEYS = new Set(["prompt", "steps", "seed"]);
const DIFFUSION_KEYS = new Set(["prompt", "negative_prompt", "width", "height", "image", "image_b64", "mask", "num_steps", "strength", "guidance", "seed"]);

export function serveWorkersAi(x: FakeExchange): void {
  const { req, url } = x;
  if (bearerOf(req) !== FAKE_CLOUDFLARE_TOKEN) return failure(x, 401, 10000, "Authentication error");
  const match = /^\/client\/v4\/accounts\/([^/]+)\/ai\/run\/(.+)$/.exec(url.pathname);
  if (req.method !== "POST" || !match || match[1] !== FAKE_CLOUDFLARE_ACCOUNT) return failure(x, 404, 7003, "Could not route to /ai/run");
  const model = decodeURIComponent(match[2]!).replace(/^@cf\//, "");
  if (/flux-2-/.test(model)) return serveFlux2(x, model, (status, code, message) => failure(x, status, code, message));
  if (!isJson(req)) return failure(x, 400, 5006, "Expected a JSON body");
  const inputs = parseJson(x.body) as Record<string, unknown> | undefined;
  if (typeof inputs !== "object" || inputs === null) return failure(x, 400, 5006, "Malformed JSON in request body");

  if (/llama-guard/.test(model)) return serveLlamaGuard(x, inputs, (status, code, message) => failure(x, status, code, message));

  switch (model) {
    case "fake/http-400":
      return failure(x, 400, 5006, "Error: oneOf at '/' not met, 0 matches required");
    case "fake/http-500":
      return failure(x, 500, 3043, "Internal server error");
    case "fake/hang":
      return hang(x.res);
    case "fake/malformed-json":
      return sendMalformedJson(x.res);
    case "fake/oversized":
      return sendOversized(x.res, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case "fake/not-an-image":
      return sendBytes(x.res, "image/png", "plain text served as image/png");
    case "fake/no-image":
      return sendJson(x.res, 200, { result: {}, success: true, errors: [], messages: [] });
  }

  const prompt = inputs.prompt;
  if (typeof prompt !== "string" || prompt === "") return failure(x, 400, 5006, "Error: required properties at '/' are 'prompt'");
  const record: FakeRequestRecord = {
    provider: "workers-ai",
    endpoint: "ai/run",
    model: `@cf/${model}`,
    prompt,
    imageCount: Array.isArray(inputs.image) ? 1 : 0,
    keys: Object.keys(inputs).sort(),
    seed: typeof inputs.seed === "number" ? inputs.seed : undefined,
    strength: typeof inputs.strength === "number" ? inputs.strength : undefined,
    steps: typeof inputs.steps === "number" ? inputs.steps : undefined,
  };

  if (model === "fake/flux-1-schnell") {
    const extra = Object.keys(inputs).find((key) => !FLUX_KEYS.has(key));
    if (extra) return failure(x, 400, 5006, `Error: additional property '${extra}' is not allowed`);
    if (inputs.steps !== undefined && !(Number.isInteger(inputs.steps) && (inputs.steps as number) >= 1 && (inputs.steps as number) <= 8)) {
      return failure(x, 400, 5006, "Error: steps must be an integer from 1 to 8");
    }
    const png = encodeFakePng({ width: 1024, height: 1024, seed: seedOf(prompt), record });
    return sendJson(x.res, 200, { result: { image: png.toString("base64") }, success: true, errors: [], messages: [] });
  }

  const extra = Object.keys(inputs).find((key) => !DIFFUSION_KEYS.has(key));
  if (extra) return failure(x, 400, 5006, `Error: additional property '${extra}' is not allowed`);
  const side = (value: unknown) => Number.isInteger(value) && (value as number) >= 256 && (value as number) <= 2048;
  if (!side(inputs.width) || !side(inputs.height)) return failure(x, 400, 5006, "Error: width and height must be integers from 256 to 2048");
  if (inputs.image !== undefined && !(Array.isArray(inputs.image) && inputs.image.length > 0 && inputs.image.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255))) {
    return failure(x, 400, 5006, "Error: image must be an array of bytes");
  }
  if (model.includes("img2img") && inputs.image === undefined) return failure(x, 400, 5006, "Error: required properties at '/' are 'image'");
  const png = encodeFakePng({ width: inputs.width as number, height: inputs.height as number, seed: seedOf(prompt), record });
  sendBytes(x.res, "image/png", png);
}

function failure(x: FakeExchange, status: number, code: number, message: string): void {
  sendJson(x.res, status, { result: null, success: false, errors: [{ code, message }], messages: [] });
}
