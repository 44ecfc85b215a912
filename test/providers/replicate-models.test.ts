import { describe, expect, it } from "vitest";
import { replicateProvider } from "../../src/providers/replicate.ts";
import type { ProviderTask } from "../../src/providers/types.ts";
import { alphaAt, callFor, decodedOutput, modelFor, pngInput, ratio, recordOf, svgRecordOf } from "../upstream/adapter-kit.ts";

// The catalogue's Replicate models, called by their real ids: the fake predictions API checks each
// input against the model's published schema (test/fixtures/provider-schemas/replicate/) and answers
// 422 for a name the model does not declare, so a wrong name fails here.

const taskOf = (task: ProviderTask) => (task.kind === "generate" || task.kind === "edit" ? "image" : task.kind);
const run = (upstream: string, task: ProviderTask) => {
  const model = modelFor("replicate", upstream, taskOf(task));
  replicateProvider.check!(task, model);
  return replicateProvider.run(task, callFor(model));
};
const check = (upstream: string, task: ProviderTask) => () => replicateProvider.check!(task, modelFor("replicate", upstream, taskOf(task)));

describe("Replicate models by their documented inputs", () => {
  it("FLUX.2 [pro]: references as input_images, a listed ratio as aspect_ratio", async () => {
    const references = [await pngInput(30, 20), await pngInput(12, 12)];
    const { bytes } = await decodedOutput(await run("black-forest-labs/flux-2-pro", { kind: "generate", prompt: "like these", aspectRatio: ratio("16:9"), seed: 8, references }));
    expect(recordOf(bytes)).toMatchObject({ imageCount: 2, aspectRatio: "16:9", seed: 8, keys: ["aspect_ratio", "input_images", "output_format", "prompt", "seed"] });
  });

  it("FLUX.2 [pro]: a ratio it does not list goes as custom width and height", async () => {
    const { bytes } = await decodedOutput(await run("black-forest-labs/flux-2-pro", { kind: "generate", prompt: "wide", aspectRatio: ratio("21:9"), seed: 1, references: [] }));
    expect(recordOf(bytes)).toMatchObject({ aspectRatio: "custom", keys: ["aspect_ratio", "height", "output_format", "prompt", "seed", "width"] });
  });

  it("FLUX.2 [pro] and Kontext [pro] edit by instruction", async () => {
    const image = await pngInput(40, 30);
    const edit: ProviderTask = { kind: "edit", prompt: "make it night", action: "edit", image, aspectRatio: ratio("4:3"), seed: 2 };
    const flux2 = await decodedOutput(await run("black-forest-labs/flux-2-pro", edit));
    expect(recordOf(flux2.bytes)).toMatchObject({ prompt: "make it night", imageCount: 1 });
    expect(recordOf(flux2.bytes).keys).toContain("input_images");
    const kontext = await decodedOutput(await run("black-forest-labs/flux-kontext-pro", edit));
    expect(recordOf(kontext.bytes)).toMatchObject({ imageCount: 1, keys: ["aspect_ratio", "input_image", "output_format", "prompt", "seed"] });
  });

  it("FLUX 1.1 [pro]: one reference as image_prompt; no edits", async () => {
    const { bytes } = await decodedOutput(await run("black-forest-labs/flux-1.1-pro", { kind: "generate", prompt: "x", aspectRatio: ratio("1:1"), seed: 1, references: [await pngInput(8, 8)] }));
    expect(recordOf(bytes).keys).toEqual(["aspect_ratio", "image_prompt", "output_format", "prompt", "seed"]);
    const wide = await decodedOutput(await run("black-forest-labs/flux-1.1-pro", { kind: "generate", prompt: "wide", aspectRatio: ratio("21:9"), seed: 1, references: [] }));
    expect(recordOf(wide.bytes)).toMatchObject({ aspectRatio: "custom" }); // its sides stay within 1440, as its schema says
    const image = await pngInput(8, 8);
    expect(check("black-forest-labs/flux-1.1-pro", { kind: "edit", prompt: "x", action: "edit", image, aspectRatio: ratio("1:1"), seed: 1 })).toThrow(/cannot edit/);
    expect(check("black-forest-labs/flux-kontext-pro", { kind: "generate", prompt: "x", aspectRatio: ratio("1:1"), seed: 1, references: [image, image] })).toThrow(/one reference image/);
  });

  it("Bria: image with preserve_alpha, a real cut-out back", async () => {
    const { image, bytes } = await decodedOutput(await run("bria/remove-background", { kind: "remove_bg", image: await pngInput(20, 15) }));
    expect(recordOf(bytes).keys).toEqual(["image", "preserve_alpha"]);
    expect(alphaAt(image, 0, 0)).toBe(0);
  });

  it("Topaz: upscale_factor as \"2x\"/\"4x\"; 8x refused before any charge", async () => {
    const input = await pngInput(20, 15);
    const { image, bytes } = await decodedOutput(await run("topazlabs/image-upscale", { kind: "upscale", image: input, factor: 4 }));
    expect([image.width, image.height]).toEqual([80, 60]);
    expect(recordOf(bytes).keys).toEqual(["image", "output_format", "upscale_factor"]);
    expect(check("topazlabs/image-upscale", { kind: "upscale", image: input, factor: 8 })).toThrow(/2x or 4x/);
  });

  it("Recraft V3 SVG: prompt and size, the style worded into the prompt", async () => {
    const output = await run("recraft-ai/recraft-v3-svg", { kind: "svg", prompt: "a rocket", style: "flat", seed: 1 });
    if (output.kind !== "svg") throw new Error("expected SVG");
    expect(svgRecordOf(output.markup)).toMatchObject({ prompt: "a rocket, in flat style", keys: ["prompt", "size"] });
  });
});
