import { settingsOf } from "../config/settings";
import type { Env } from "../env";
import { PixelgateError } from "../errors";
import type { ImageProvider, ProviderCall } from "./types";
import { InputLinks } from "./input-links";
import { predictionInput } from "./replicate-input";
import { knownReplicateModel } from "./replicate-models";
import type { Model } from "../models/catalog";
import { ACCEPTED_INPUTS, withAcceptedImages, type AcceptedInputs } from "./accepted-inputs";
import { UpstreamClient, pause, isAllowedApiBase } from "./upstream-http";
import { decodeDataUri, encodedImage, fetchOutputFile, svgMarkup } from "./upstream-output";

// Replicate predictions (REPLICATE_BASE_URL, REPLICATE_API_TOKEN). `upstreamModel` is either
// "owner/name" (an official model: POST /v1/models/{owner}/{name}/predictions, the path Replicate
// documents for official models only) or "owner/name:version" (POST /v1/predictions with
// `version`, how community models are run). The request carries `Prefer: wait=N`, N a second
// shorter than the call's deadline, so most predictions come back finished; one that is still
// running when the wait ends is polled at its `urls.get` until it succeeds, fails or is canceled,
// for as long as the caller's deadline allows. The prediction is created once and never
// re-created: a second POST would start (and bill) a second run. It never outlives the call that
// paid for it: `Cancel-After` (Replicate's prediction deadline) is the call's deadline, so
// Replicate cancels it itself even when the create POST is cut before its id comes back; and one
// we stop waiting for is also cancelled at once (urls.cancel), in the background.
// Input images up to 1 MB go as data URIs; larger ones as signed links to our own copy in R2 that
// expire with the call's deadline and are deleted when the prediction is over (input-links.ts).
// `output` is a URL, an array of URLs (the first is used) or a data URI; files are fetched over
// https only, image/* only, size-limited. Our token is sent only to the API's own origin (for
// its files API), never to the CDN that serves outputs.

const DEFAULT_BASE_URL = "https://api.replicate.com";
/** Replicate accepts `Prefer: wait` between 1 and 60 seconds. */
const MAX_WAIT_SECONDS = 60;
/** Replicate's `Cancel-After` takes a duration such as "45s" or "1m"; under a second is not one. */
const MIN_CANCEL_AFTER_SECONDS = 1;
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 2000;
const TERMINAL = new Set(["succeeded", "failed", "canceled", "aborted"]);
const CANCEL_TIMEOUT_MS = 10_000;

interface Prediction {
  id?: unknown;
  status?: unknown;
  output?: unknown;
  error?: unknown;
  urls?: { get?: unknown; cancel?: unknown };
}

/** What the model's input images are made to fit: its row of ACCEPTED_INPUTS. */
function acceptsOf(model: Model): AcceptedInputs {
  return ACCEPTED_INPUTS[knownReplicateModel(model.upstreamModel)?.accepts ?? "replicate"];
}

