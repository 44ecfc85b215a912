import { describe, expect, it } from "vitest";
import { expectError, expectParamError } from "../support/envelope";
import { newAccount } from "../support/fixtures";
import { alphaAt, discOnPlainBackground, noise } from "../support/pictures";
import { balanceOf, dataUriOf, decodeAny, fetchHosted, postTool, usageRows } from "../support/tool-calls";

// edit, remove-background and upscale with the built-in local models.

type Body = { success: boolean; deductedCredits: number; userCredits: number; result: Record<string, unknown> & { imageUrl: string } };

async function post(path: string, body: Record<string, unknown>, credits = 100) {
  const account = await newAccount({ credits });
  const response = await postTool(path, account.key, body);
  return { account, response, body: (await response.clone().json()) as Body };
}

async function hostedImage(body: Body) {
  return (await decodeAny(await fetchHosted(body.result.imageUrl, "image/png"))).image;
}

const LOCAL_CUTOUT = "local-cutout-v1";
const LOCAL_UPSCALER = "local-lanczos-v1";

describe.each(["v1", "playground"])("/%s family", (family) => {
  const at = (tool: string) => `/${family}/${tool}`;

  it("edit applies a documented instruction for the model's cost", async () => {
    const image = await dataUriOf(discOnPlainBackground(40, 30));
    const { account, response, body } = await post(at("edit"), { image, prompt: "rotate 90 degrees clockwise and make it grayscale" });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ deductedCredits: 2, userCredits: 98 });
    // The result's shape (rotated 40x30 is 30x40), not the 1:1 the request defaulted to; the local editor takes no seed.
    expect(body.result).toMatchObject({ action: "edit", hasInputImage: true, referenceImagesCount: 1, model: "local-draw-v1", aspectRatio: "3:4" });
    expect(body.result).not.toHaveProperty("seed");
    const edited = await hostedImage(body);
    expect([edited.width, edited.height]).toEqual([30, 40]);
    const centre = (20 * 30 + 15) * 4;
    expect(edited.data[centre]).toBe(edited.data[centre + 1]);
    expect(edited.data[centre + 1]).toBe(edited.data[centre + 2]);
    expect((await usageRows(account.id))[0]).toMatchObject({ tool: "edit_image", credits_deducted: 2 });
  });

  it("edit refuses an instruction the local model does not know, before charging", async () => {
    const image = await dataUriOf(discOnPlainBackground(16, 16));
    const { account, response } = await post(at("edit"), { image, prompt: "make it look like a Van Gogh painting" });
    const body = await expectParamError(response, "invalid_parameter", "prompt");
    expect(body.message).toMatch(/grayscale/);
    expect(await balanceOf(account.id)).toBe(100);
  });

  it("edit needs a prompt for action edit, not for remove_bg and upscale, which have fixed prices", async () => {
    const image = await dataUriOf(discOnPlainBackground(48, 48));
    await expectParamError((await post(at("edit"), { image })).response, "missing_parameter", "prompt");
    const cut = await post(at("edit"), { image, action: "remove_bg" });
    expect(cut.body).toMatchObject({ deductedCredits: 8, result: { action: "remove_bg" } });
    const cutImage = await hostedImage(cut.body);
    expect([alphaAt(cutImage, 0, 0), alphaAt(cutImage, 24, 24)]).toEqual([0, 255]);
    const bigger = await post(at("edit"), { image, action: "upscale" });
    expect(bigger.body).toMatchObject({ deductedCredits: 15, result: { action: "upscale" } });
    const upscaled = await hostedImage(bigger.body);
    expect([upscaled.width, upscaled.height]).toEqual([96, 96]);
  });

  it("edit refuses a missing image, free", async () => {
    const { account, response } = await post(at("edit"), { prompt: "invert" });
    await expectParamError(response, "missing_parameter", "image");
    expect(await balanceOf(account.id)).toBe(100);
  });

  it("remove-background cuts the subject out for 8 credits: corners clear, centre opaque, soft edge", async () => {
    const image = await dataUriOf(discOnPlainBackground(96, 64));
    const { response, body } = await post(at("remove-background"), { image, prompt: "product shot", model: LOCAL_CUTOUT });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ deductedCredits: 8, userCredits: 92 });
    expect(body.result).toMatchObject({ action: "remove_bg", hasInputImage: true, model: LOCAL_CUTOUT, prompt: "product shot", cost: "$0.00" });
    // No seed: a cut-out uses none.
    expect(Object.keys(body.result).sort()).toEqual(
      ["imageUrl", "prompt", "action", "hasInputImage", "model", "latency", "cost", "deductedCredits", "userCredits"].sort(),
    );
    const cut = await hostedImage(body);
    expect([cut.width, cut.height]).toEqual([96, 64]);
    for (const [x, y] of [[0, 0], [95, 0], [0, 63], [95, 63]] as const) expect(alphaAt(cut, x, y)).toBe(0);
    expect(alphaAt(cut, 48, 32)).toBe(255);
    const alphas = new Set<number>();
    for (let i = 3; i < cut.data.length; i += 4) alphas.add(cut.data[i]!);
    expect([...alphas].some((alpha) => alpha > 0 && alpha < 255)).toBe(true);
  });

  it("remove-background on a picture with no background fails upstream and is refunded", async () => {
    const image = await dataUriOf(noise(48, 48));
    const { account, response } = await post(at("remove-background"), { image, model: LOCAL_CUTOUT });
    await expectError(response, 502, "upstream_error", "upstream_error");
    expect(await balanceOf(account.id)).toBe(100);
    expect((await usageRows(account.id))[0]).toMatchObject({ status_code: 502, credits_deducted: 8, credits_refunded: 8 });
  });

  it("upscale gives exact 2x, 4x (default) and 8x sizes for 15 credits", async () => {
    const image = await dataUriOf(discOnPlainBackground(20, 12));
    for (const [scaleFactor, factor] of [["2x", 2], [undefined, 4], ["8x", 8]] as const) {
      const { body } = await post(at("upscale"), { image, model: LOCAL_UPSCALER, ...(scaleFactor ? { scaleFactor } : {}) });
      expect(body).toMatchObject({ deductedCredits: 15, result: { action: "upscale", scaleFactor: `${factor}x`, hasInputImage: true } });
      const upscaled = await hostedImage(body);
      expect([upscaled.width, upscaled.height]).toEqual([20 * factor, 12 * factor]);
      expect(body.result).toMatchObject({ width: 20 * factor, height: 12 * factor });
      expect(body.result).not.toHaveProperty("seed"); // an upscale uses none
    }
  });

  it("upscale refuses a result over the output limit and an unknown factor, free", async () => {
    // 8x of 1025x1024 is 8200x8192: past the 8192 x 8192 limit.
    const image = await dataUriOf(discOnPlainBackground(1025, 1024));
    const { account, response } = await post(at("upscale"), { image, scaleFactor: "8x", model: LOCAL_UPSCALER });
    await expectError(response, 400, "invalid_request_error", "image_too_large");
    await expectParamError((await post(at("upscale"), { image, scaleFactor: "3x" })).response, "invalid_parameter", "scaleFactor");
    expect(await balanceOf(account.id)).toBe(100);
  });
});
