import { describe, expect, it } from "vitest";
import { openaiProvider, sizeFor } from "../../src/providers/openai.ts";
import type { ProviderTask } from "../../src/providers/types.ts";
import { alphaAt, callFor, decodedOutput, expectFailure, modelFor, pngInput, ratio, recordOf } from "../upstream/adapter-kit.ts";
import { FAKE_OPENAI_BASE_URL, FAKE_OPENAI_KEY, OPENAI_MODELS as M } from "../upstream/scenarios.ts";

// The OpenAI adapter against the fake Images API (test/upstream/fake-openai.ts), called directly.

const model = (upstream: string) => modelFor("openai", upstream);
const run = (upstream: string, task: ProviderTask, options?: Parameters<typeof callFor>[1]) =>
  openaiProvider.run(task, callFor(model(upstream), options));
const generate = (prompt: string, label = "1:1"): ProviderTask => ({ kind: "generate", prompt, aspectRatio: ratio(label), seed: 42, references: [] });

describe("openai adapter: success", () => {
  it("generates through images/generations with our key, the nearest GPT Image size and no response_format", async () => {
    const { image, bytes } = await decodedOutput(await run(M.ok, generate("a lighthouse at dusk", "16:9")));
    expect([image.width, image.height]).toEqual([1536, 1024]);
    const record = recordOf(bytes);
    expect(record).toMatchObject({ endpoint: "images/generations", model: M.ok, prompt: "a lighthouse at dusk", size: "1536x1024", imageCount: 0 });
    expect(record.keys).toEqual(["model", "n", "prompt", "size"]);
  });

  it("maps portrait and square ratios to the portrait and square sizes", async () => {
    const portrait = await decodedOutput(await run(M.ok, generate("a tall tower", "9:16")));
    expect([portrait.image.width, portrait.image.height]).toEqual([1024, 1536]);
    const square = await decodedOutput(await run(M.ok, generate("a round plate", "6:5")));
    expect([square.image.width, square.image.height]).toEqual([1024, 1024]);
  });

  it("asks DALL-E models for b64_json at their own sizes", async () => {
    const { image, bytes } = await decodedOutput(await run(M.dallE3, generate("a fox", "21:9")));
    expect([image.width, image.height]).toEqual([1792, 1024]);
    expect(recordOf(bytes).responseFormat).toBe("b64_json");
  });

  it("sends references as image[] files to images/edits", async () => {
    const references = await Promise.all([pngInput(40, 30), pngInput(20, 20), pngInput(16, 32)]);
    const { bytes } = await decodedOutput(await run(M.ok, { kind: "generate", prompt: "these three, together", aspectRatio: ratio("1:1"), seed: 42, references }));
    expect(recordOf(bytes)).toMatchObject({ endpoint: "images/edits", imageCount: 3, imageField: "image[]", prompt: "these three, together", size: "1024x1024" });
  });

  it("edits one image sent as the `image` file", async () => {
    const task: ProviderTask = { kind: "edit", prompt: "make it night", action: "edit", image: await pngInput(48, 32), aspectRatio: ratio("3:2"), seed: 1 };
    const { image, bytes } = await decodedOutput(await run(M.ok, task));
    expect([image.width, image.height]).toEqual([1536, 1024]);
    expect(recordOf(bytes)).toMatchObject({ endpoint: "images/edits", imageCount: 1, imageField: "image", prompt: "make it night" });
    expect(recordOf(bytes).background).toBeUndefined();
  });

  it("asks for a transparent background for remove_bg (task and edit action) and gets a cut-out", async () => {
    const image = await pngInput(64, 64);
    const cutout = await decodedOutput(await run(M.ok, { kind: "remove_bg", image }));
    expect(recordOf(cutout.bytes)).toMatchObject({ endpoint: "images/edits", background: "transparent", imageCount: 1 });
    expect(alphaAt(cutout.image, 0, 0)).toBe(0);
    expect(alphaAt(cutout.image, 512, 512)).toBe(255);
    const action = await decodedOutput(await run(M.ok, { kind: "edit", prompt: "remove the background", action: "remove_bg", image, aspectRatio: ratio("1:1"), seed: 3 }));
    expect(recordOf(action.bytes).background).toBe("transparent");
  });

  it("downloads the file when the API answers data[0].url", async () => {
    const { image, bytes } = await decodedOutput(await run(M.urlOutput, generate("a kite")));
    expect([image.width, image.height]).toEqual([1024, 1024]);
    expect(recordOf(bytes).prompt).toBe("a kite");
  });

  it("picks sizes by log-nearest ratio", () => {
    expect(sizeFor("gpt-image-1", ratio("4:3"))).toBe("1536x1024");
    expect(sizeFor("gpt-image-1", ratio("3:4"))).toBe("1024x1536");
    expect(sizeFor("gpt-image-1", ratio("5:4"))).toBe("1536x1024");
    expect(sizeFor("gpt-image-1", ratio("6:5"))).toBe("1024x1024");
    expect(sizeFor("dall-e-3", ratio("9:16"))).toBe("1024x1792");
    expect(sizeFor("dall-e-2", ratio("16:9"))).toBe("1024x1024");
  });
});

