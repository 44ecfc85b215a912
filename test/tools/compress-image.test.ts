import { describe, expect, it } from "vitest";
import { gradient } from "../codecs/support";
import { newAccount } from "../support/fixtures";
import { expectParamError } from "../support/envelope";
import { balanceOf, bytesOfDataUri, dataUriOf, decodeAny, postTool } from "../support/tool-calls";

// compress on both families.

interface CompressBody {
  success: boolean;
  deductedCredits: number;
  userCredits: number;
  result: { image: string; originalSize: string; compressedSize: string; savedPercentage: string; quality: string; format: string; latency: string; cost: string };
}

async function compress(path: string, body: Record<string, unknown>, credits = 10) {
  const account = await newAccount({ credits });
  const response = await postTool(path, account.key, { image: await dataUriOf(gradient(64, 48)), ...body });
  return { account, response, body: (await response.json()) as CompressBody };
}

describe.each(["/v1/compress", "/playground/compress"])("POST %s", (path) => {
  it("compresses to WebP at quality 70 by default, inline, for 1 credit", async () => {
    const { account, response, body } = await compress(path, {});
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ success: true, deductedCredits: 1, userCredits: 9 });
    expect(body.result).toMatchObject({ quality: "70%", format: "WEBP", cost: "$0.00", deductedCredits: 1, userCredits: 9 });
    expect(body.result.originalSize).toMatch(/^\d+\.\d{2} KB$/);
    expect(body.result.compressedSize).toMatch(/^\d+\.\d{2} KB$/);
    expect(body.result.savedPercentage).toMatch(/^-?\d+\.\d%$/);
    expect(body.result).not.toHaveProperty("imageUrl");
    const { mime, bytes } = bytesOfDataUri(body.result.image);
    expect(mime).toBe("image/webp");
    const decoded = await decodeAny(bytes);
    expect([decoded.format, decoded.image.width, decoded.image.height]).toEqual(["webp", 64, 48]);
    expect(Number(body.result.compressedSize.split(" ")[0])).toBeCloseTo(bytes.length / 1024, 2);
    expect(await balanceOf(account.id)).toBe(9);
  });

  it("clamps quality into 1..100", async () => {
    expect((await compress(path, { quality: 500 })).body.result.quality).toBe("100%");
    expect((await compress(path, { quality: -3 })).body.result.quality).toBe("1%");
    expect((await compress(path, { quality: 42.6 })).body.result.quality).toBe("43%");
  });

  it("writes jpeg and png when asked", async () => {
    for (const [target, label, mime] of [["jpeg", "JPEG", "image/jpeg"], ["png", "PNG", "image/png"]] as const) {
      const { body } = await compress(path, { targetFormat: target, quality: 60 });
      expect(body.result.format).toBe(label);
      expect(bytesOfDataUri(body.result.image).mime).toBe(mime);
    }
  });

  it("lower quality gives a smaller JPEG", async () => {
    const low = await compress(path, { targetFormat: "jpeg", quality: 10 });
    const high = await compress(path, { targetFormat: "jpeg", quality: 95 });
    expect(bytesOfDataUri(low.body.result.image).bytes.length).toBeLessThan(bytesOfDataUri(high.body.result.image).bytes.length);
  });

  it("refuses a non-numeric quality and an unknown target, free", async () => {
    const account = await newAccount({ credits: 4 });
    const image = await dataUriOf(gradient(8, 8));
    await expectParamError(await postTool(path, account.key, { image, quality: "high" }), "invalid_parameter", "quality");
    await expectParamError(await postTool(path, account.key, { image, targetFormat: "gif" }), "invalid_parameter", "targetFormat");
    expect(await balanceOf(account.id)).toBe(4);
  });
});
