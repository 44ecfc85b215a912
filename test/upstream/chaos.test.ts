import { describe, expect, it } from "vitest";
import { newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, dataUriOf, decodeAny, fetchHosted, postTool, usageRows } from "../support/tool-calls";
import { chaosModel, delayModel, FAKE_FAILURES, planFor } from "./chaos";

// The chaos and delay scenarios the load scripts use (npm run stress, npm run bench:batch), through
// the real billed path: an image after the delay, and at 100% a failure that is refunded.

describe("planFor", () => {
  it("reads delays and rates from the name, and ignores other names", () => {
    expect(planFor(delayModel(250))).toEqual({ delayMs: 250 });
    expect(planFor("fake/ok")).toBeUndefined();
    expect(planFor(chaosModel(0, 3, 20))).toEqual({ delayMs: 20 });
    const failures = Array.from({ length: 200 }, () => planFor(chaosModel(100, 9))!.failure);
    expect(new Set(failures)).toEqual(new Set(FAKE_FAILURES));
  });

  it("fails about the share it names, the same way for the same seed", () => {
    const draw = (seed: number) => Array.from({ length: 400 }, () => planFor(chaosModel(25, seed))!.failure ?? "image");
    const first = draw(41);
    const share = first.filter((outcome) => outcome !== "image").length / first.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.35);
    expect(draw(42)).not.toEqual(first); // another seed, another sequence
  });
});

describe.each(["openai", "replicate"] as const)("through %s", (provider) => {
  it("a delay scenario answers a real image, charged once", async () => {
    const account = await newAccount({ credits: 50 });
    const model = await insertModel({ provider, upstreamModel: delayModel(30) });
    const response = await postTool("/v1/generate", account.key, { prompt: "a lighthouse", model });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { imageUrl: string } };
    const { image } = await decodeAny(await fetchHosted(result.imageUrl, "image/png"));
    expect(image.width).toBeGreaterThan(0);
    expect(await balanceOf(account.id)).toBe(40);
  });

  it("a chaos scenario that always fails is refunded, whatever failure it drew", async () => {
    const account = await newAccount({ credits: 50 });
    const model = await insertModel({ provider, upstreamModel: chaosModel(100, provider === "openai" ? 5 : 6) });
    const image = await dataUriOf(discOnPlainBackground(48, 48));
    for (let i = 0; i < 3; i++) {
      const response = await postTool("/v1/edit", account.key, { image, prompt: "make it blue", model });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe("upstream_error");
    }
    expect(await balanceOf(account.id)).toBe(50);
    const rows = await usageRows(account.id);
    expect(rows.map((row) => [row.status_code, row.credits_deducted, row.credits_refunded])).toEqual([
      [502, 10, 10],
      [502, 10, 10],
      [502, 10, 10],
    ]);
  });
});

describe("replicate output kinds under a delay name", () => {
  it("answers SVG markup for a prompt-only prediction and a cut-out for an image-only one", async () => {
    const account = await newAccount({ credits: 50 });
    const svgModel = await insertModel({ provider: "replicate", upstreamModel: delayModel(10), task: "svg", costPerReq: 5 });
    const svg = await postTool("/v1/text-to-svg", account.key, { prompt: "a rocket", model: svgModel });
    expect(svg.status).toBe(200);
    expect(((await svg.json()) as { result: { svgCode: string } }).result.svgCode).toMatch(/^<svg[\s>]/);
    const cutModel = await insertModel({ provider: "replicate", upstreamModel: delayModel(10), task: "remove_bg", costPerReq: 8 });
    const cut = await postTool("/v1/remove-background", account.key, { image: await dataUriOf(discOnPlainBackground(40, 30)), model: cutModel });
    expect(cut.status).toBe(200);
    const { image } = await decodeAny(await fetchHosted(((await cut.json()) as { result: { imageUrl: string } }).result.imageUrl, "image/png"));
    expect([image.width, image.height]).toEqual([40, 30]);
    expect(image.data[3]).toBe(0); // the corner is background, made transparent
  });
});
