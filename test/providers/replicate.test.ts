import { describe, expect, it } from "vitest";
import { replicateProvider } from "../../src/providers/replicate.ts";
import type { ProviderTask } from "../../src/providers/types.ts";
import { alphaAt, callFor, decodedOutput, expectFailure, fakeReplicatePrediction, modelFor, pngInput, ratio, recordOf, svgRecordOf } from "../upstream/adapter-kit.ts";
import { FAILED_PREDICTION_ERROR, FAKE_REPLICATE_TOKEN, REPLICATE_MODELS as M, SLOW_CREATE_MS, SLOW_POLL_SUCCEEDS_AT } from "../upstream/scenarios.ts";

// The Replicate adapter against the fake predictions API (test/upstream/fake-replicate.ts).

const run = (upstream: string, task: ProviderTask, options?: Parameters<typeof callFor>[1]) =>
  replicateProvider.run(task, callFor(modelFor("replicate", upstream, task.kind === "generate" || task.kind === "edit" ? "image" : task.kind), options));
const generate = (prompt: string, label = "1:1"): ProviderTask => ({ kind: "generate", prompt, aspectRatio: ratio(label), seed: 1234, references: [] });

describe("replicate adapter: success", () => {
  it("creates an official-model prediction with Prefer: wait and fetches the output file", async () => {
    const { image, bytes } = await decodedOutput(await run(M.ok, generate("a red bicycle", "16:9")));
    expect(Math.abs(image.width / image.height - 16 / 9)).toBeLessThan(0.03);
    const record = recordOf(bytes);
    expect(record).toMatchObject({ endpoint: "models/fake/ok/predictions", prompt: "a red bicycle", aspectRatio: "16:9", seed: 1234, imageCount: 0 });
    // UPSTREAM_TIMEOUT_MS is 2000 in tests: Replicate cancels the prediction at our deadline and
    // the wait ends a second before it, so a running prediction comes back while there is time.
    expect(record.cancelAfter).toBe("2s");
    expect(record.prefer).toBe("wait=1");
    expect(record.keys).toEqual(["aspect_ratio", "output_format", "prompt", "seed"]);
  });

  it("sends references as data URIs", async () => {
    const references = [await pngInput(30, 20), await pngInput(10, 10)];
    const { bytes } = await decodedOutput(await run(M.ok, { kind: "generate", prompt: "in this style", aspectRatio: ratio("1:1"), seed: 5, references }));
    expect(recordOf(bytes)).toMatchObject({ imageCount: 2 });
    expect(recordOf(bytes).keys).toEqual(expect.arrayContaining(["image_input", "image_prompt"]));
  });

  it("addresses owner/name:version through /v1/predictions", async () => {
    const { bytes } = await decodedOutput(await run(M.versioned, generate("a boat")));
    expect(recordOf(bytes)).toMatchObject({ endpoint: "predictions", version: M.versioned.split(":")[1] });
  });

  it("edits, removes backgrounds and upscales with the input image", async () => {
    const input = await pngInput(20, 15);
    const edited = await decodedOutput(await run(M.ok, { kind: "edit", prompt: "add snow", action: "edit", image: input, aspectRatio: ratio("4:3"), seed: 9 }));
    expect([edited.image.width, edited.image.height]).toEqual([20, 15]);
    expect(recordOf(edited.bytes)).toMatchObject({ prompt: "add snow", imageCount: 1 });

    const cutout = await decodedOutput(await run(M.ok, { kind: "remove_bg", image: input }));
    expect(recordOf(cutout.bytes).keys).toEqual(["image"]);
    expect(alphaAt(cutout.image, 0, 0)).toBe(0);
    expect(alphaAt(cutout.image, 10, 7)).toBe(255);

    const upscaled = await decodedOutput(await run(M.ok, { kind: "upscale", image: input, factor: 4 }));
    expect([upscaled.image.width, upscaled.image.height]).toEqual([80, 60]);
    expect(recordOf(upscaled.bytes).scale).toBe(4);
  });

  it("returns SVG markup for the svg task, with the style in the prompt", async () => {
    const output = await run(M.svg, { kind: "svg", prompt: "a rocket", style: "icon", seed: 1 });
    expect(output.kind).toBe("svg");
    if (output.kind !== "svg") return;
    expect(output.markup).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(svgRecordOf(output.markup).prompt).toBe("a rocket, in icon style");
  });

  it("accepts an array of URLs and a data URI as output", async () => {
    expect(recordOf((await decodedOutput(await run(M.arrayOutput, generate("one")))).bytes).prompt).toBe("one");
    expect(recordOf((await decodedOutput(await run(M.dataUriOutput, generate("two")))).bytes).prompt).toBe("two");
  });

  it("polls urls.get until a slow prediction succeeds", async () => {
    const { bytes } = await decodedOutput(await run(M.slowPoll, generate("slowly")));
    expect(recordOf(bytes).polls).toBe(SLOW_POLL_SUCCEEDS_AT);
  });
});

