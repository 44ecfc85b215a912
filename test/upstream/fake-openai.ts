import { boundaryOf, parseMultipart, type FormPart } from "./multipart.ts";
import { encodeFakePng, seedOf } from "./png.ts";
import { bearerOf, hang, isJson, parseJson, sendBytes, sendJson, sendMalformedJson, sendOversized, type FakeExchange } from "./http-kit.ts";
import { FAKE_OPENAI_HOST, FAKE_OPENAI_KEY, OPENAI_MODELS as M, type FakeRequestRecord } from "./scenarios.ts";
import { planFor } from "./chaos.ts";
import { serveModerations } from "./fake-moderation.ts";
import { OPENAI_EDIT_FILES, openAiModel, openAiProblem, type OpenAiModelRules } from "./published-schemas.ts";

// The OpenAI Images API as documented (its parameters held to test/fixtures/provider-schemas/
// openai/images.json, published-schemas.ts): POST /v1/images/generations (JSON) and
// POST /v1/images/edits (multipart/form-data, `image` or `image[]` files; or, for GPT Image
// models, JSON with `images: [{ image_url }]`, data URLs or http(s) URLs), answering
// { created, data: [{ b64_json }], usage } or { data: [{ url }] }, errors as
// { error: { message, type, param, code } }. It checks what the real API checks and our adapter
// could get wrong: the key, the content type, n = 1, sizes per model family, response_format
// (rejected by GPT Image models, required here for DALL-E so that we get b64_json back).

/**
 * What OpenAI documents for the model (test/fixtures/provider-schemas/openai/images.json): sizes,
 * transparent backgrounds, response_format, the shutdown day (404 model_not_found from then on).
 * Scenario names (fake/...) follow DALL-E 3 or GPT Image 1.5, whichever family they name.
 */
function rulesOf(model: string): OpenAiModelRules {
  const known = openAiModel(model.replace(/-\d{4}-\d{2}-\d{2}$/, ""));
  if (known) return known;
  return openAiModel(/dall-e-3/.test(model) ? "dall-e-3" : "gpt-image-1.5")!;
}

