import { describe, expect, it } from "vitest";
import { describeServedModels, seededRows, servedModels } from "../../scripts/served-models.ts";

// `npm run deploy -- --dry-run`: the rows a configuration would serve, from the migrations as D1
// applies them and the catalogue's own rules, at a fixed day.

const DAY = new Date("2026-11-27T12:00:00Z");
const ids = (config: Parameters<typeof servedModels>[0], now = DAY) => servedModels(config, now).live.map((model) => model.modelId);

describe("the rows a configuration serves", () => {
  it("with nothing configured: the offline local models only, and no second safety stage", () => {
    const served = servedModels({ aiBinding: false }, DAY);
    expect(served.live.map((model) => model.modelId)).toEqual(["local-draw-v1", "local-cutout-v1", "local-lanczos-v1", "local-svg-v1"]);
    expect(served.moderation).toBe("off");
    expect(served.notLive.find(({ model }) => model.modelId === "flux-2-klein-4b")?.why).toBe("needs the AI binding");
  });

  it("each key makes its provider's rows live; retired rows never are", () => {
    expect(ids({ aiBinding: true })).toEqual(expect.arrayContaining(["flux-2-klein-4b", "flux-2-klein-9b", "flux-2-dev", "flux-1-schnell", "sd-v1-5-img2img"]));
    expect(ids({ aiBinding: false, OPENAI_API_KEY: "sk" })).toEqual(["gpt-image-2", "gpt-image-1.5", "local-draw-v1", "local-cutout-v1", "local-lanczos-v1", "local-svg-v1"]);
    expect(ids({ aiBinding: false, OPENAI_API_KEY: "sk" }, new Date("2026-12-01T00:00:00Z"))).not.toContain("gpt-image-1.5");
    const replicate = ids({ aiBinding: false, REPLICATE_API_TOKEN: "r8" });
    expect(replicate).toEqual(expect.arrayContaining(["flux-2-pro", "flux-kontext-pro", "flux-1.1-pro", "bria-remove-background", "rembg", "real-esrgan", "topaz-upscale", "recraft-v3-svg"]));
    expect(replicate).not.toContain("gpt-image-2");
    const retired = servedModels({ aiBinding: true, OPENAI_API_KEY: "sk" }, DAY).notLive.find(({ model }) => model.modelId === "gpt-image-1");
    expect(retired?.why).toBe("retired 2026-10-23, served by gpt-image-2");
  });

  it("the AI binding turns Llama Guard on unless MODERATION says otherwise; the listing says so", () => {
    expect(servedModels({ aiBinding: true }, DAY).moderation).toBe("llama-guard");
    expect(servedModels({ aiBinding: true, MODERATION: "off" }, DAY).moderation).toBe("off");
    const text = describeServedModels(servedModels({ aiBinding: true, OPENAI_API_KEY: "sk" }, DAY));
    expect(text).toContain("gpt-image-1.5");
    expect(text).toContain("retires 2026-12-01, then served by gpt-image-2");
    expect(text).toContain("Second stage of the safety screen: llama-guard");
  });

  it("reads every seeded row, with the lifecycle columns the migrations add", () => {
    const rows = seededRows();
    expect(rows.find((row) => row.model_id === "gpt-image-1")).toMatchObject({ retires_at: "2026-10-23", replaced_by: "gpt-image-2" });
    expect(rows.find((row) => row.model_id === "rembg")?.upstream_model).toMatch(/^cjwbw\/rembg:[0-9a-f]{64}$/);
  });
});