describe("replicate adapter: failures", () => {
  it("reports a failed or canceled prediction with its error", async () => {
    const failed = await expectFailure(run(M.failedPrediction, generate("x")), "upstream_error");
    expect(failed.message).toMatch(/prediction \w+ failed/);
    expect(failed.message).toContain(FAILED_PREDICTION_ERROR);
    expect((await expectFailure(run(M.canceled, generate("x")), "upstream_error")).message).toMatch(/was canceled/);
  });

  it("reports 4xx and 5xx answers with the provider's detail", async () => {
    expect((await expectFailure(run(M.http400, generate("x")), "upstream_error")).message).toMatch(/HTTP 422 .*Invalid type/);
    expect((await expectFailure(run(M.http500, generate("x")), "upstream_error")).message).toMatch(/HTTP 500/);
  });

  it("times out while creating and while polling, and cancels the prediction it stops waiting for", async () => {
    const background: Promise<unknown>[] = [];
    const waitUntil = (work: Promise<unknown>) => void background.push(work);
    await expectFailure(run(M.hang, generate("x"), { timeoutMs: 300, waitUntil }), "upstream_timeout");
    expect(background).toHaveLength(0); // no prediction was created, so there is nothing to cancel

    const prompt = `cancel me ${crypto.randomUUID()}`;
    await expectFailure(run(M.hangPoll, generate(prompt), { timeoutMs: 1200, waitUntil }), "upstream_timeout");
    expect(background).toHaveLength(1);
    await Promise.all(background);
    expect((await fakeReplicatePrediction(prompt))?.status).toBe("canceled");
  });

  it("a prediction whose create POST is held open past the deadline is cancelled by its Cancel-After", async () => {
    const background: Promise<unknown>[] = [];
    const prompt = `held open ${crypto.randomUUID()}`;
    const started = Date.now();
    await expectFailure(run(M.slowCreate, generate(prompt), { timeoutMs: 1000, env: { UPSTREAM_TIMEOUT_MS: "1000" }, waitUntil: (work) => void background.push(work) }), "upstream_timeout");
    expect(background).toHaveLength(0); // no id came back: only Replicate's own deadline can stop it
    let status: string | undefined;
    while (Date.now() - started < SLOW_CREATE_MS - 1000) {
      status = (await fakeReplicatePrediction(prompt))?.status;
      if (status === "canceled") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Canceled at its 1 s deadline, long before the held request would have let it finish.
    expect(status).toBe("canceled");
    expect(Date.now() - started).toBeLessThan(SLOW_CREATE_MS - 1000);
  });

  it("runs pinned community models by version; their version-less path answers 404 as Replicate's does", async () => {
    const input = await pngInput(20, 15);
    const cutout = await decodedOutput(await run("cjwbw/rembg:fb8af171cfa1616ddcf1242c093f9c46bcada5ad4cf6f2fbe8b81b330ec5c003", { kind: "remove_bg", image: input }));
    expect(recordOf(cutout.bytes)).toMatchObject({ endpoint: "predictions", model: "cjwbw/rembg", keys: ["image"] });
    const upscaled = await decodedOutput(await run("nightmareai/real-esrgan:f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa", { kind: "upscale", image: input, factor: 8 }));
    expect([upscaled.image.width, upscaled.image.height]).toEqual([160, 120]);
    expect(recordOf(upscaled.bytes)).toMatchObject({ endpoint: "predictions", model: "nightmareai/real-esrgan", scale: 8 });
    const versionless = await expectFailure(run("cjwbw/rembg", { kind: "remove_bg", image: input }), "upstream_error");
    expect(versionless.message).toMatch(/HTTP 404/);
  });

  it("refuses malformed JSON, oversized, non-image, html, plain-http and missing outputs", async () => {
    expect((await expectFailure(run(M.malformedJson, generate("x")), "upstream_error")).message).toMatch(/not valid JSON/);
    expect((await expectFailure(run(M.oversized, generate("x")), "upstream_error")).message).toMatch(/more than 40 MB/);
    expect((await expectFailure(run(M.notAnImage, generate("x")), "upstream_error")).message).toMatch(/not an image/);
    expect((await expectFailure(run(M.htmlOutput, generate("x")), "upstream_error")).message).toMatch(/"text\/html", not an image/);
    expect((await expectFailure(run(M.httpOutput, generate("x")), "upstream_error")).message).toMatch(/not https/);
    expect((await expectFailure(run(M.noImage, generate("x")), "upstream_error")).message).toMatch(/without an output/);
  });

  it("never repeats the token in its messages", async () => {
    const wrong = "r8_wrong_token_that_must_stay_secret";
    const refused = await expectFailure(run(M.ok, generate("x"), { env: { REPLICATE_API_TOKEN: wrong } }), "upstream_error");
    expect(refused.message).toMatch(/refused our credentials \(HTTP 401\)/);
    expect(refused.message).not.toContain(wrong);
    const reflected = await expectFailure(run(M.reflectAuth, generate("x")), "upstream_error");
    expect(reflected.message).toContain("[redacted]");
    expect(reflected.message).not.toContain(FAKE_REPLICATE_TOKEN);
  });
});
