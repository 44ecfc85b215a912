import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeImage, type RasterImage } from "../../src/codecs";
import { MODEL_INPUT_MAX_PIXELS } from "../../src/codecs/limits";
import { previewOf } from "../../src/mcp/preview";
import { shrinkToFit } from "../../src/raster/shrink";
import { ShrinkRows } from "../../src/raster/shrink-rows";
import { newAccount } from "../support/fixtures";
import { noise } from "../support/pictures";
import { bytesOfBase64, dataUriOf, decodeAny } from "../support/tool-calls";
import { mcpClient } from "./support";

// docs/mcp.md promises a preview for every image result, whatever its size: a result too large
// to decode whole is shrunk from its rows as they are read (a PNG from R2 as it arrives, a JPEG
// or WebP through our build's row reader).

type Content = { type: string; data?: string; mimeType?: string; uri?: string };
type Result = { isError?: boolean; content: Content[]; structuredContent?: Record<string, unknown> };

/** Left half noise (so the file is large), right half one flat colour (so the preview can be checked). */
function halfNoise(width: number, height: number, flat: [number, number, number]): RasterImage {
  const image = noise(width, height);
  for (let y = 0; y < height; y++) for (let x = width / 2; x < width; x++) image.data.set([...flat, 255], (y * width + x) * 4);
  return image;
}

function pixel(image: RasterImage, x: number, y: number): number[] {
  return [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4)];
}

function near(actual: number[], expected: number[], tolerance: number): void {
  actual.forEach((value, k) => expect(Math.abs(value - expected[k]!), `${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance));
}

describe("MCP previews of results too large to decode whole", () => {
  it("an upscale_image call with an 8192x8192 result carries an image preview made from the stored file", async () => {
    const account = await newAccount({ credits: 50 });
    const client = await mcpClient(account.key);
    const image = await dataUriOf(halfNoise(1024, 1024, [30, 140, 200]));
    const result = (await client.callTool({ name: "upscale_image", arguments: { image, scale: "8x", model: "local-lanczos-v1" } })) as Result;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ width: 8192, height: 8192, deductedCredits: 15 });
    const preview = result.content.find((item) => item.type === "image");
    expect(preview, "an image block").toBeDefined();
    expect(preview!.mimeType).toBe("image/webp");
    const { image: small } = await decodeAny(bytesOfBase64(preview!.data!));
    expect([small.width, small.height]).toEqual([512, 512]);
    // The flat right half keeps its colour (WebP at quality 75 moves it a little).
    near(pixel(small, 400, 256), [30, 140, 200, 255], 12);
    // Over the size read whole (16 MiB): this preview came from the file streamed out of R2.
    const link = result.content.find((item) => item.type === "resource_link")!;
    const stored = await env.FILES.head(`results/${link.uri!.split("/files/")[1]}`);
    expect(stored!.size).toBeGreaterThan(16 * 1024 * 1024);
  }, 300_000);
});

describe("previewOf above the whole-decode limit", () => {
  const width = 2600;
  const height = 1700; // 4.4 MP: over MODEL_INPUT_MAX_PIXELS
  const picture = halfNoise(width, height, [200, 60, 40]);

  it("is over the limit the test means to pass", () => {
    expect(width * height).toBeGreaterThan(MODEL_INPUT_MAX_PIXELS);
  });

  it("a PNG is shrunk from its rows: the same preview as shrinking the whole raster", async () => {
    const preview = await previewOf(await encodeImage(picture, "png"));
    expect(preview).not.toBeNull();
    expect([preview!.width, preview!.height]).toEqual([512, 335]);
    const { image: small } = await decodeAny(bytesOfBase64(preview!.data));
    const whole = shrinkToFit(picture, 512);
    // Both went through the same WebP encode: compare at a few places.
    for (const [x, y] of [[10, 10], [300, 100], [500, 330]] as const) near(pixel(small, x, y), pixel(whole, x, y), 16);
    near(pixel(small, 400, 200), [200, 60, 40, 255], 12);
  });

  it("a JPEG and a WebP are shrunk from our build's rows", async () => {
    for (const format of ["jpeg", "webp"] as const) {
      const preview = await previewOf(await encodeImage(picture, format, { quality: 90 }));
      expect(preview, format).not.toBeNull();
      expect([preview!.width, preview!.height]).toEqual([512, 335]);
      const { image: small } = await decodeAny(bytesOfBase64(preview!.data));
      near(pixel(small, 400, 200), [200, 60, 40, 255], 16);
    }
  });
});

describe("ShrinkRows", () => {
  it("takes rows in any order: bottom-up gives what top-down does", () => {
    const source = halfNoise(300, 200, [10, 20, 30]);
    const down = new ShrinkRows(300, 200, 64);
    const up = new ShrinkRows(300, 200, 64);
    for (let y = 0; y < 200; y++) down.addRow(y, source.data.subarray(y * 1200, (y + 1) * 1200));
    for (let y = 199; y >= 0; y--) up.addRow(y, source.data.subarray(y * 1200, (y + 1) * 1200));
    expect([...up.result().data]).toEqual([...down.result().data]);
    expect([...down.result().data]).toEqual([...shrinkToFit(source, 64).data]);
  });
});
