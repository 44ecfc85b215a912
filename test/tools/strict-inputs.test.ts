import { describe, expect, it } from "vitest";
import { expectParamError } from "../support/envelope";
import { newAccount } from "../support/fixtures";
import { discOnPlainBackground } from "../support/pictures";
import { gradient } from "../codecs/support";
import { balanceOf, dataUriOf, postTool, usageRows } from "../support/tool-calls";

// Charging only for what was asked: an unknown field is refused (never ignored), null means
// "not given", upscale's factor answers to both of its names, and a convert that would re-encode
// PNG as PNG because no target was given is refused. Every refusal leaves the balance alone.

describe.each(["/v1", "/playground"])("strict request bodies on %s", (family) => {
  it("refuses an unknown field with 400 invalid_parameter naming it, before any charge", async () => {
    const account = await newAccount({ credits: 40 });
    for (const [path, body, field] of [
      ["/generate", { prompt: "a red circle", size: "1024x1024" }, "size"],
      ["/generate", { prompt: "a red circle", n: 2 }, "n"],
      ["/generate-transparent", { prompt: "a red circle", negative_prompt: "blur" }, "negative_prompt"],
      ["/text-to-svg", { prompt: "a star", colour: "red" }, "colour"],
      ["/generate", { promt: "a red circle" }, "promt"],
    ] as const) {
      const response = await postTool(family + path, account.key, body);
      const error = await expectParamError(response, "invalid_parameter", field);
      expect(error.error.message).toContain(field);
    }
    expect(await balanceOf(account.id)).toBe(40);
    const rows = await usageRows(account.id);
    expect(rows).toHaveLength(5);
    expect(rows.every((row) => row.status_code === 400 && row.credits_deducted === 0)).toBe(true);
  });

  it("takes null on an optional field as not given", async () => {
    const account = await newAccount({ credits: 40 });
    const response = await postTool(`${family}/generate`, account.key, {
      prompt: "a red circle", aspectRatio: null, model: null, style: null, seed: null, image: null, imageBase64: null, referenceImages: null, responseFormat: null,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { aspectRatio: string } };
    expect(body.result.aspectRatio).toBe("1:1");
    const missing = await postTool(`${family}/generate`, account.key, { prompt: null });
    await expectParamError(missing, "missing_parameter", "prompt");
    expect(await balanceOf(account.id)).toBe(38);
  });

  it("upscale takes `scaleFactor` and its MCP name `scale`; errors name the field sent; nothing is charged for a refusal", async () => {
    const account = await newAccount({ credits: 100 });
    const image = await dataUriOf(discOnPlainBackground(20, 10));
    for (const args of [{ scaleFactor: "2x" }, { scale: "2x" }, { scale: "2x", scaleFactor: "2x" }]) {
      const response = await postTool(`${family}/upscale`, account.key, { image, model: "local-lanczos-v1", ...args });
      expect(response.status, JSON.stringify(args)).toBe(200);
      expect(((await response.json()) as { result: Record<string, unknown> }).result).toMatchObject({ scaleFactor: "2x", width: 40, height: 20 });
    }
    expect(await balanceOf(account.id)).toBe(100 - 3 * 15);
    await expectParamError(await postTool(`${family}/upscale`, account.key, { image, scale: "3x" }), "invalid_parameter", "scale");
    await expectParamError(await postTool(`${family}/upscale`, account.key, { image, scaleFactor: "3x" }), "invalid_parameter", "scaleFactor");
    await expectParamError(await postTool(`${family}/upscale`, account.key, { image, scale: "2x", scaleFactor: "8x" }), "invalid_parameter", "scale");
    expect(await balanceOf(account.id)).toBe(100 - 3 * 15);
  });

  it("convert-format without targetFormat: PNG is refused (nothing to convert), other formats become PNG", async () => {
    const account = await newAccount({ credits: 10 });
    const png = await dataUriOf(gradient(16, 8), "png");
    const refused = await expectParamError(await postTool(`${family}/convert-format`, account.key, { image: png }), "missing_parameter", "targetFormat");
    expect(refused.error.message).toMatch(/already is PNG/);
    await expectParamError(await postTool(`${family}/convert-format`, account.key, { image: png, targetFormat: null }), "missing_parameter", "targetFormat");
    expect(await balanceOf(account.id)).toBe(10);
    const explicit = await postTool(`${family}/convert-format`, account.key, { image: png, targetFormat: "png" });
    expect(explicit.status).toBe(200);
    const jpeg = await postTool(`${family}/convert-format`, account.key, { image: await dataUriOf(gradient(16, 8), "jpeg") });
    expect(((await jpeg.json()) as { result: Record<string, unknown> }).result).toMatchObject({ originalFormat: "jpeg", targetFormat: "png" });
    expect(await balanceOf(account.id)).toBe(8);
  });
});

describe.each(["/v1/batch", "/playground/multicall"])("%s items take exactly what the single call takes", (path) => {
  it("an upscale item with `scale: 2x` runs at 2x; an item with an unknown field fails alone and costs nothing", async () => {
    const account = await newAccount({ credits: 100 });
    const image = await dataUriOf(discOnPlainBackground(20, 10));
    const response = await postTool(path, account.key, {
      requests: [
        { tool: "upscale_image", args: { image, scale: "2x", model: "local-lanczos-v1" } },
        { tool: "generate_image", args: { prompt: "a cat", negative_prompt: "dogs" } },
        { tool: "generate_image", args: { prompt: "a cat", aspectRatio: null } },
      ],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { deductedCredits: number; results: { success: boolean; status: number; data: Record<string, any> }[] };
    expect(body.results[0]!.data.result).toMatchObject({ scaleFactor: "2x", width: 40, height: 20 });
    expect(body.results[1]).toMatchObject({ success: false, status: 400, data: { error: { code: "invalid_parameter", param: "negative_prompt" } } });
    expect(body.results[2]!.success).toBe(true);
    expect(body.deductedCredits).toBe(15 + 2);
    expect(await balanceOf(account.id)).toBe(100 - 17);
  });

  it("refuses an unknown field of the batch itself or of an item wrapper, free", async () => {
    const account = await newAccount({ credits: 10 });
    await expectParamError(await postTool(path, account.key, { requests: [{ tool: "text_to_svg", args: { prompt: "a star" } }], parallel: true }), "invalid_parameter", "parallel");
    await expectParamError(await postTool(path, account.key, { requests: [{ tool: "text_to_svg", arguments: { prompt: "a star" } }] }), "invalid_parameter", "requests.0.arguments");
    expect(await balanceOf(account.id)).toBe(10);
  });
});
