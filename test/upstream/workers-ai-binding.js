// The test `AI` binding, run by miniflare as an extra worker and bound to the test worker as
// `env.AI` (a service binding to this entrypoint), so the adapter calls `env.AI.run(model, inputs)`
// exactly as in production.
//
// This is the one translation layer in the fake upstream, and it exists because the real AI
// binding is not HTTP from the worker's side: it is a runtime object whose run() resolves to the
// model's answer and rejects with an error. Here run() sends the request the documented REST API
// takes (POST /client/v4/accounts/{account}/ai/run/{model}, Bearer token, JSON inputs, or the
// multipart form FLUX.2 models take) to the fake
// server and returns what the real binding returns: the PNG stream for image/* answers, `result`
// for JSON ones; a failure ({ success: false, errors }) or unparseable JSON becomes a thrown Error
// as the binding's AiError would. Nothing here decides outcomes: the fake server does.
//
// Plain JavaScript because miniflare loads extra workers' modules as they are, without a build.

import { WorkerEntrypoint } from "cloudflare:workers";

export class FakeWorkersAi extends WorkerEntrypoint {
  async run(model, inputs) {
    const url = `https://workers-ai.upstream.test/client/v4/accounts/${this.env.CLOUDFLARE_ACCOUNT_ID}/ai/run/${model}`;
    // `{ multipart: { body, contentType } }` (FLUX.2) goes to the REST API as the form itself.
    const multipart = inputs?.multipart;
    const response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.env.CLOUDFLARE_API_TOKEN}`, "Content-Type": multipart ? multipart.contentType : "application/json" },
      body: multipart ? multipart.body : JSON.stringify(inputs),
    });
    const type = response.headers.get("Content-Type") ?? "";
    if (response.ok && type.startsWith("image/")) return response.body;
    const text = await response.text();
    let reply;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new Error(`AiError: the model ${model} answered something that is not JSON (HTTP ${response.status})`);
    }
    if (!response.ok || reply.success === false) {
      const first = reply.errors?.[0];
      throw new Error(`AiError: ${first?.code ?? response.status}: ${first?.message ?? "unknown error"}`);
    }
    return reply.result;
  }
}

export default {
  fetch() {
    return new Response("The fake Workers AI binding answers run() only.", { status: 404 });
  },
};
