import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadImageBytes } from "../../src/images/input";
import { ownFilesOf } from "../../src/tools/source-image";
import { BASE, newAccount } from "../support/fixtures";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, dataUriOf, postTool } from "../support/tool-calls";
import { countingFetcher, expectRefusal } from "./helpers";

// The service's own result URLs (same origin as PUBLIC_BASE_URL, /files/...) as image inputs:
// read from storage, never fetched, so results can be chained.

const ownFiles = ownFilesOf({ baseUrl: BASE, env });

describe("loading one of our own result URLs", () => {
  it("reads the stored file without touching the network", async () => {
    const bytes = new TextEncoder().encode("stored bytes");
    await env.FILES.put("results/AAAAAAAAAAAAAAAAAAAAAAAA.png", bytes, { httpMetadata: { contentType: "image/png" } });
    const { fetcher, calls } = countingFetcher();
    const loaded = await loadImageBytes(`${BASE}/files/AAAAAAAAAAAAAAAAAAAAAAAA.png`, { param: "image", ownFiles, fetcher });
    expect(loaded).toMatchObject({ source: "hosted", declaredType: "image/png" });
    expect(new TextDecoder().decode(loaded.bytes)).toBe("stored bytes");
    expect(calls).toEqual([]);
  });

  it("refuses a missing or malformed file name of ours, and fetches other origins as before", async () => {
    const { fetcher, calls } = countingFetcher();
    await expectRefusal(loadImageBytes(`${BASE}/files/BBBBBBBBBBBBBBBBBBBBBBBB.png`, { param: "image", ownFiles, fetcher }), "image_fetch_failed", "image");
    await expectRefusal(loadImageBytes(`${BASE}/files/..%2Fidempotency%2Fx.json`, { param: "referenceImages.0", ownFiles, fetcher }), "image_fetch_failed", "referenceImages.0");
    expect(calls).toEqual([]);
    await expectRefusal(loadImageBytes("https://images.example.com/files/CCCCCCCCCCCCCCCCCCCCCCCC.png", { param: "image", ownFiles, fetcher }), "image_fetch_failed", "image");
    expect(calls).toEqual(["https://images.example.com/files/CCCCCCCCCCCCCCCCCCCCCCCC.png"]);
  });
});

describe("chaining results through the API", () => {
  it("a generated image's URL feeds upscale, convert and generate's references; an unknown one is refused free", async () => {
    const account = await newAccount({ credits: 100 });
    const generated = (await (await postTool("/v1/generate", account.key, { prompt: "a red circle", aspectRatio: "16:9" })).json()) as { result: { imageUrl: string } };
    const imageUrl = generated.result.imageUrl;
    expect(imageUrl.startsWith(`${BASE}/files/`)).toBe(true);
    const upscaled = await postTool("/v1/upscale", account.key, { image: imageUrl, scaleFactor: "2x", model: "local-lanczos-v1" });
    expect(upscaled.status).toBe(200);
    const converted = await postTool("/v1/convert-format", account.key, { image: ((await upscaled.json()) as { result: { imageUrl: string } }).result.imageUrl, targetFormat: "webp" });
    expect(((await converted.json()) as { result: Record<string, unknown> }).result).toMatchObject({ originalFormat: "png", targetFormat: "webp" });
    const referenced = await postTool("/v1/generate", account.key, { prompt: "the same, in blue", referenceImages: [imageUrl] });
    expect(((await referenced.json()) as { result: Record<string, unknown> }).result).toMatchObject({ referenceImagesCount: 1 });
    expect(await balanceOf(account.id)).toBe(100 - 2 - 15 - 1 - 2);
    const missing = await postTool("/v1/compress", account.key, { image: `${BASE}/files/DDDDDDDDDDDDDDDDDDDDDDDD.png` });
    expect(missing.status).toBe(400);
    expect(await balanceOf(account.id)).toBe(100 - 2 - 15 - 1 - 2);
  });

  it("a compressed result (inline over REST) is reachable and chainable through its MCP link", async () => {
    const account = await newAccount({ credits: 10 });
    const { mcpClient } = await import("../mcp/support");
    const client = await mcpClient(account.key);
    const compressed = (await client.callTool({ name: "compress_image", arguments: { image: await dataUriOf(discOnPlainBackground(30, 20)), targetFormat: "png" } })) as unknown as { structuredContent: { hostedUrl: string } };
    const converted = await postTool("/v1/convert-format", account.key, { image: compressed.structuredContent.hostedUrl, targetFormat: "jpeg" });
    expect(((await converted.json()) as { result: Record<string, unknown> }).result).toMatchObject({ originalFormat: "png", width: 30, height: 20 });
  });
});
