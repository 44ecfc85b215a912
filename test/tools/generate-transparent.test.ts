import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { isolateCodecGate } from "../../src/codecs/index.ts";
import { ISOLATE_CODEC_BUDGET } from "../../src/codecs/limits.ts";
import { newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { alphaAt } from "../support/pictures";
import { balanceOf, decodeAny, fetchHosted, postTool, usageRows } from "../support/tool-calls";
import { REPLICATE_MODELS } from "../upstream/scenarios";

// generate-transparent: render, then cut out; a failed cut-out still
// succeeds with the render, `isTransparent: false`, and its 8 credits back.

type Body = { deductedCredits: number; userCredits: number; result: Record<string, unknown> & { imageUrl: string; originalImageUrl: string } };

async function transparent(body: Record<string, unknown>) {
  const account = await newAccount({ credits: 100 });
  const response = await postTool("/v1/generate-transparent", account.key, body);
  return { account, response, body: (await response.json()) as Body };
}

/** The cut-out stage uses the live remove_bg model with the highest priority. */
async function preferCutout(modelId: string): Promise<void> {
  await env.DB.prepare("UPDATE models SET priority = CASE WHEN model_id = ? THEN 1000 ELSE 0 END WHERE task = 'remove_bg'").bind(modelId).run();
}

describe("POST /v1/generate-transparent", () => {
  // Each test file has its own storage, so the catalogue changes here stay in this file.
  beforeAll(() => preferCutout("local-cutout-v1"));

  it("renders, cuts the subject out and charges model cost + 8 together", async () => {
    const { account, response, body } = await transparent({ prompt: "a red circle", seed: 5 });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ deductedCredits: 10, userCredits: 90 });
    expect(body.result).toMatchObject({ isTransparent: true, action: "generate_transparent", model: "local-draw-v1", seed: 5 });
    expect(Object.keys(body.result).sort()).toEqual(
      ["imageUrl", "originalImageUrl", "isTransparent", "prompt", "action", "model", "seed", "aspectRatio", "style",
        "hasInputImage", "referenceImagesCount", "latency", "cost", "deductedCredits", "userCredits"].sort(),
    );
    const cut = (await decodeAny(await fetchHosted(body.result.imageUrl, "image/png"))).image;
    const original = (await decodeAny(await fetchHosted(body.result.originalImageUrl, "image/png"))).image;
    expect([cut.width, cut.height]).toEqual([original.width, original.height]);
    expect(alphaAt(cut, 0, 0)).toBe(0);
    expect(alphaAt(cut, cut.width - 1, cut.height - 1)).toBe(0);
    expect(alphaAt(cut, cut.width >> 1, cut.height >> 1)).toBe(255);
    expect(alphaAt(original, 0, 0)).toBe(255);
    expect((await usageRows(account.id))[0]).toMatchObject({ tool: "generate_transparent_image", credits_deducted: 10, credits_refunded: 0 });
  });

  it("a failed cut-out still succeeds with the render, isTransparent false, and the 8 credits back", async () => {
    const failing = await insertModel({ provider: "replicate", upstreamModel: REPLICATE_MODELS.http500, task: "remove_bg" });
    await preferCutout(failing);
    try {
      const { account, response, body } = await transparent({ prompt: "a red circle", responseFormat: "b64_json" });
      expect(response.status).toBe(200);
      expect(body).toMatchObject({ deductedCredits: 2, userCredits: 98 });
      expect(body.result).toMatchObject({ isTransparent: false, deductedCredits: 2, userCredits: 98 });
      expect(body.result.imageUrl).toBe(body.result.originalImageUrl);
      expect(body.result.b64_json).toEqual(expect.any(String));
      const render = (await decodeAny(await fetchHosted(body.result.imageUrl, "image/png"))).image;
      expect(alphaAt(render, 0, 0)).toBe(255);
      expect(await balanceOf(account.id)).toBe(98);
      expect((await usageRows(account.id))[0]).toMatchObject({ status_code: 200, credits_deducted: 10, credits_refunded: 8 });
    } finally {
      await preferCutout("local-cutout-v1");
    }
  });

  it("a cut-out the memory gate cannot admit fails like any other: the render, isTransparent false, 8 back", async () => {
    const held = await isolateCodecGate.acquire(ISOLATE_CODEC_BUDGET);
    // The line full too: the cut-out's admission is refused at once instead of waiting.
    const queued = isolateCodecGate.acquire(1, undefined, isolateCodecGate.options.maxWaitingBytes);
    try {
      const { account, response, body } = await transparent({ prompt: "a red circle" });
      expect(response.status).toBe(200); // the render needs no admission: a prompt alone
      expect(body.result.isTransparent).toBe(false);
      expect(await balanceOf(account.id)).toBe(98);
    } finally {
      held.release();
      (await queued).release();
    }
    // Admitted, the cut-out is made and its permit given back.
    const { response, body } = await transparent({ prompt: "a red circle" });
    expect(response.status).toBe(200);
    expect(body.result.isTransparent).toBe(true);
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("takes no reference images and refuses an empty prompt for free", async () => {
    const { account, response } = await transparent({ prompt: "" });
    expect(response.status).toBe(400);
    expect(await balanceOf(account.id)).toBe(100);
  });
});