export const replicateProvider: ImageProvider = {
  name: "replicate",
  seeded: ["generate", "edit"], // the FLUX models' `seed`; the cut-out, upscaler and SVG model take none
  check(task, model) {
    knownReplicateModel(model.upstreamModel)?.check?.(task, model.name);
  },
  accepts: acceptsOf,
  async run(task, call) {
    const { env, model } = call;
    const { replicate } = settingsOf(env);
    const token = replicate.apiToken ?? "";
    const upstream = new UpstreamClient("Replicate", call.signal, [token]);
    const base = (replicate.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    if (!token || !isAllowedApiBase(base)) throw upstream.failure("is not configured (REPLICATE_API_TOKEN, and an https (or loopback http) REPLICATE_BASE_URL).");

    const auth = `Bearer ${token}`;
    const accepted = await withAcceptedImages(task, acceptsOf(model));
    const links = new InputLinks(call);
    try {
      const input = predictionInput(accepted, model.upstreamModel, await links.referencesFor(accepted));
      const bytes = await predict(upstream, call, base, auth, input);
      return task.kind === "svg" ? svgMarkup(upstream, bytes, "an output file") : encodedImage(upstream, bytes, "an output file");
    } finally {
      links.release(); // the prediction is over (or cancelled): nothing will fetch the copies now
    }
  },
};

/** Creates the prediction, waits for it within the call's deadline (cancelling it if we give up) and fetches its output file. */
async function predict(upstream: UpstreamClient, call: ProviderCall, base: string, auth: string, input: Record<string, unknown>): Promise<Uint8Array> {
  const { env, model } = call;
  const { url, body } = creation(base, model.upstreamModel, input);
  const response = await upstream.send(url, {
    method: "POST",
    headers: { Authorization: auth, "Content-Type": "application/json", Accept: "application/json", ...deadlineHeaders(env) },
    body: JSON.stringify(body),
  });
  await upstream.expectOk(response, "when creating the prediction");
  let prediction = asPrediction(upstream, await upstream.readJson(response, "when creating the prediction"));

  try {
    for (let delay = FIRST_POLL_MS; !TERMINAL.has(String(prediction.status)); delay = Math.min(MAX_POLL_MS, delay * 1.5)) {
      await upstream.step(pause(delay, call.signal), "stopped while waiting for the prediction.");
      const poll = await upstream.send(apiUrl(base, prediction, "get"), { method: "GET", headers: { Authorization: auth, Accept: "application/json" } });
      await upstream.expectOk(poll, "when polling the prediction");
      prediction = asPrediction(upstream, await upstream.readJson(poll, "when polling the prediction"));
    }
  } catch (error) {
    // We gave up (our deadline, or a poll that failed) on a prediction that is still running:
    // cancel it, or it runs to the end and is billed to the account that owns the token.
    const cancel = cancelPrediction(apiUrl(base, prediction, "cancel"), auth);
    call.waitUntil?.(cancel);
    throw error;
  }

  if (prediction.status !== "succeeded") {
    const reason = typeof prediction.error === "string" && prediction.error ? `: ${prediction.error.slice(0, 300)}` : ".";
    throw upstream.failure(`prediction ${String(prediction.id)} ${prediction.status === "failed" ? "failed" : `was ${String(prediction.status)}`}${reason}`);
  }
  return outputBytes(upstream, prediction.output, { origin: new URL(base).origin, header: auth });
}

function creation(base: string, upstreamModel: string, input: Record<string, unknown>): { url: string; body: Record<string, unknown> } {
  const match = /^([\w.-]+)\/([\w.-]+)(?::([\w.-]+))?$/.exec(upstreamModel);
  if (!match) {
    // A catalogue row we cannot call: ours to fix, so not refunded as an upstream failure.
    throw new PixelgateError("internal_error", `The Replicate model id "${upstreamModel}" is not owner/name or owner/name:version.`);
  }
  const [, owner, name, version] = match;
  if (version) return { url: `${base}/v1/predictions`, body: { version, input } };
  return { url: `${base}/v1/models/${owner}/${name}/predictions`, body: { input } };
}

/**
 * `Cancel-After`: the call's deadline in whole seconds (rounded down, so Replicate's deadline is
 * never the later one). `Prefer: wait`: within Replicate's range and a second shorter than that,
 * so a prediction still running comes back with its id while there is time to cancel it.
 */
export function deadlineHeaders(env: Env): { Prefer: string; "Cancel-After": string } {
  const deadlineSeconds = Math.max(MIN_CANCEL_AFTER_SECONDS, Math.floor(settingsOf(env).upstreamTimeoutMs / 1000));
  const wait = Math.min(MAX_WAIT_SECONDS, Math.max(1, deadlineSeconds - 1));
  return { Prefer: `wait=${wait}`, "Cancel-After": `${deadlineSeconds}s` };
}

function asPrediction(upstream: UpstreamClient, reply: unknown): Prediction {
  const prediction = reply as Prediction | null;
  if (typeof prediction !== "object" || prediction === null || typeof prediction.status !== "string" || typeof prediction.id !== "string") {
    throw upstream.failure("answered with something that is not a prediction (no id or status).");
  }
  return prediction;
}

/**
 * A prediction's `urls.get` or `urls.cancel` when it is on the API's own origin; otherwise the
 * documented path (our token stays home).
 */
function apiUrl(base: string, prediction: Prediction, action: "get" | "cancel"): string {
  const url = prediction.urls?.[action];
  if (typeof url === "string") {
    try {
      if (new URL(url).origin === new URL(base).origin) return url;
    } catch {
      // fall through to the documented path
    }
  }
  const path = `${base}/v1/predictions/${encodeURIComponent(String(prediction.id))}`;
  return action === "get" ? path : `${path}/cancel`;
}

/**
 * POST .../cancel, outside the call's own (expired) deadline. Best effort: nobody waits for the
 * answer, and a failure only means the prediction runs on.
 */
async function cancelPrediction(url: string, auth: string): Promise<void> {
  try {
    const response = await fetch(url, { method: "POST", headers: { Authorization: auth }, signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) });
    await response.body?.cancel();
  } catch {
    // the prediction runs on; nothing else to do
  }
}

async function outputBytes(upstream: UpstreamClient, output: unknown, authorization: { origin: string; header: string }): Promise<Uint8Array> {
  const first = Array.isArray(output) ? output.find((item) => typeof item === "string") : output;
  if (typeof first !== "string" || first === "") {
    throw upstream.failure("prediction succeeded without an output file.");
  }
  if (/^data:/i.test(first)) return decodeDataUri(upstream, first, "an output");
  return fetchOutputFile(upstream, first, { authorization });
}
