import { fakeImageHostOutbound } from "../input/fake-image-host.ts";
import { fakeOAuthOutbound, isFakeOAuthHost } from "../dashboard/fake-oauth.ts";
import { startFakeUpstream } from "./server.ts";
import { startFakeStripe } from "../stripe/fake-stripe.ts";
import { FAKE_STRIPE_HOST, FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET } from "../stripe/vocabulary.ts";
import {
  FAKE_CLOUDFLARE_ACCOUNT, FAKE_CLOUDFLARE_TOKEN, FAKE_OPENAI_BASE_URL, FAKE_OPENAI_KEY, FAKE_REPLICATE_BASE_URL,
  FAKE_REPLICATE_TOKEN, FAKE_UPSTREAM_SUFFIX,
} from "./scenarios.ts";

// Wiring the fake upstream into the test worker (imported by vitest.config.ts, runs in Node).
// The adapters keep their production rules (https only, real base URL defaults); the test
// bindings point them at https://*.upstream.test, and this outbound service, which receives
// every fetch() the worker makes, sends those hosts to the fake server over plain loopback HTTP.
// Everything else goes to the fake public image host of the input tests, which forwards the
// rest to the network.

let origin: Promise<string> | undefined;
let stripeOrigin: Promise<string> | undefined;

export async function upstreamOutbound(request: Request): Promise<Response> {
  const url = new URL(request.url);
  // GitHub and Google sign-in (the dashboard's OAuth tests) answer from their own fake.
  if (isFakeOAuthHost(url.hostname)) return fakeOAuthOutbound(request);
  if (!url.hostname.endsWith(FAKE_UPSTREAM_SUFFIX)) return fakeImageHostOutbound(request);
  // Stripe (the payment tests) is its own fake server; its events come back to the test to deliver.
  if (url.hostname === FAKE_STRIPE_HOST) return forward((stripeOrigin ??= startFakeStripe().then((fake) => fake.origin)), request);
  return forward((origin ??= startFakeUpstream()), request);
}

async function forward(origin: Promise<string>, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  for (const name of ["host", "content-length", "transfer-encoding", "connection"]) headers.delete(name);
  headers.set("X-Forwarded-Host", url.hostname);
  headers.set("X-Forwarded-Proto", url.protocol.replace(":", ""));
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return fetch(`${await origin}${url.pathname}${url.search}`, {
    method: request.method,
    headers,
    body: hasBody ? await request.arrayBuffer() : null,
    redirect: "manual",
    signal: request.signal,
  });
}

/** Test values of the provider configuration (vars and secrets in production). */
export const FAKE_UPSTREAM_BINDINGS = {
  OPENAI_BASE_URL: FAKE_OPENAI_BASE_URL,
  OPENAI_API_KEY: FAKE_OPENAI_KEY,
  REPLICATE_BASE_URL: FAKE_REPLICATE_BASE_URL,
  REPLICATE_API_TOKEN: FAKE_REPLICATE_TOKEN,
  STRIPE_SECRET_KEY: FAKE_STRIPE_SECRET_KEY,
  STRIPE_WEBHOOK_SECRET: FAKE_STRIPE_WEBHOOK_SECRET,
  STRIPE_API_URL: `https://${FAKE_STRIPE_HOST}`,
};

export const FAKE_WORKERS_AI_WORKER = "fake-workers-ai";
export const FAKE_WORKERS_AI_ENTRYPOINT = "FakeWorkersAi";

/**
 * The extra worker behind the test `AI` binding (see workers-ai-binding.js): it forwards run()
 * to the fake's Workers AI REST endpoint through the same outbound service.
 */
export function fakeWorkersAiWorker(scriptPath: string) {
  return {
    name: FAKE_WORKERS_AI_WORKER,
    modules: true,
    scriptPath,
    compatibilityDate: "2026-08-01",
    bindings: { CLOUDFLARE_ACCOUNT_ID: FAKE_CLOUDFLARE_ACCOUNT, CLOUDFLARE_API_TOKEN: FAKE_CLOUDFLARE_TOKEN },
    outboundService: upstreamOutbound,
  };
}