describe("openai adapter: refusals and failures", () => {
  it("refuses upscale and svg before any charge", () => {
    expect(() => openaiProvider.check!({ kind: "svg", prompt: "a cat", style: "icon", seed: 1 }, model(M.ok))).toThrow(/cannot do SVG/);
    expect(() => openaiProvider.check!({ kind: "upscale", image: { bytes: new Uint8Array(1), format: "png", width: 1, height: 1 }, factor: 2 }, model(M.ok))).toThrow(/upscal/);
  });

  it("refuses transparent output from GPT Image 2 before any charge, as OpenAI documents it refused", async () => {
    const image = await pngInput(32, 32);
    const gptImage2 = model("gpt-image-2");
    expect(() => openaiProvider.check!({ kind: "remove_bg", image }, gptImage2)).toThrow(/cannot make a transparent background/);
    expect(() => openaiProvider.check!({ kind: "edit", prompt: "cut out", action: "remove_bg", image, aspectRatio: ratio("1:1"), seed: 1 }, gptImage2)).toThrow(/generate_transparent_image/);
    // ...while an ordinary edit goes through, without any background parameter.
    const edited = await decodedOutput(await run("gpt-image-2", { kind: "edit", prompt: "make it night", action: "edit", image, aspectRatio: ratio("1:1"), seed: 1 }));
    expect(recordOf(edited.bytes)).toMatchObject({ model: "gpt-image-2", endpoint: "images/edits" });
    expect(recordOf(edited.bytes).background).toBeUndefined();
  });

  it("the fake holds OpenAI's rules: GPT Image 1 is shut down, GPT Image 2 refuses a transparent background", async () => {
    const shutDown = await expectFailure(run("gpt-image-1", generate("x")), "upstream_error");
    expect(shutDown.message).toMatch(/HTTP 404.*model_not_found/);
    const form = new FormData();
    for (const [name, value] of Object.entries({ model: "gpt-image-2", prompt: "x", background: "transparent" })) form.append(name, value);
    form.append("image", new Blob([(await pngInput(8, 8)).bytes], { type: "image/png" }), "a.png");
    const refused = await fetch(`${FAKE_OPENAI_BASE_URL}/images/edits`, { method: "POST", headers: { Authorization: `Bearer ${FAKE_OPENAI_KEY}` }, body: form });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe("Transparent background is not supported for this model.");
  });

  it("reports a 4xx with the provider's message", async () => {
    const error = await expectFailure(run(M.http400, generate("x")), "upstream_error");
    expect(error.message).toMatch(/^OpenAI answered HTTP 400 .*Invalid prompt: this fake refuses it/);
  });

  it("treats OpenAI's own moderation refusal as an upstream failure (refunded)", async () => {
    const error = await expectFailure(run(M.moderationBlocked, generate("x")), "upstream_error");
    expect(error.message).toMatch(/HTTP 400.*moderation_blocked/);
  });

  it("reports a 5xx", async () => {
    expect((await expectFailure(run(M.http500, generate("x")), "upstream_error")).message).toMatch(/HTTP 500/);
  });

  it("gives up at the caller's deadline with upstream_timeout", async () => {
    await expectFailure(run(M.hang, generate("x"), { timeoutMs: 300 }), "upstream_timeout");
  });

  it("refuses malformed JSON, an oversized body, a non-image and a reply without an image", async () => {
    expect((await expectFailure(run(M.malformedJson, generate("x")), "upstream_error")).message).toMatch(/not valid JSON/);
    expect((await expectFailure(run(M.oversized, generate("x")), "upstream_error")).message).toMatch(/more than 40 MB/);
    expect((await expectFailure(run(M.notAnImage, generate("x")), "upstream_error")).message).toMatch(/not an image/);
    expect((await expectFailure(run(M.noImage, generate("x")), "upstream_error")).message).toMatch(/without an image/);
  });

  it("never repeats a key in its messages, even when the upstream quotes it", async () => {
    const wrong = "sk-wrong-key-that-must-stay-secret";
    const refused = await expectFailure(run(M.ok, generate("x"), { env: { OPENAI_API_KEY: wrong } }), "upstream_error");
    expect(refused.message).toMatch(/refused our credentials \(HTTP 401\)/);
    expect(refused.message).not.toContain(wrong);
    const reflected = await expectFailure(run(M.reflectAuth, generate("x")), "upstream_error");
    expect(reflected.message).toContain("[redacted]");
    expect(reflected.message).not.toContain(FAKE_OPENAI_KEY);
  });

  it("fails as upstream_error when not configured for https", async () => {
    await expectFailure(run(M.ok, generate("x"), { env: { OPENAI_API_KEY: "" } }), "upstream_error");
    await expectFailure(run(M.ok, generate("x"), { env: { OPENAI_BASE_URL: "http://openai.upstream.test/v1" } }), "upstream_error");
  });
});
