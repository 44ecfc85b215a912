import { describe, expect, it } from "vitest";
import { expectError } from "../support/envelope";
import { newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, dataUriOf, decodeAny, fetchHosted, postTool, usageRows } from "../support/tool-calls";
import { fakeReplicatePrediction } from "../upstream/adapter-kit";
import { OPENAI_MODELS, REPLICATE_MODELS, WORKERS_AI_MODELS } from "../upstream/scenarios";

// The whole billed path against the fake upstream providers (test/upstream, real HTTP servers
// that speak each provider's API): what a failure costs, seen on the balance and in the log.
// Upstream failures are 502 and refunded; our own failure after the charge (a broken catalogue
// row) is a 500 and not refunded.

const COST = 10; // insertModel's default costPerReq

interface Outcome {
  status: number;
  balance: number;
  log: { status_code: number; credits_deducted: number; credits_refunded: number };
  body: Record<string, unknown>;
}

async function generateWith(provider: "openai" | "replicate" | "workers-ai", upstreamModel: string, body: Record<string, unknown> = {}): Promise<Outcome> {
  const account = await newAccount({ credits: 100 });
  const model = await insertModel({ provider, upstreamModel });
  const response = await postTool("/v1/generate", account.key, { prompt: "a lighthouse at night", model, ...body });
  const [log] = await usageRows(account.id);
  return { status: response.status, balance: await balanceOf(account.id), log: log!, body: (await response.json()) as Record<string, unknown> };
}

const PROVIDERS = [
  ["openai", OPENAI_MODELS],
  ["replicate", REPLICATE_MODELS],
  ["workers-ai", WORKERS_AI_MODELS],
] as const;

describe.each(PROVIDERS)("generate through %s", (provider, scenarios) => {
  it("succeeds: charged once, a real hosted image, the model reported", async () => {
    const outcome = await generateWith(provider, scenarios.ok);
    expect(outcome.status).toBe(200);
    expect(outcome.balance).toBe(100 - COST);
    expect(outcome.log).toMatchObject({ status_code: 200, credits_deducted: COST, credits_refunded: 0 });
    const result = outcome.body.result as { imageUrl: string; model: string; seed?: number };
    expect(result.model).toMatch(/^test-/);
    // A seed is reported only where it was sent: OpenAI's Images API takes none.
    expect(result.seed === undefined, provider).toBe(provider === "openai");
    const { format, image } = await decodeAny(await fetchHosted(result.imageUrl, "image/png"));
    expect(format).toBe("png");
    expect(image.width).toBeGreaterThan(0);
  });

  it.each([
    ["a 4xx", scenarios.http400],
    ["a 5xx", scenarios.http500],
    ["malformed JSON", scenarios.malformedJson],
    ["an oversized body", scenarios.oversized],
    ["something that is not an image", scenarios.notAnImage],
    ["no image at all", scenarios.noImage],
  ])("refunds %s as 502 upstream_error, and the log shows the refund", async (_, scenario) => {
    const outcome = await generateWith(provider, scenario);
    expect(outcome.status).toBe(502);
    const { code } = (outcome.body as { error: { code: string } }).error;
    // Streaming the 41 MB body can outlast the tests' 2 s upstream limit on a loaded machine.
    expect(scenario === scenarios.oversized ? ["upstream_error", "upstream_timeout"] : ["upstream_error"]).toContain(code);
    expect(outcome.body).toMatchObject({ success: false, error: { type: "upstream_error" } });
    expect(outcome.balance).toBe(100);
    expect(outcome.log).toMatchObject({ status_code: 502, credits_deducted: COST, credits_refunded: COST });
  });

  it("refunds a provider that never answers as 502 upstream_timeout", async () => {
    const outcome = await generateWith(provider, scenarios.hang);
    expect(outcome.status).toBe(502);
    expect(outcome.body).toMatchObject({ error: { type: "upstream_error", code: "upstream_timeout" } });
    expect(outcome.balance).toBe(100);
    expect(outcome.log).toMatchObject({ status_code: 502, credits_deducted: COST, credits_refunded: COST });
  });
});

