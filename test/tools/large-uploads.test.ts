import { describe, expect, it } from "vitest";
import { Buffer } from "node:buffer";
import { readHeader } from "../../src/codecs/index.ts";
import { pngFile } from "../codecs/support.ts";
import { newAccount } from "../support/fixtures";
import { balanceOf, fetchHosted, postTool } from "../support/tool-calls";

// Uploads near the 20 MB limit to WebP. A large upload's own cost leaves no room for the densest
// picture's WebP beside it, so the file is given what the isolate's memory budget leaves
// (src/codecs/recode-route.ts): the call takes nearly the whole budget. In a file of its own, so
// no earlier test's answers still hold part of this isolate's budget.

/**
 * A width x height RGBA PNG as a data URI, each row's samples from `fill` (filter 0, deflated
 * by the platform's zlib): large uploads made quickly.
 */
async function rgbaPng(width: number, height: number, fill: (y: number, row: Uint8Array) => void): Promise<string> {
  const stride = width * 4 + 1;
  const raw = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) fill(y, raw.subarray(y * stride + 1, (y + 1) * stride));
  const png = await pngFile({ width, height, colorType: 6, bitDepth: 8, raw });
  return `data:image/png;base64,${Buffer.from(png).toString("base64")}`;
}

describe("large uploads to WebP", () => {
  it("converts a 12 MP cut-out PNG of 15 MB to WebP (its file may take what the budget leaves); a picture whose WebP outgrows that answers image_too_large, refunded", async () => {
    const account = await newAccount({ credits: 5 });
    let seed = 7;
    const grain = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 29;
    const [width, height] = [4000, 3000];
    // A grainy subject in an ellipse on transparency: its upload's own cost leaves no room for
    // the densest picture's WebP (at this size only PNGs under ~9 MB had it), a photo's fits.
    const cutOut = await rgbaPng(width, height, (y, row) => {
      for (let x = 0; x < width; x++) {
        if (((x - width / 2) / (width * 0.4)) ** 2 + ((y - height / 2) / (height * 0.45)) ** 2 >= 1) continue;
        row.set([((x * 255) / width + grain()) | 0, ((y * 255) / height + grain()) | 0, 128 + grain(), 255], x * 4);
      }
    });
    expect(cutOut.length * 0.75).toBeGreaterThan(12_000_000);
    const converted = await postTool("/v1/convert-format", account.key, { image: cutOut, targetFormat: "webp" });
    expect(converted.status, converted.status === 200 ? "" : await converted.clone().text()).toBe(200);
    const hosted = (await converted.json()) as { result: { imageUrl: string; mimeType: string } };
    const webp = await fetchHosted(hosted.result.imageUrl, hosted.result.mimeType);
    expect(readHeader(webp, "webp")).toMatchObject({ width, height });
    expect(await balanceOf(account.id)).toBe(4);

    // Opaque noise of 3 bits a sample, as large an upload: at quality 100 its WebP (about 14 MB)
    // is larger than that room. The call is admitted, fails once the file passes it, and costs nothing.
    const noise = await rgbaPng(width, height, (_, row) => {
      for (let i = 0; i < row.length; i++) row[i] = (i & 3) === 3 ? 255 : grain() * 36;
    });
    const dense = await postTool("/v1/compress", account.key, { image: noise, targetFormat: "webp", quality: 100 });
    expect(dense.status).toBe(400);
    const { error } = (await dense.json()) as { error: { code: string; message: string } };
    expect(error).toMatchObject({ code: "image_too_large", message: expect.stringContaining("At this quality") });
    expect(await balanceOf(account.id)).toBe(4);
  }, 180_000);
});
