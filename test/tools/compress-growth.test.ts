// Compress never answers with a larger file in the input's own format (issue: a 45 KB WebP at
// quality 90 came back as 74 KB). Across formats the asked-for target stands and says it grew.

import { describe, expect, it } from "vitest";
import { encodeImage, readOrientation, type RasterImage } from "../../src/codecs/index.ts";
import { contains, exifApp1, iccApp2, image, withJpegSegments } from "../codecs/support";
import { prng } from "../support/prng";
import { newAccount } from "../support/fixtures";
import { base64, bytesOfDataUri, decodeAny, postTool } from "../support/tool-calls";

/** Grainy colour noise over a gradient: WebP at quality 35 makes a few tens of KB of it at 384x288. */
function grainy(width: number, height: number): RasterImage {
  const random = prng(14);
  return image(width, height, (x, y) => [
    (x * 95) / width + random() * 160,
    (y * 95) / height + random() * 160,
    random() * 255,
    255,
  ]);
}

async function compressBytes(bytes: Uint8Array, mime: string, body: Record<string, unknown>) {
  const account = await newAccount({ credits: 5 });
  const response = await postTool("/v1/compress", account.key, { image: `data:${mime};base64,${base64(bytes)}`, ...body });
  expect(response.status).toBe(200);
  const json = (await response.json()) as { message: string; result: { image: string; savedPercentage: string; format: string; compressedSize: string } };
  return { ...json, output: bytesOfDataUri(json.result.image) };
}

describe("compress never grows a file of the same format", () => {
  it("a low-quality WebP sent at quality 90 comes back as the input itself, 0% saved", async () => {
    const input = await encodeImage(grainy(384, 288), "webp", { quality: 35 });
    expect(input.length).toBeGreaterThan(30_000);
    // What plain re-encoding would give: larger, which is the case being fixed.
    expect((await encodeImage(grainy(384, 288), "webp", { quality: 90 })).length).toBeGreaterThan(input.length);
    const { message, result, output } = await compressBytes(input, "image/webp", { quality: 90, targetFormat: "webp" });
    expect(output.mime).toBe("image/webp");
    expect(output.bytes).toEqual(input); // a simple WebP carries no metadata: byte for byte
    expect(result).toMatchObject({ savedPercentage: "0%", format: "WEBP" });
    expect(message).toMatch(/would have made the file larger/);
  });

  it("a JPEG with EXIF and an ICC profile comes back without them, orientation kept", async () => {
    const plain = await encodeImage(grainy(200, 120), "jpeg", { quality: 30 });
    const input = withJpegSegments(plain, exifApp1(6), iccApp2());
    const { message, result, output } = await compressBytes(input, "image/jpeg", { quality: 98, targetFormat: "jpeg" });
    expect(message).toMatch(/would have made the file larger/);
    expect(output.bytes.length).toBeLessThan(input.length);
    expect(contains(output.bytes, "ICC_PROFILE")).toBe(false);
    expect(readOrientation(output.bytes, "jpeg")).toBe(6);
    expect(Number(result.savedPercentage.replace("%", ""))).toBeGreaterThan(0);
    // The scan data is the input's own: the stripped file ends with the same bytes.
    expect(output.bytes.subarray(-plain.length + 2)).toEqual(plain.subarray(2));
    const decoded = await decodeAny(output.bytes);
    expect([decoded.image.width, decoded.image.height]).toEqual([120, 200]);
  });

  it("AVIF to WebP that grows answers the WebP asked for, with a negative saving and a message saying so", async () => {
    const input = await encodeImage(grainy(128, 96), "avif", { quality: 20 });
    const { message, result, output } = await compressBytes(input, "image/avif", { quality: 90, targetFormat: "webp" });
    expect(output.mime).toBe("image/webp");
    expect(output.bytes.length).toBeGreaterThan(input.length);
    expect(result.format).toBe("WEBP");
    expect(result.savedPercentage).toMatch(/^-\d+\.\d%$/);
    expect(message).toMatch(/the AVIF input was smaller than this WEBP/);
  });
});
