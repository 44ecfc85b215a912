import { describe, expect, it } from "vitest";
import { sizeFor, workersAiProvider } from "../../src/providers/workers-ai.ts";
import type { ProviderTask } from "../../src/providers/types.ts";
import { callFor, decodedOutput, expectFailure, modelFor, pngInput, ratio, recordOf } from "../upstream/adapter-kit.ts";
import { WORKERS_AI_MODELS as M } from "../upstream/scenarios.ts";

// The Workers AI adapter through the test AI binding, which forwards run() to the fake's Workers AI
// REST endpoint (test/upstream/workers-ai-binding.js, test/upstream/fake-workers-ai.ts).

const model = (upstream: string) => modelFor("workers-ai", upstream);
const run = (upstream: string, task: ProviderTask, options?: Parameters<typeof callFor>[1]) =>
  workersAiProvider.run(task, callFor(model(upstream), options));
const generate = (prompt: string, label = "1:1"): ProviderTask => ({ kind: "generate", prompt, aspectRatio: ratio(label), seed: 77, references: [] });

describe("workers-ai adapter: success", () => {
  it("runs a Stable Diffusion style model at ~1 MP for the ratio and reads its PNG stream", async () => {
    const { image, bytes } = await decodedOutput(await run(M.ok, generate("a mountain lake", "16:9")));
    expect([image.width, image.height]).toEqual([1344, 768]);
    expect(recordOf(bytes)).toMatchObject({ model: M.ok, prompt: "a mountain lake", seed: 77, keys: ["height", "prompt", "seed", "width"] });
  });

  it("sends FLUX.1 schnell only prompt and steps (its published schema has no seed) and decodes its { image } answer", async () => {
    const { image, bytes } = await decodedOutput(await run(M.flux, generate("a cyberpunk lizard", "16:9")));
    expect([image.width, image.height]).toEqual([1024, 1024]);
    expect(recordOf(bytes)).toMatchObject({ keys: ["prompt", "steps"], steps: 4 });
    expect(recordOf(bytes).seed).toBeUndefined();
  });

  it("edits with an image-to-image model: the image as bytes, with a strength", async () => {
    const task: ProviderTask = { kind: "edit", prompt: "make it autumn", action: "edit", image: await pngInput(64, 48), aspectRatio: ratio("4:3"), seed: 3 };
    const { image, bytes } = await decodedOutput(await run(M.img2img, task));
    expect(Math.abs(image.width / image.height - 4 / 3)).toBeLessThan(0.05);
    expect(recordOf(bytes)).toMatchObject({ imageCount: 1, strength: 0.6, prompt: "make it autumn" });
  });

  it("uses a first reference image as the init image of a diffusion model", async () => {
    const references = [await pngInput(32, 32)];
    const { bytes } = await decodedOutput(await run(M.ok, { kind: "generate", prompt: "like this", aspectRatio: ratio("1:1"), seed: 1, references }));
    expect(recordOf(bytes)).toMatchObject({ imageCount: 1, strength: 0.8 });
  });

  it("maps ratios to sides that are multiples of 64 within 256..2048", () => {
    expect(sizeFor(ratio("1:1"))).toEqual({ width: 1024, height: 1024 });
    expect(sizeFor(ratio("9:16"))).toEqual({ width: 768, height: 1344 });
    expect(sizeFor(ratio("1:4"))).toEqual({ width: 512, height: 2048 });
  });
});

describe("workers-ai adapter: refusals and failures", () => {
  it("refuses, before any charge, what the model family cannot do", async () => {
    const image = await pngInput(8, 8);
    const check = (upstream: string, task: ProviderTask) => () => workersAiProvider.check!(task, model(upstream));
    expect(check(M.flux, { kind: "edit", prompt: "x", action: "edit", image, aspectRatio: ratio("1:1"), seed: 1 })).toThrow(/cannot edit/);
    expect(check(M.flux, { kind: "generate", prompt: "x", aspectRatio: ratio("1:1"), seed: 1, references: [image] })).toThrow(/no reference images/);
    expect(check(M.img2img, generate("x"))).toThrow(/needs an input image/);
    expect(check(M.ok, { kind: "remove_bg", image })).toThrow(/cannot do remove_bg/);
  });

  it("reports the binding's errors as upstream_error", async () => {
    expect((await expectFailure(run(M.http400, generate("x")), "upstream_error")).message).toMatch(/^Workers AI failed running @cf\/fake\/http-400: .*5006/);
    expect((await expectFailure(run(M.http500, generate("x")), "upstream_error")).message).toMatch(/Internal server error/);
    expect((await expectFailure(run(M.malformedJson, generate("x")), "upstream_error")).message).toMatch(/not JSON/);
  });

  it("gives up at the caller's deadline with upstream_timeout", async () => {
    await expectFailure(run(M.hang, generate("x"), { timeoutMs: 300 }), "upstream_timeout");
  });

  it("refuses an oversized stream, a non-image and an answer without an image", async () => {
    expect((await expectFailure(run(M.oversized, generate("x")), "upstream_error")).message).toMatch(/more than 40 MB/);
    expect((await expectFailure(run(M.notAnImage, generate("x")), "upstream_error")).message).toMatch(/not an image/);
    expect((await expectFailure(run(M.noImage, generate("x")), "upstream_error")).message).toMatch(/without an image/);
  });

  it("fails as upstream_error without an AI binding", async () => {
    await expectFailure(run(M.ok, generate("x"), { env: { AI: undefined } }), "upstream_error");
  });
});
