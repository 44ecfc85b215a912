import { randomBytes } from "node:crypto";
import { encodeFakePng, fakeSvg, pngSize, seedOf } from "./png.ts";
import { bearerOf, hang, isJson, parseJson, sendBytes, sendJson, sendMalformedJson, sendOversized, type FakeExchange } from "./http-kit.ts";
import {
  FAILED_PREDICTION_ERROR, FAKE_REPLICATE_FILES_HOST, FAKE_REPLICATE_HOST, FAKE_REPLICATE_TOKEN,
  REPLICATE_MODELS as M, SLOW_CREATE_MS, SLOW_POLL_SUCCEEDS_AT, type FakeRequestRecord,
} from "./scenarios.ts";
import { planFor, type FakePlan } from "./chaos.ts";
import { communityModelOfVersion, replicateModel, replicateProblem } from "./published-schemas.ts";

// Replicate's HTTP API as documented: POST /v1/models/{owner}/{name}/predictions or
// POST /v1/predictions { version, input }, `Prefer: wait=N`, GET /v1/predictions/{id} (urls.get)
// for polling, POST /v1/predictions/{id}/cancel (urls.cancel), GET /v1/predictions (the list), predictions { id, model, version, input, output, error, status, urls }, errors
// { title, detail, status }. Output files are served from a separate host without a token, like
// replicate.delivery. Predictions live in this map only for as long as a test polls them.

interface Stored {
  prediction: Record<string, unknown>;
  model: string;
  record: FakeRequestRecord;
  polls: number;
}

const predictions = new Map<string, Stored>();
/** The versioned scenario's version id names the model it belongs to, as on Replicate. */
const VERSIONS = new Map([[M.versioned.split(":")[1]!, "fake/ok"]]);

export function serveReplicate(x: FakeExchange): void {
  const { req, url } = x;
  if (bearerOf(req) !== FAKE_REPLICATE_TOKEN) return problem(x, 401, "Unauthenticated", "You did not pass a valid authentication token");
  const poll = /^\/v1\/predictions\/([\w-]+)$/.exec(url.pathname);
  if (req.method === "GET" && poll) return servePoll(x, poll[1]!);
  const cancel = /^\/v1\/predictions\/([\w-]+)\/cancel$/.exec(url.pathname);
  if (req.method === "POST" && cancel) return serveCancel(x, cancel[1]!);
  if (req.method === "GET" && url.pathname === "/v1/predictions") return sendJson(x.res, 200, { previous: null, next: null, results: [...predictions.values()].map((p) => p.prediction).reverse() });
  const byModel = /^\/v1\/models\/([\w.-]+)\/([\w.-]+)\/predictions$/.exec(url.pathname);
  if (req.method !== "POST" || (!byModel && url.pathname !== "/v1/predictions")) return problem(x, 404, "Not found", `No route for ${req.method} ${url.pathname}`);
  if (!isJson(req)) return problem(x, 415, "Unsupported media type", "Send the prediction as application/json.");
  const body = parseJson(x.body) as { input?: unknown; version?: unknown } | undefined;
  if (typeof body?.input !== "object" || body.input === null) return problem(x, 422, "Input validation failed", "input is required and must be an object");
  let model: string | undefined = byModel ? `${byModel[1]}/${byModel[2]}` : undefined;
  // Replicate documents this path for official models only: a community model answers 404 there.
  if (model && replicateModel(model)?.version !== undefined) return problem(x, 404, "Not found", "The requested resource could not be found.");
  if (!byModel) {
    model = typeof body.version === "string" ? (VERSIONS.get(body.version) ?? communityModelOfVersion(body.version)) : undefined;
    if (!model) return problem(x, 422, "Invalid version or not permitted", `The specified version does not exist (or perhaps you don't have permission to use it?)`);
  }
  create(x, model!, body.input as Record<string, unknown>, typeof body.version === "string" ? body.version : undefined);
}

