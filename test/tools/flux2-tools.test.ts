import { describe, expect, it } from "vitest";
import { newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, dataUriOf, decodeAny, fetchHosted, postTool, usageRows } from "../support/tool-calls";
import { recordOf } from "../upstream/adapter-kit";
import { WORKERS_AI_MODELS } from "../upstream/scenarios";

// generate with referenceImages and edit by instruction on the seeded FLUX.2 rows (migration
// 0007), through the whole billed path, the AI binding and the fake Workers AI REST endpoint.

interface ImageResult {
  imageUrl: string;
  model: string;
  referenceImagesCount: number;
}

async function hostedRecord(result: ImageResult) {
  const bytes = await fetchHosted(result.imageUrl, "image/png");
  expect((await decodeAny(bytes)).format).toBe("png");
  return recordOf(bytes);
}

describe("FLUX.2 rows through the tools", () => {
  it("generate on flux-2-klein-4b follows reference images (charged the row's 6 credits)", async () => {
    const account = await newAccount({ credits: 100 });
    const referenceImages = [await dataUriOf(discOnPlainBackground(64, 48)), await dataUriOf(discOnPlainBackground(700, 700))];
    const response = await postTool("/v1/generate", account.key, { prompt: "a lighthouse like these", model: "flux-2-klein-4b", aspectRatio: "16:9", referenceImages });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: ImageResult };
    expect(result).toMatchObject({ model: "flux-2-klein-4b", referenceImagesCount: 2 });
    const record = await hostedRecord(result);
    expect(record).toMatchObject({ model: "@cf/black-forest-labs/flux-2-klein-4b", imageCount: 2, size: "1344x768", inputSizes: ["64x48", "512x512"] });
    expect(await balanceOf(account.id)).toBe(94);
  });

  it("edit by instruction on flux-2-dev sends the image as input_image_0 and its steps", async () => {
    const account = await newAccount({ credits: 100 });
    const image = await dataUriOf(discOnPlainBackground(80, 60));
    const response = await postTool("/v1/edit", account.key, { image, prompt: "turn the disc into a sunflower", model: "flux-2-dev", aspectRatio: "4:3" });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: ImageResult };
    expect(await hostedRecord(result)).toMatchObject({ prompt: "turn the disc into a sunflower", imageCount: 1, inputSizes: ["80x60"], steps: 25 });
    expect(await balanceOf(account.id)).toBe(75);
  });

  it("more than 4 references on FLUX.2 is a free 400", async () => {
    const account = await newAccount({ credits: 100 });
    const reference = await dataUriOf(discOnPlainBackground(16, 16));
    const response = await postTool("/v1/generate", account.key, { prompt: "x", model: "flux-2-klein-9b", referenceImages: [reference, reference, reference, reference, reference] });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_parameter", param: "referenceImages" } });
    expect(await balanceOf(account.id)).toBe(100);
  });

  it("a failing FLUX.2 run is a 502 and refunded", async () => {
    const account = await newAccount({ credits: 100 });
    const model = await insertModel({ provider: "workers-ai", upstreamModel: WORKERS_AI_MODELS.flux2Http500 });
    const response = await postTool("/v1/edit", account.key, { image: await dataUriOf(discOnPlainBackground(32, 32)), prompt: "add snow", model });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ success: false, error: { type: "upstream_error", code: "upstream_error" } });
    expect(await balanceOf(account.id)).toBe(100);
    const [log] = await usageRows(account.id);
    expect(log).toMatchObject({ status_code: 502, credits_deducted: 10, credits_refunded: 10 });
  });
});