describe("a Replicate prediction the service stops waiting for", () => {
  it("is refunded as 502 upstream_timeout and cancelled upstream after the answer", async () => {
    const prompt = `a lighthouse that never finishes ${crypto.randomUUID()}`;
    const outcome = await generateWith("replicate", REPLICATE_MODELS.hangPoll, { prompt });
    expect(outcome.status).toBe(502);
    expect(outcome.body).toMatchObject({ error: { code: "upstream_timeout" } });
    expect(outcome.balance).toBe(100);
    // The cancel runs in waitUntil, after the answer: give it a moment to arrive.
    let status: string | undefined;
    for (let tries = 0; tries < 50 && status !== "canceled"; tries++) {
      status = (await fakeReplicatePrediction(prompt))?.status;
      if (status !== "canceled") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe("canceled");
  });
});

describe("failures that are not the provider's", () => {
  it("a broken catalogue row fails after the charge with 500, not refunded", async () => {
    const outcome = await generateWith("replicate", "not-an-owner-slash-name");
    expect(outcome.status).toBe(500);
    expect(outcome.body).toMatchObject({ error: { type: "api_error", code: "internal_error" } });
    expect(outcome.balance).toBe(100 - COST);
    expect(outcome.log).toMatchObject({ status_code: 500, credits_deducted: COST, credits_refunded: 0 });
  });

  it("OpenAI's own moderation refusal is an upstream failure and refunded", async () => {
    const outcome = await generateWith("openai", OPENAI_MODELS.moderationBlocked);
    expect(outcome.status).toBe(502);
    expect(outcome.balance).toBe(100);
  });

  it("an upstream refusal the provider check knows of costs nothing: OpenAI cannot write SVG", async () => {
    const account = await newAccount({ credits: 100 });
    const model = await insertModel({ provider: "openai", upstreamModel: OPENAI_MODELS.ok, task: "svg" });
    const response = await postTool("/v1/text-to-svg", account.key, { prompt: "a rocket", model });
    expect(response.status).toBe(400);
    expect(await balanceOf(account.id)).toBe(100);
  });
});

describe("other tools through the fake upstreams", () => {
  it("edit sends the image to OpenAI's edits endpoint and charges the model", async () => {
    const account = await newAccount({ credits: 100 });
    const model = await insertModel({ provider: "openai", upstreamModel: OPENAI_MODELS.ok });
    const image = await dataUriOf(discOnPlainBackground(64, 64));
    const response = await postTool("/v1/edit", account.key, { image, prompt: "add a hat", model });
    expect(response.status).toBe(200);
    expect(await balanceOf(account.id)).toBe(100 - COST);
  });

  it("remove-background, upscale and text-to-svg run on Replicate at their fixed prices", async () => {
    const account = await newAccount({ credits: 100 });
    const image = await dataUriOf(discOnPlainBackground(64, 64));
    const cutout = await insertModel({ provider: "replicate", upstreamModel: REPLICATE_MODELS.ok, task: "remove_bg" });
    const upscaler = await insertModel({ provider: "replicate", upstreamModel: REPLICATE_MODELS.ok, task: "upscale" });
    const vector = await insertModel({ provider: "replicate", upstreamModel: REPLICATE_MODELS.svg, task: "svg" });
    expect((await postTool("/v1/remove-background", account.key, { image, model: cutout })).status).toBe(200);
    expect((await postTool("/v1/upscale", account.key, { image, model: upscaler, scaleFactor: "2x" })).status).toBe(200);
    const svg = await postTool("/v1/text-to-svg", account.key, { prompt: "a rocket", model: vector });
    expect(svg.status).toBe(200);
    const markup = ((await svg.json()) as { result: { svgCode: string } }).result.svgCode;
    expect(markup).toMatch(/^<svg/);
    expect(await balanceOf(account.id)).toBe(100 - 8 - 15 - 5);
  });

  it("a failed Replicate prediction on remove-background is refunded", async () => {
    const account = await newAccount({ credits: 100 });
    const image = await dataUriOf(discOnPlainBackground(64, 64));
    const cutout = await insertModel({ provider: "replicate", upstreamModel: REPLICATE_MODELS.failedPrediction, task: "remove_bg" });
    const response = await postTool("/v1/remove-background", account.key, { image, model: cutout });
    const body = await expectError(response, 502, "upstream_error", "upstream_error");
    expect(body.message).toContain("CUDA out of memory");
    expect(await balanceOf(account.id)).toBe(100);
  });
});