/** The file's bytes are what its declared type says (OpenAI reads the file, not the label). */
function sniffsAs(data: Buffer, type: string | undefined): boolean {
  const signatures: Record<string, (bytes: Buffer) => boolean> = {
    "image/png": (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
    "image/jpeg": (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8,
    "image/webp": (bytes) => bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP",
  };
  return signatures[type ?? ""]?.(data) ?? false;
}

interface ImagesCall {
  endpoint: "generations" | "edits";
  /** Which published schema the body answers to: edits come as multipart or (GPT Image) JSON. */
  schema: "generations" | "edits" | "editsJson";
  /** JSON edits: the `image_url`s that are http(s) URLs (OpenAI fetches them; this fake cannot reach the worker, the test does). */
  imageUrls: string[];
  fields: Record<string, string | undefined>;
  /** The parameters as sent (JSON values, or multipart text), for the published schema. */
  raw: Record<string, unknown>;
  files: FormPart[];
  keys: string[];
}

export function serveOpenAi(x: FakeExchange): void {
  const { req, res, url } = x;
  if (req.method === "GET" && url.pathname === "/files/image.png") return serveFile(x);
  if (bearerOf(req) !== FAKE_OPENAI_KEY) {
    // The real API masks most of the key; this fake quotes it whole, so a test proves we never pass it on.
    return error(x, 401, `Incorrect API key provided: ${bearerOf(req) ?? "(none)"}.`, "invalid_request_error", "invalid_api_key");
  }
  if (req.method === "POST" && url.pathname === "/v1/moderations") return serveModerations(x);
  const endpoint = req.method === "POST" && /^\/v1\/images\/(generations|edits)$/.exec(url.pathname)?.[1];
  if (endpoint !== "generations" && endpoint !== "edits") return error(x, 404, `Invalid URL (${req.method} ${url.pathname})`, "invalid_request_error", null);
  const call = endpoint === "generations" ? readGeneration(x) : readEdit(x);
  if (call) answer(x, call);
}

function readGeneration(x: FakeExchange): ImagesCall | undefined {
  if (!isJson(x.req)) return void error(x, 400, "Expected Content-Type application/json.", "invalid_request_error", null);
  const body = parseJson(x.body) as Record<string, unknown> | undefined;
  if (typeof body !== "object" || body === null) return void error(x, 400, "We could not parse the JSON body of your request.", "invalid_request_error", null);
  const fields = Object.fromEntries(Object.entries(body).map(([key, value]) => [key, value === undefined ? undefined : String(value)]));
  return { endpoint: "generations", schema: "generations", imageUrls: [], fields, raw: body, files: [], keys: Object.keys(body).sort() };
}

/** The JSON form of edits: `images: [{ image_url }]`, each a data URL (read as a file here) or an http(s) URL. */
function readJsonEdit(x: FakeExchange): ImagesCall | undefined {
  const call = readGeneration(x);
  if (!call) return undefined;
  const references = Array.isArray(call.raw.images) ? (call.raw.images as { image_url?: unknown }[]) : [];
  const urls = references.map((reference) => reference?.image_url).filter((url): url is string => typeof url === "string");
  const files = urls.filter((url) => url.startsWith("data:")).map((url) => ({ name: "images", type: url.slice(5, url.indexOf(";")), data: Buffer.from(url.slice(url.indexOf(",") + 1), "base64") }));
  return { ...call, endpoint: "edits", schema: "editsJson", imageUrls: urls.filter((url) => /^https?:\/\//.test(url)), files };
}

function readEdit(x: FakeExchange): ImagesCall | undefined {
  if (isJson(x.req)) return readJsonEdit(x);
  const boundary = boundaryOf(x.req.headers["content-type"]);
  if (!boundary) return void error(x, 400, "Expected Content-Type multipart/form-data.", "invalid_request_error", null);
  let parts: FormPart[];
  try {
    parts = parseMultipart(x.body, boundary);
  } catch (failure) {
    return void error(x, 400, `Malformed multipart body: ${(failure as Error).message}`, "invalid_request_error", null);
  }
  const files = parts.filter((part) => part.filename !== undefined);
  const fields = Object.fromEntries(parts.filter((part) => part.filename === undefined).map((part) => [part.name, part.data.toString("utf8")]));
  return { endpoint: "edits", schema: "edits", imageUrls: [], fields, raw: fields, files, keys: parts.map((part) => part.name).sort() };
}

function answer(x: FakeExchange, call: ImagesCall): void {
  const { endpoint, schema, fields, raw, files, imageUrls } = call;
  const { model, prompt, size, n } = fields;
  const bad = (message: string, param: string) => error(x, 400, message, "invalid_request_error", param);
  if (!model) return bad("Missing required parameter: 'model'.", "model");
  if (!prompt) return bad("Missing required parameter: 'prompt'.", "prompt");
  if (schema === "editsJson" && /dall-e/.test(model)) return bad("JSON edits support GPT image models only; send DALL-E edits as multipart.", "images");
  const invalid = openAiProblem(schema, raw);
  if (invalid) return bad(invalid.message, invalid.param);
  const rules = rulesOf(model);
  if (rules.shutDown && new Date().toISOString().slice(0, 10) >= rules.shutDown) {
    return error(x, 404, `The model \`${model}\` does not exist or you do not have access to it.`, "invalid_request_error", null, "model_not_found");
  }
  if (fields.background === "transparent" && !rules.transparentBackground) return bad("Transparent background is not supported for this model.", "background");
  if (n !== undefined && n !== "1") return bad("This fake makes one image per request.", "n");
  if (!rules.responseFormat && fields.response_format !== undefined) return bad("Unknown parameter: 'response_format'.", "response_format");
  if (rules.responseFormat && fields.response_format !== "b64_json") return bad("Send response_format=b64_json (this fake serves no DALL-E URLs).", "response_format");
  if (size !== undefined && !rules.sizes.includes(size)) return bad(`Invalid value: '${size}'. Supported values are: ${rules.sizes.join(", ")}.`, "size");
  const { imageTypes, maxImageBytes } = OPENAI_EDIT_FILES;
  const wrongType = files.find((file) => !imageTypes.includes(file.type ?? "") || !sniffsAs(file.data, file.type));
  if (wrongType) return bad(`Invalid file type '${wrongType.type ?? "none"}': use ${imageTypes.join(", ")}.`, "image");
  if (files.some((file) => file.data.length === 0 || file.data.length >= maxImageBytes)) return bad("Each image must be a non-empty file under 50 MB.", "image");
  if (schema === "editsJson") {
    if (files.length + imageUrls.length !== (raw.images as unknown[]).length) return bad("Each images[].image_url must be an http(s) URL or a data URL.", "images");
  }
  if (schema === "edits") {
    const { fields: fileFields, maxImages } = OPENAI_EDIT_FILES;
    const fieldNames = new Set(files.map((file) => file.name));
    if (files.length === 0) return bad("Missing required parameter: 'image'.", "image");
    const stray = files.find((file) => !fileFields.includes(file.name));
    if (stray) return bad(`Unknown parameter: '${stray.name}'.`, stray.name);
    if (fieldNames.size > 1 || (files.length > 1 && !fieldNames.has("image[]"))) return bad("Send several images as image[].", "image");
    if (files.length > maxImages) return bad(`At most ${maxImages} images.`, "image");
  }
  // Chaos and delay names (chaos.ts) answer, after their delay, as the common scenario they drew.
  const plan = planFor(model);
  if (!plan) return respond(x, call, model);
  setTimeout(() => respond(x, call, plan.failure ? `fake/${plan.failure}` : M.ok), plan.delayMs);
}

/** Answers a checked call as `scenario` says (the model name, or what a chaos name drew). */
function respond(x: FakeExchange, { endpoint, fields, files, keys, imageUrls }: ImagesCall, scenario: string): void {
  const model = fields.model!;
  const prompt = fields.prompt!;
  const { size } = fields;
  const dallE = /dall-e/.test(model);
  const bad = (message: string, param: string) => error(x, 400, message, "invalid_request_error", param);
  switch (scenario) {
    case M.http400:
      return bad("Invalid prompt: this fake refuses it.", "prompt");
    case M.moderationBlocked:
      return error(x, 400, "Your request was rejected by the safety system.", "image_generation_user_error", null, "moderation_blocked");
    case M.http500:
      return error(x, 500, "The server had an error while processing your request. Sorry about that!", "server_error", null);
    case M.reflectAuth:
      return error(x, 500, `Upstream proxy failure for request with Authorization: ${x.req.headers.authorization}`, "server_error", null);
    case M.hang:
      return hang(x.res);
    case M.malformedJson:
      return sendMalformedJson(x.res);
    case M.oversized:
      return sendOversized(x.res, "application/json", '{"created":1767225600,"data":[{"b64_json":"');
    case M.notAnImage:
      return sendJson(x.res, 200, { created: 1767225600, data: [{ b64_json: Buffer.from("this is plain text, not a picture").toString("base64") }] });
    case M.noImage:
      return sendJson(x.res, 200, { created: 1767225600, data: [] });
  }

  const [width, height] = (size && size !== "auto" ? size : "1024x1024").split("x").map(Number) as [number, number];
  const record: FakeRequestRecord = {
    provider: "openai",
    endpoint: `images/${endpoint}`,
    model,
    prompt,
    imageCount: files.length + imageUrls.length,
    imageField: files[0]?.name,
    ...(imageUrls.length > 0 ? { imageUrls } : {}),
    size,
    background: fields.background,
    responseFormat: fields.response_format,
    keys,
  };
  const picture = { width, height, seed: seedOf(prompt), cutout: fields.background === "transparent", record };
  if (scenario === M.urlOutput) {
    const query = new URLSearchParams({ w: String(width), h: String(height), record: JSON.stringify(record) });
    return sendJson(x.res, 200, { created: 1767225600, data: [{ url: `https://${FAKE_OPENAI_HOST}/files/image.png?${query}` }] });
  }
  const b64 = encodeFakePng(picture).toString("base64");
  const usage = dallE ? undefined : { total_tokens: 4200, input_tokens: 50, output_tokens: 4150, input_tokens_details: { text_tokens: 50, image_tokens: 0 } };
  sendJson(x.res, 200, { created: 1767225600, data: [dallE ? { b64_json: b64, revised_prompt: prompt } : { b64_json: b64 }], usage });
}

/** The pre-signed file behind a `url` answer: no key needed, like OpenAI's storage links. */
function serveFile({ res, url }: FakeExchange): void {
  const record = JSON.parse(url.searchParams.get("record") ?? "{}") as FakeRequestRecord;
  const png = encodeFakePng({ width: Number(url.searchParams.get("w")), height: Number(url.searchParams.get("h")), seed: 7, record });
  sendBytes(res, "image/png", png);
}

function error(x: FakeExchange, status: number, message: string, type: string, param: string | null, code: string | null = null): void {
  sendJson(x.res, status, { error: { message, type, param, code } });
}
