import { encodeFakePng, seedOf } from "./png.ts";
import { bearerOf, hang, isJson, parseJson, sendBytes, sendJson, sendMalformedJson, sendOversized, type FakeExchange } from "./http-kit.ts";
import { serveFlux2 } from "./fake-workers-ai-flux2.ts";
import { serveLlamaGuard } from "./fake-moderation.ts";
import { FAKE_CLOUDFLARE_ACCOUNT, FAKE_CLOUDFLARE_TOKEN, type FakeRequestRecord } from "./scenarios.ts";
import { workersAiInput, workersAiProblem } from "./published-schemas.ts";

// The Workers AI REST API as documented: POST /client/v4/accounts/{account}/ai/run/{model},
// Bearer token, JSON inputs. Stable Diffusion models answer the PNG itself (image/png);
// FLUX.1 schnell answers { result: { image: base64 }, success: true, errors: [], messages: [] };
// failures answer { success: false, errors: [{ code, message }], result: null }. FLUX.2 models take
// multipart form data instead (fake-workers-ai-flux2.ts). Every JSON input is held to the model's
// published schema (Cloudflare's model JSON, test/fixtures/provider-schemas/workers-ai/), so a
// field the model does not document fails here; scenario ids (fake/...) use the schema of the
// family they stand for.

/** The published model whose schema a request is held to. */
function publishedNameOf(model: string): string {
  if (!model.startsWith("fake/")) return `@cf/${model}`;
  if (model.includes("flux-1-schnell")) return "@cf/black-forest-labs/flux-1-schnell";
  if (model.includes("flux-2-")) return model.includes("klein") ? "@cf/black-forest-labs/flux-2-klein-4b" : "@cf/black-forest-labs/flux-2-dev";
  return "@cf/runwayml/stable-diffusion-v1-5-img2img";
}

export function serveWorkersAi(x: FakeExchange): void {
  const { req, url } = x;
  if (bearerOf(req) !== FAKE_CLOUDFLARE_TOKEN) return failure(x, 401, 10000, "Authentication error");
  const match = /^\/client\/v4\/accounts\/([^/]+)\/ai\/run\/(.+)$/.exec(url.pathname);
  if (req.method !== "POST" || !match || match[1] !== FAKE_CLOUDFLARE_ACCOUNT) return failure(x, 404, 7003, "Could not route to /ai/run");
  const model = decodeURIComponent(match[2]!).replace(/^@cf\//, "");
  const published = publishedNameOf(model);
  // The published schema of FLUX.2 is `{ multipart: { body, contentType } }`: form data only.
  if (workersAiInput(published)?.properties?.multipart) return serveFlux2(x, model, (status, code, message) => failure(x, status, code, message));
  if (!isJson(req)) return failure(x, 400, 5006, "Expected a JSON body");
  const inputs = parseJson(x.body) as Record<string, unknown> | undefined;
  if (typeof inputs !== "object" || inputs === null) return failure(x, 400, 5006, "Malformed JSON in request body");

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

  // Failure scenarios (above) answer as they are named, whatever the inputs; everything else is
  // held to the model's published schema first.
  const invalid = workersAiProblem(published, inputs);
  if (invalid) return failure(x, 400, 5006, invalid);
  if (/llama-guard/.test(model)) return serveLlamaGuard(x, inputs, (status, code, message) => failure(x, status, code, message));

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

  if (published === "@cf/black-forest-labs/flux-1-schnell") {
    const png = encodeFakePng({ width: 1024, height: 1024, seed: seedOf(prompt), record });
    return sendJson(x.res, 200, { result: { image: png.toString("base64") }, success: true, errors: [], messages: [] });
  }

  // The schema leaves width and height optional; our adapter always sends them (the picture's size).
  if (inputs.width === undefined || inputs.height === undefined) return failure(x, 400, 5006, "Error: this fake needs width and height to draw");
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
