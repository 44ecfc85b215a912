import { describe, expect, it } from "vitest";
import { encodeImage } from "../../src/codecs/index.ts";
import { flux2SizeFor } from "../../src/providers/workers-ai-flux2.ts";
import { workersAiProvider } from "../../src/providers/workers-ai.ts";
import type { ProviderTask, TaskImage } from "../../src/providers/types.ts";
import { discOnPlainBackground } from "../support/pictures.ts";
import { callFor, decodedOutput, expectFailure, modelFor, pngInput, ratio, recordOf } from "../upstream/adapter-kit.ts";
import { WORKERS_AI_MODELS as M } from "../upstream/scenarios.ts";

// FLUX.2 through the test AI binding: the adapter sends the documented multipart form
// (env.AI.run(model, { multipart: { body, contentType } })) and the fake's Workers AI REST endpoint
// parses and checks it the way the model's schema does (test/upstream/fake-workers-ai-flux2.ts).

const model = (upstream: string) => modelFor("workers-ai", upstream);
const run = (upstream: string, task: ProviderTask) => workersAiProvider.run(task, callFor(model(upstream)));
const generate = (prompt: string, references: TaskImage[] = [], label = "1:1"): ProviderTask => ({ kind: "generate", prompt, aspectRatio: ratio(label), seed: 41, references });

describe("FLUX.2 on Workers AI: the multipart request", () => {
  it("generates on [klein] from a prompt alone: prompt, size and seed as form fields, no steps", async () => {
    const { image, bytes } = await decodedOutput(await run(M.flux2Klein, generate("a paper crane", [], "16:9")));
    expect([image.width, image.height]).toEqual([1344, 768]);
    expect(recordOf(bytes)).toMatchObject({ endpoint: "ai/run multipart", prompt: "a paper crane", keys: ["height", "prompt", "seed", "width"], seed: 41, imageCount: 0 });
  });

  it("sends [dev] its steps", async () => {
    const { bytes } = await decodedOutput(await run(M.flux2Dev, generate("a paper crane")));
    expect(recordOf(bytes)).toMatchObject({ steps: 25, size: "1024x1024" });
  });

  it("passes reference images as input_image_0.. in order", async () => {
    const references = [await pngInput(40, 30), await pngInput(64, 64), await pngInput(20, 50)];
    const { bytes } = await decodedOutput(await run(M.flux2Klein, generate("in the style of these", references)));
    const record = recordOf(bytes);
    expect(record.imageCount).toBe(3);
    expect(record.keys).toEqual(["height", "input_image_0", "input_image_1", "input_image_2", "prompt", "seed", "width"]);
    expect(record.inputSizes).toEqual(["40x30", "64x64", "20x50"]);
  });

  it("edits by instruction: the image to edit is input_image_0", async () => {
    const task: ProviderTask = { kind: "edit", prompt: "make the disc blue", action: "edit", image: await pngInput(96, 64), aspectRatio: ratio("3:2"), seed: 5 };
    const { bytes } = await decodedOutput(await run(M.flux2Klein, task));
    expect(recordOf(bytes)).toMatchObject({ prompt: "make the disc blue", imageCount: 1, inputSizes: ["96x64"], seed: 5 });
  });

  it("reduces inputs over 512 px to fit 512x512 (proportions kept) and sends other formats as PNG", async () => {
    const jpeg = await encodeImage(discOnPlainBackground(300, 200), "jpeg");
    const references: TaskImage[] = [await pngInput(1200, 600), { bytes: jpeg, format: "jpeg", width: 300, height: 200 }];
    const { bytes } = await decodedOutput(await run(M.flux2Klein, generate("two references", references)));
    expect(recordOf(bytes).inputSizes).toEqual(["512x256", "300x200"]);
  });

  it("keeps sides within the documented 256..1920", () => {
    expect(flux2SizeFor(ratio("1:1"))).toEqual({ width: 1024, height: 1024 });
    expect(flux2SizeFor(ratio("4:1"))).toEqual({ width: 1792, height: 448 }); // 4:1 exactly; 1920x512 would be 3.75:1
    expect(flux2SizeFor(ratio("1:4"))).toEqual({ width: 448, height: 1792 });
  });
});

describe("FLUX.2 on Workers AI: refusals and failures", () => {
  it("refuses more than 4 references before any charge", async () => {
    const image = await pngInput(8, 8);
    expect(() => workersAiProvider.check!(generate("x", [image, image, image, image, image]), model(M.flux2Klein))).toThrow(/at most 4 reference images/);
    expect(() => workersAiProvider.check!(generate("x", [image, image, image, image]), model(M.flux2Klein))).not.toThrow();
  });

  it("reports the platform's 500 as upstream_error", async () => {
    const error = await expectFailure(run(M.flux2Http500, generate("x")), "upstream_error");
    expect(error.message).toMatch(/3043: Internal server error/);
  });

  it("the fake refuses what the documented API refuses (JSON inputs, steps on [klein], a fifth or oversized input image)", async () => {
    const ai = callFor(model(M.flux2Klein)).env.AI as unknown as { run: (model: string, inputs: object) => Promise<unknown> };
    // An RPC promise settled with then(), so its rejection is observed exactly once.
    const refusal = (inputs: object) => ai.run(M.flux2Klein, inputs).then(() => "accepted", (error: Error) => error.message);
    expect(await refusal({ prompt: "json" })).toMatch(/multipart form data/);
    const form = new FormData();
    form.append("prompt", "x");
    form.append("steps", "25");
    const encoded = new Response(form);
    expect(await refusal({ multipart: { body: encoded.body, contentType: encoded.headers.get("Content-Type") } })).toMatch(/steps cannot be adjusted/);
    const withImage = async (name: string, width: number) => {
      const images = new FormData();
      images.append("prompt", "x");
      images.append(name, new Blob([(await pngInput(width, 8)).bytes], { type: "image/png" }), "in.png");
      const body = new Response(images);
      return refusal({ multipart: { body: body.body, contentType: body.headers.get("Content-Type") } });
    };
    expect(await withImage("input_image_0", 600)).toMatch(/limited to 512x512/);
    expect(await withImage("input_image_4", 8)).toMatch(/at most 4 input images/);
    expect(await withImage("input_image_0", 8)).toBe("accepted");
  });
});
