import { describe, expect, it } from "vitest";
import { FORMAT_INFO, type ImageFormat } from "../../src/codecs/index.ts";
import { gradient, gradientWithAlpha, pixelAt } from "../codecs/support";
import { newAccount } from "../support/fixtures";
import { expectError, expectParamError } from "../support/envelope";
import { balanceOf, bytesOfBase64, bytesOfDataUri, dataUriOf, decodeAny, fetchHosted, postTool, usageRows } from "../support/tool-calls";

// convert-format on both families, through the real worker, R2 and ledger.

interface ConvertBody {
  success: boolean;
  deductedCredits: number;
  userCredits: number;
  result: Record<string, unknown> & { imageUrl: string; mimeType: string; targetFormat: string; originalFormat: string };
}

describe("POST /v1/convert-format", () => {
  const targets: Array<[string, ImageFormat]> = [
    ["png", "png"], ["jpeg", "jpeg"], ["jpg", "jpeg"], ["webp", "webp"], ["gif", "gif"], ["tiff", "tiff"], ["avif", "avif"],
  ];
  for (const [requested, written] of targets) {
    it(`writes ${requested} as a hosted ${written} file for 1 credit`, async () => {
      const account = await newAccount({ credits: 10 });
      const source = gradient(48, 32);
      const response = await postTool("/v1/convert-format", account.key, { image: await dataUriOf(source), targetFormat: requested });
      expect(response.status).toBe(200);
      expect(response.headers.get("X-RateLimit-Remaining")).toBe("59");
      const body = (await response.json()) as ConvertBody;
      expect(body).toMatchObject({ success: true, deductedCredits: 1, userCredits: 9 });
      expect(body.result).toMatchObject({
        originalFormat: "png",
        targetFormat: written,
        mimeType: FORMAT_INFO[written].mime,
        width: 48,
        height: 32,
        deductedCredits: 1,
        userCredits: 9,
        cost: "$0.00",
      });
      expect(body.result.originalSize).toMatch(/^\d+\.\d{2} KB$/);
      expect(body.result.convertedSize).toMatch(/^\d+\.\d{2} KB$/);
      expect(body.result.latency).toMatch(/^\d+\.\d{2}s$/);
      expect(body.result.imageUrl).toMatch(new RegExp(`^https://pixelgate\\.test/files/[0-9A-Za-z]{24}\\.${FORMAT_INFO[written].ext}$`));
      expect(body.result).not.toHaveProperty("b64_json");

      const decoded = await decodeAny(await fetchHosted(body.result.imageUrl, FORMAT_INFO[written].mime));
      expect(decoded.format).toBe(written);
      expect([decoded.image.width, decoded.image.height]).toEqual([48, 32]);
      expect(await balanceOf(account.id)).toBe(9);
    });
  }

  it("adds b64_json and imageBase64 beside the hosted URL when asked", async () => {
    const account = await newAccount();
    const response = await postTool("/v1/convert-format", account.key, {
      imageBase64: await dataUriOf(gradient(16, 16)),
      targetFormat: "webp",
      responseFormat: "b64_json",
    });
    const body = (await response.json()) as ConvertBody;
    expect(body.result.b64_json).toBe(body.result.imageBase64);
    const hosted = await fetchHosted(body.result.imageUrl, "image/webp");
    expect(bytesOfBase64(body.result.b64_json as string)).toEqual(hosted);
  });

  it("flattens alpha onto black for JPEG and keeps it for PNG", async () => {
    const account = await newAccount();
    const source = await dataUriOf(gradientWithAlpha(32, 16));
    const jpeg = (await (await postTool("/v1/convert-format", account.key, { image: source, targetFormat: "jpeg" })).json()) as ConvertBody;
    const flattened = (await decodeAny(await fetchHosted(jpeg.result.imageUrl, "image/jpeg"))).image;
    for (const channel of pixelAt(flattened, 2, 8).slice(0, 3)) expect(channel).toBeLessThan(12);

    const png = (await (await postTool("/v1/convert-format", account.key, { image: source, targetFormat: "png" })).json()) as ConvertBody;
    const kept = (await decodeAny(await fetchHosted(png.result.imageUrl, "image/png"))).image;
    expect(pixelAt(kept, 2, 8)[3]).toBe(0);
  });

  it("accepts the target in any case and defaults to png", async () => {
    const account = await newAccount();
    const upper = (await (await postTool("/v1/convert-format", account.key, { image: await dataUriOf(gradient(8, 8), "webp"), targetFormat: "WEBP" })).json()) as ConvertBody;
    expect(upper.result.targetFormat).toBe("webp");
    const defaulted = (await (await postTool("/v1/convert-format", account.key, { image: await dataUriOf(gradient(8, 8), "jpeg") })).json()) as ConvertBody;
    expect(defaulted.result).toMatchObject({ originalFormat: "jpeg", targetFormat: "png", mimeType: "image/png" });
  });

  it("refuses AVIF with alpha above libavif's single-image limit, before any charge", async () => {
    const account = await newAccount({ credits: 5 });
    // A 1500x1500 PNG with alpha is within the general limit but over the single image's
    // 2,000,000 pixels; an opaque one would be written as a grid AVIF.
    const large = await dataUriOf(gradientWithAlpha(1500, 1500));
    const response = await postTool("/v1/convert-format", account.key, { image: large, targetFormat: "avif" });
    const body = await expectError(response, 400, "invalid_request_error", "image_too_large");
    expect(body.error.param).toBe("targetFormat");
    expect(await balanceOf(account.id)).toBe(5);
  });

  for (const target of ["bmp", "svg", "heic"]) {
    it(`refuses target ${target} on /v1 with 400 targetFormat, free and logged`, async () => {
      const account = await newAccount({ credits: 5 });
      await expectParamError(
        await postTool("/v1/convert-format", account.key, { image: await dataUriOf(gradient(8, 8)), targetFormat: target }),
        "invalid_parameter",
        "targetFormat",
      );
      expect(await balanceOf(account.id)).toBe(5);
      expect(await usageRows(account.id)).toMatchObject([{ tool: "convert_format", status_code: 400, credits_deducted: 0 }]);
    });
  }
});

describe("POST /playground/convert-format", () => {
  it("returns a data URI and accepts bmp", async () => {
    const account = await newAccount({ credits: 3 });
    const response = await postTool("/playground/convert-format", account.key, { image: await dataUriOf(gradient(20, 10)), targetFormat: "bmp" });
    const body = (await response.json()) as ConvertBody;
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ success: true, deductedCredits: 1, userCredits: 2 });
    expect(Object.keys(body.result).sort()).toEqual(
      ["cost", "deductedCredits", "imageUrl", "latency", "mimeType", "originalFormat", "targetFormat", "userCredits"],
    );
    const { mime, bytes } = bytesOfDataUri(body.result.imageUrl);
    expect(mime).toBe("image/bmp");
    const decoded = await decodeAny(bytes);
    expect([decoded.format, decoded.image.width, decoded.image.height]).toEqual(["bmp", 20, 10]);
  });

  for (const target of ["tiff", "avif"]) {
    it(`refuses ${target}, which only /v1 writes`, async () => {
      const account = await newAccount();
      await expectParamError(
        await postTool("/playground/convert-format", account.key, { image: await dataUriOf(gradient(8, 8)), targetFormat: target }),
        "invalid_parameter",
        "targetFormat",
      );
    });
  }
});
