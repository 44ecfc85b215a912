import { describe, expect, it } from "vitest";
import { expectError, expectParamError } from "../support/envelope";
import { newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, bytesOfBase64, dataUriOf, decodeAny, fetchHosted, postTool, usageRows } from "../support/tool-calls";

// generate on both families with the built-in local renderer.

interface GenerateBody {
  success: boolean;
  message: string;
  deductedCredits: number;
  userCredits: number;
  result: Record<string, unknown> & { imageUrl: string; seed: number; b64_json?: string; imageBase64?: string };
}

const RESULT_FIELDS = [
  "imageUrl", "prompt", "action", "model", "seed", "aspectRatio", "style", "hasInputImage",
  "referenceImagesCount", "latency", "cost", "deductedCredits", "userCredits",
].sort();

async function generate(path: string, body: Record<string, unknown>, credits = 50) {
  const account = await newAccount({ credits });
  const response = await postTool(path, account.key, body);
  return { account, response, body: (await response.clone().json()) as GenerateBody };
}

describe.each(["/v1/generate", "/playground/generate"])("POST %s", (path) => {
  it("draws the prompt with the default model for its cost, hosted as PNG, with every stated field", async () => {
    const { account, response, body } = await generate(path, { prompt: "a red circle on a blue background" });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ success: true, deductedCredits: 2, userCredits: 48 });
    expect(Object.keys(body.result).sort()).toEqual(RESULT_FIELDS);
    expect(body.result).toMatchObject({
      prompt: "a red circle on a blue background",
      action: "generate",
      model: "local-draw-v1",
      aspectRatio: "1:1",
      style: "",
      hasInputImage: false,
      referenceImagesCount: 0,
      cost: "$0.00",
      deductedCredits: 2,
      userCredits: 48,
    });
    expect(body.result.latency).toMatch(/^\d+\.\d{2}s$/);
    expect(Number.isInteger(body.result.seed)).toBe(true);
    const { format, image } = await decodeAny(await fetchHosted(body.result.imageUrl, "image/png"));
    expect([format, image.width, image.height]).toEqual(["png", 1024, 1024]);
    expect(await balanceOf(account.id)).toBe(48);
    const [entry] = await usageRows(account.id);
    expect(entry).toMatchObject({ tool: "generate_image", status_code: 200, credits_deducted: 2, credits_refunded: 0 });
  });

  it("honours the aspect ratio exactly and echoes style and seed", async () => {
    for (const [aspectRatio, width, height] of [["16:9", 1024, 576], ["9:16", 576, 1024], ["21:9", 1008, 432], ["3:4", 768, 1024]] as const) {
      const { body } = await generate(path, { prompt: "mountains at dawn", aspectRatio, style: "flat", seed: 7 });
      expect(body.result).toMatchObject({ aspectRatio, style: "flat", seed: 7 });
      const { image } = await decodeAny(await fetchHosted(body.result.imageUrl, "image/png"));
      expect([image.width, image.height]).toEqual([width, height]);
    }
  });

  it("is reproducible with a seed and varies without one", async () => {
    const first = await generate(path, { prompt: "a teal star", seed: 42, responseFormat: "b64_json" });
    const again = await generate(path, { prompt: "a teal star", seed: 42, responseFormat: "b64_json" });
    const other = await generate(path, { prompt: "a teal star", seed: 43, responseFormat: "b64_json" });
    expect(again.body.result.b64_json).toBe(first.body.result.b64_json);
    expect(other.body.result.b64_json).not.toBe(first.body.result.b64_json);
    const unseeded = [await generate(path, { prompt: "a teal star" }), await generate(path, { prompt: "a teal star" })];
    expect(unseeded[0]!.body.result.seed).not.toBe(unseeded[1]!.body.result.seed);
  });

  it("adds b64_json and imageBase64, the same bytes as the hosted file", async () => {
    const { body } = await generate(path, { prompt: "a golden sun", responseFormat: "b64_json" });
    expect(body.result.b64_json).toBe(body.result.imageBase64);
    const hosted = await fetchHosted(body.result.imageUrl, "image/png");
    expect(bytesOfBase64(body.result.b64_json!)).toEqual(hosted);
  });

  it("merges image and referenceImages and reports the count", async () => {
    const reference = await dataUriOf(discOnPlainBackground(32, 32));
    const { body } = await generate(path, { prompt: "a poster", image: reference, referenceImages: [reference, reference] });
    expect(body.result).toMatchObject({ hasInputImage: true, referenceImagesCount: 3 });
    const nine = await generate(path, { prompt: "a poster", image: reference, referenceImages: Array(8).fill(reference) });
    await expectParamError(nine.response, "invalid_parameter", "referenceImages");
    expect(await balanceOf(nine.account.id)).toBe(50);
  });

  it("serves the default model when `model` names no image model, and refuses an image model that is not live", async () => {
    for (const model of ["no-such-model", "local-cutout-v1", ""]) {
      const { body } = await generate(path, { prompt: "a green tree", model });
      expect(body.result.model).toBe("local-draw-v1");
    }
    const disabled = await insertModel({ provider: "local", upstreamModel: "procedural-v1", enabled: false });
    const refused = await generate(path, { prompt: "a green tree", model: disabled });
    await expectParamError(refused.response, "invalid_parameter", "model");
    expect(await balanceOf(refused.account.id)).toBe(50);
  });

  it("charges the model's cost, and 15 when none is recorded", async () => {
    const priced = await insertModel({ provider: "local", upstreamModel: "procedural-v1", costPerReq: 7 });
    const unpriced = await insertModel({ provider: "local", upstreamModel: "procedural-v1", costPerReq: null });
    expect((await generate(path, { prompt: "a house", model: priced })).body).toMatchObject({ deductedCredits: 7, userCredits: 43 });
    expect((await generate(path, { prompt: "a house", model: unpriced })).body).toMatchObject({ deductedCredits: 15, userCredits: 35 });
  });

  it("refuses a missing, empty or over-long prompt and a bad aspect ratio, free and logged", async () => {
    for (const prompt of [undefined, "", "   "]) {
      const { account, response } = await generate(path, { prompt });
      const body = await expectParamError(response, "missing_parameter", "prompt");
      expect(body.message).toMatch(/prompt is required/);
      expect(await balanceOf(account.id)).toBe(50);
      expect((await usageRows(account.id))[0]).toMatchObject({ status_code: 400, credits_deducted: 0 });
    }
    await expectParamError((await generate(path, { prompt: "x".repeat(4001) })).response, "invalid_parameter", "prompt");
    for (const aspectRatio of ["banana", "0:1", "10:1", "1:1:1"]) {
      await expectParamError((await generate(path, { prompt: "a cat", aspectRatio })).response, "invalid_parameter", "aspectRatio");
    }
  });

  it("refuses a call the balance cannot pay with the shortfall, free", async () => {
    const { account, response } = await generate(path, { prompt: "a boat" }, 1);
    const body = await expectError(response, 400, "invalid_request_error", "insufficient_credits");
    expect(body).toMatchObject({ currentCredits: 1, requiredCredits: 2 });
    expect(await balanceOf(account.id)).toBe(1);
  });
});