function create(x: FakeExchange, model: string, input: Record<string, unknown>, version?: string): void {
  const invalid = replicateProblem(model, input);
  if (invalid) return problem(x, 422, "Input validation failed", invalid);
  const cancelAfter = cancelAfterMs(x.req.headers["cancel-after"]);
  if (cancelAfter === null) return problem(x, 400, "Invalid Cancel-After header", "Cancel-After must be a duration such as 30s, 1m or 1m30s.");
  const plan = planFor(model);
  if (plan) return void setTimeout(() => createByPlan(x, model, input, plan), plan.delayMs);
  const prefer = x.req.headers.prefer;
  switch (model) {
    case M.http400:
      return problem(x, 422, "Input validation failed", "- input.prompt: Invalid type. Expected: string, given: integer");
    case M.http500:
      return problem(x, 500, "Internal Server Error", "Something went wrong on our side.");
    case M.reflectAuth:
      return problem(x, 500, "Internal Server Error", `proxy failed for Authorization: ${x.req.headers.authorization}`);
    case M.hang:
      return hang(x.res);
    case M.malformedJson:
      return sendMalformedJson(x.res);
  }
  const values = Object.values(input).flatMap((value) => (Array.isArray(value) ? value : [value]));
  const images = values.filter((value): value is string => typeof value === "string" && value.startsWith("data:"));
  // A URL input Replicate would fetch; this fake cannot reach the worker, so the test fetches it.
  const imageUrls = [...new Set(values.filter((value): value is string => typeof value === "string" && /^https?:\/\//.test(value)))];
  const record: FakeRequestRecord = {
    provider: "replicate",
    endpoint: version ? "predictions" : `models/${model}/predictions`,
    model,
    version,
    prompt: typeof input.prompt === "string" ? input.prompt : undefined,
    imageCount: new Set(images).size + imageUrls.length,
    imageTypes: [...new Set(images.map((uri) => uri.slice(5, uri.indexOf(";"))))],
    ...(imageUrls.length > 0 ? { imageUrls } : {}),
    keys: Object.keys(input).sort(),
    aspectRatio: typeof input.aspect_ratio === "string" ? input.aspect_ratio : undefined,
    seed: typeof input.seed === "number" ? input.seed : undefined,
    scale: scaleOf(input),
    prefer: typeof prefer === "string" ? prefer : undefined,
    cancelAfter: typeof x.req.headers["cancel-after"] === "string" ? x.req.headers["cancel-after"] : undefined,
  };
  const id = randomBytes(10).toString("hex");
  const stored: Stored = { model, record, polls: 0, prediction: { id, model, version: version ?? null, input, logs: "", output: null, error: null, data_removed: false, created_at: new Date().toISOString(), urls: urlsOf(id) } };
  predictions.set(id, stored);
  setTimeout(() => predictions.delete(id), 60_000).unref();
  if (cancelAfter !== undefined) setTimeout(() => deadlineReached(stored), cancelAfter).unref();
  if (model === M.slowCreate) {
    // Runs while the create request is held open, past any sensible deadline, then answers.
    stored.prediction.status = "processing";
    return void setTimeout(() => {
      if (stored.prediction.status === "processing") settle(stored, undefined, images[0]);
      sendJson(x.res, 201, stored.prediction);
    }, SLOW_CREATE_MS).unref();
  }
  const slow = model === M.slowPoll || model === M.hangPoll;
  settle(stored, slow ? "starting" : undefined, images[0]);
  sendJson(x.res, 201, stored.prediction);
}

/** `Cancel-After` in ms: undefined when absent, null when it is not a duration ("30s", "1m", "1m30s", "1h"). */
function cancelAfterMs(header: string | string[] | undefined): number | undefined | null {
  if (header === undefined) return undefined;
  const match = typeof header === "string" ? /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(header) : null;
  if (!match || header === "") return null;
  const [, hours = "0", minutes = "0", seconds = "0"] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
}

/** Replicate's prediction deadline: "aborted" before it started running, "canceled" while running. */
function deadlineReached(stored: Stored): void {
  const { status } = stored.prediction;
  if (status === "starting") Object.assign(stored.prediction, { status: "aborted", completed_at: new Date().toISOString() });
  else if (status === "processing") Object.assign(stored.prediction, { status: "canceled", completed_at: new Date().toISOString() });
}

/**
 * Chaos and delay names (chaos.ts): failures as the common scenarios answer them; images as data
 * URIs in a prediction that has already succeeded (as `Prefer: wait` allows), so a worker that
 * reaches the fake directly over loopback never needs an https output host. SVG for prompt-only
 * input, the shape Replicate SVG models are called with.
 */
function createByPlan(x: FakeExchange, model: string, input: Record<string, unknown>, plan: FakePlan): void {
  switch (plan.failure) {
    case "http-500":
    case "http-400":
    case "hang":
    case "malformed-json":
      return create(x, `fake/${plan.failure}`, input);
  }
  const image = firstImage(input);
  const record: FakeRequestRecord = {
    provider: "replicate",
    endpoint: `models/${model}/predictions`,
    model,
    prompt: typeof input.prompt === "string" ? input.prompt : undefined,
    imageCount: image ? 1 : 0,
    keys: Object.keys(input).sort(),
    aspectRatio: typeof input.aspect_ratio === "string" ? input.aspect_ratio : undefined,
    scale: scaleOf(input),
  };
  let output: string;
  if (plan.failure === "not-an-image") output = `data:image/png;base64,${Buffer.from("plain text, not a picture").toString("base64")}`;
  else if (record.keys.join() === "prompt") output = `data:image/svg+xml;base64,${Buffer.from(fakeSvg(record)).toString("base64")}`;
  else {
    const { width, height, cutout } = pictureFor(record, image);
    output = `data:image/png;base64,${encodeFakePng({ width, height, seed: seedOf(record.prompt ?? model), cutout, record }).toString("base64")}`;
  }
  const id = randomBytes(10).toString("hex");
  const now = new Date().toISOString();
  sendJson(x.res, 201, { id, model, version: null, input, logs: "", output, error: null, status: "succeeded", created_at: now, completed_at: now, urls: urlsOf(id) });
}

function servePoll(x: FakeExchange, id: string): void {
  const stored = predictions.get(id);
  if (!stored) return problem(x, 404, "Not found", "The requested resource could not be found.");
  if (stored.prediction.status === "canceled" || stored.prediction.status === "aborted") return sendJson(x.res, 200, stored.prediction);
  stored.polls++;
  stored.record.polls = stored.polls;
  const done = stored.model === M.slowPoll && stored.polls >= SLOW_POLL_SUCCEEDS_AT;
  if (!done) stored.prediction.status = "processing";
  else settle(stored, undefined, firstImage(stored.prediction.input));
  sendJson(x.res, 200, stored.prediction);
}

/** POST /v1/predictions/{id}/cancel: a running prediction becomes "canceled"; a finished one stays as it is. */
function serveCancel(x: FakeExchange, id: string): void {
  const stored = predictions.get(id);
  if (!stored) return problem(x, 404, "Not found", "The requested resource could not be found.");
  if (!["succeeded", "failed", "canceled", "aborted"].includes(String(stored.prediction.status))) {
    Object.assign(stored.prediction, { status: "canceled", completed_at: new Date().toISOString() });
  }
  sendJson(x.res, 200, stored.prediction);
}

/** Sets status, output and error the way the scenario ends (or `status` while it is running). */
function settle(stored: Stored, running: string | undefined, image: string | undefined): void {
  const { prediction, model, record } = stored;
  if (running) return void (prediction.status = running);
  if (model === M.failedPrediction) return void Object.assign(prediction, { status: "failed", error: FAILED_PREDICTION_ERROR });
  if (model === M.canceled) return void (prediction.status = "canceled");
  prediction.status = "succeeded";
  prediction.completed_at = new Date().toISOString();
  prediction.output = outputOf(model, record, image);
}

function outputOf(model: string, record: FakeRequestRecord, image: string | undefined): unknown {
  const file = (name: string, query: Record<string, string> = {}) =>
    `https://${FAKE_REPLICATE_FILES_HOST}/${name}?${new URLSearchParams({ ...query, record: JSON.stringify(record) })}`;
  switch (model) {
    case M.noImage:
      return null;
    case M.oversized:
      return file("oversized.png");
    case M.notAnImage:
      return file("text.png");
    case M.htmlOutput:
      return file("page.html");
    case M.httpOutput:
      return file("out.png").replace("https:", "http:");
    case M.svg:
      return file("out.svg");
  }
  if (model.endsWith("-svg")) return file("out.svg"); // a real SVG model id (recraft-ai/recraft-v3-svg)
  const { width, height, cutout } = pictureFor(record, image);
  if (model === M.dataUriOutput) return `data:image/png;base64,${encodeFakePng({ width, height, seed: 3, cutout, record }).toString("base64")}`;
  const url = file("out.png", { w: String(width), h: String(height), cutout: cutout ? "1" : "" });
  return model === M.arrayOutput ? [url] : url;
}

/** The upscale factor: Real-ESRGAN's `scale` (a number) or Topaz's `upscale_factor` ("4x"). */
function scaleOf(input: Record<string, unknown>): number | undefined {
  if (typeof input.scale === "number") return input.scale;
  const factor = typeof input.upscale_factor === "string" ? /^(\d+)x$/.exec(input.upscale_factor) : null;
  return factor ? Number(factor[1]) : undefined;
}

/** Upscale: input size times scale; cut-out and edit: the input's size; generate: ~1 MP at the ratio. */
function pictureFor(record: FakeRequestRecord, image: string | undefined): { width: number; height: number; cutout: boolean } {
  const input = image ? pngSize(Buffer.from(image.slice(image.indexOf(",") + 1), "base64")) : null;
  if (input && record.scale) return { width: input.width * record.scale, height: input.height * record.scale, cutout: false };
  if (input) return { ...input, cutout: record.prompt === undefined };
  // "custom" and "match_input_image" have no ratio in them: a square stands in.
  const [w, h] = (/^\d+:\d+$/.test(record.aspectRatio ?? "") ? record.aspectRatio! : "1:1").split(":").map(Number) as [number, number];
  const unit = Math.sqrt((1024 * 1024) / (w * h));
  return { width: Math.round((w * unit) / 32) * 32, height: Math.round((h * unit) / 32) * 32, cutout: false };
}

/** GET https://replicate-delivery.upstream.test/... : the output files. */
export function serveReplicateFile({ res, url }: FakeExchange): void {
  const record = JSON.parse(url.searchParams.get("record") ?? "{}") as FakeRequestRecord;
  switch (url.pathname) {
    case "/out.png": {
      const picture = { width: Number(url.searchParams.get("w")), height: Number(url.searchParams.get("h")), cutout: url.searchParams.get("cutout") === "1" };
      return sendBytes(res, "image/png", encodeFakePng({ ...picture, seed: seedOf(record.prompt ?? "image"), record }));
    }
    case "/out.svg":
      return sendBytes(res, "image/svg+xml", fakeSvg(record));
    case "/oversized.png":
      return sendOversized(res, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case "/text.png":
      return sendBytes(res, "image/png", "plain text served as image/png");
    case "/page.html":
      return sendBytes(res, "text/html; charset=utf-8", "<!doctype html><title>Not an image</title>");
    default:
      res.writeHead(404).end();
  }
}

function firstImage(input: unknown): string | undefined {
  const values = Object.values(input as Record<string, unknown>).flatMap((value) => (Array.isArray(value) ? value : [value]));
  return values.find((value): value is string => typeof value === "string" && value.startsWith("data:"));
}

function urlsOf(id: string) {
  const api = `https://${FAKE_REPLICATE_HOST}/v1/predictions/${id}`;
  return { get: api, cancel: `${api}/cancel`, web: `https://replicate.com/p/${id}` };
}

function problem(x: FakeExchange, status: number, title: string, detail: string): void {
  sendJson(x.res, status, { title, detail, status });
}
