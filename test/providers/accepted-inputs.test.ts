import { describe, expect, it } from "vitest";
import { encodeImage, readHeader, sniffFormat } from "../../src/codecs/index.ts";
import { ACCEPTED_INPUTS, acceptedImage } from "../../src/providers/accepted-inputs.ts";
import { openaiProvider } from "../../src/providers/openai.ts";
import { replicateProvider } from "../../src/providers/replicate.ts";
import type { ImageFormat } from "../../src/codecs/index.ts";
import type { TaskImage } from "../../src/providers/types.ts";
import { discOnPlainBackground } from "../support/pictures.ts";
import { exifApp1, withJpegSegments } from "../codecs/support.ts";
import { callFor, decodedOutput, modelFor, ratio, recordOf } from "../upstream/adapter-kit.ts";

// Each provider gets input images in a format it documents, upright and within its documented
// size (src/providers/accepted-inputs.ts); the fakes refuse anything else.

async function input(width: number, height: number, format: ImageFormat, alpha = false): Promise<TaskImage> {
  const raster = discOnPlainBackground(width, height);
  if (alpha) raster.data[3] = 0;
  const bytes = await encodeImage(raster, format);
  return { bytes, format, width, height };
}

describe("acceptedImage", () => {
  it("leaves an input the provider takes as it is (the same bytes)", async () => {
    const png = await input(40, 30, "png");
    expect(await acceptedImage(png, ACCEPTED_INPUTS.openai)).toBe(png);
  });

  it("converts a format the provider does not list: JPEG when opaque, PNG when it has transparency", async () => {
    const bmp = await acceptedImage(await input(40, 30, "bmp"), ACCEPTED_INPUTS.openai);
    expect([bmp.format, sniffFormat(bmp.bytes), bmp.width, bmp.height]).toEqual(["jpeg", "jpeg", 40, 30]);
    const transparent = await acceptedImage(await input(40, 30, "webp", true), ACCEPTED_INPUTS.replicate);
    expect([transparent.format, sniffFormat(transparent.bytes)]).toEqual(["png", "png"]);
  });

  it("turns a JPEG with an EXIF orientation upright, and scales to a documented maximum side", async () => {
    const jpeg = await encodeImage(discOnPlainBackground(60, 40), "jpeg");
    const rotated = await acceptedImage({ bytes: withJpegSegments(jpeg, exifApp1(6)), format: "jpeg", width: 60, height: 40 }, ACCEPTED_INPUTS.openai);
    expect([rotated.width, rotated.height]).toEqual([40, 60]);
    expect(readHeader(rotated.bytes, rotated.format)).toMatchObject({ width: 40, height: 60 });
    const large = await acceptedImage(await input(1000, 600, "png"), ACCEPTED_INPUTS["workers-ai-flux2"]);
    expect([large.format, large.width, large.height]).toEqual(["png", 512, 307]);
  });
});

describe("what the providers receive", () => {
  it("OpenAI edits get a PNG, WebP or JPEG even when the input was BMP (the fake refuses other files)", async () => {
    const task = { kind: "edit" as const, prompt: "make it night", action: "edit" as const, image: await input(48, 32, "bmp"), aspectRatio: ratio("3:2"), seed: 1 };
    const { bytes } = await decodedOutput(await openaiProvider.run(task, callFor(modelFor("openai", "gpt-image-2"))));
    expect(recordOf(bytes)).toMatchObject({ endpoint: "images/edits", imageCount: 1 });
  });

  it("Replicate: Bria gets JPEG or PNG for a WebP input; FLUX models keep WebP, which they list", async () => {
    const webp = await input(30, 20, "webp");
    const bria = await decodedOutput(await replicateProvider.run({ kind: "remove_bg", image: webp }, callFor(modelFor("replicate", "bria/remove-background", "remove_bg"))));
    expect(recordOf(bria.bytes).imageTypes).toEqual(["image/jpeg"]);
    const flux = await decodedOutput(await replicateProvider.run({ kind: "edit", prompt: "x", action: "edit", image: webp, aspectRatio: ratio("3:2"), seed: 1 }, callFor(modelFor("replicate", "black-forest-labs/flux-kontext-pro"))));
    expect(recordOf(flux.bytes).imageTypes).toEqual(["image/webp"]);
  });
});
