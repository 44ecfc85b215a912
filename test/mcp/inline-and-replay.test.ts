import { describe, expect, it } from "vitest";
import { MCP_INLINE_MAX_BYTES } from "../../src/mcp/structured";
import { newAccount } from "../support/fixtures";
import type { RasterImage } from "../../src/codecs";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, bytesOfBase64, dataUriOf, fetchHosted, usageRows } from "../support/tool-calls";
import { mcpClient } from "./support";

// What an MCP answer hands a model: links and previews, never a file's base64 unless asked for
// (then once, within MCP_INLINE_MAX_BYTES), and replays that say nothing was charged.

type Content = { type: string; text?: string; data?: string; mimeType?: string; uri?: string; resource?: { uri?: string; text?: string } };
type Result = { isError?: boolean; content: Content[]; structuredContent?: Record<string, any>; _meta?: Record<string, unknown> };

/** Opaque pixels from xorshift32: PNG cannot shrink them, so the file is about 3 bytes a pixel. */
function grain(width: number, height: number): RasterImage {
  const data = new Uint8ClampedArray(width * height * 4);
  let state = 2463534242;
  for (let i = 0; i < data.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    data[i] = (i & 3) === 3 ? 255 : state & 255;
  }
  return { width, height, data };
}

/** The longest string anywhere in a value: base64 of a file would be the longest by far. */
function longestString(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (value && typeof value === "object") return Math.max(0, ...Object.values(value).map(longestString));
  return 0;
}

describe("MCP structured content carries links, not files", () => {
  it("compress_image, text_to_svg and convert_format: no data URI or base64; the link has its mimeType", async () => {
    const account = await newAccount({ credits: 50 });
    const client = await mcpClient(account.key);
    const photo = await dataUriOf(grain(300, 200));
    const compressed = (await client.callTool({ name: "compress_image", arguments: { image: photo, quality: 90, targetFormat: "png" } })) as Result;
    expect(compressed.isError).toBeFalsy();
    const structured = JSON.stringify(compressed.structuredContent);
    expect(structured).not.toContain("data:");
    expect(compressed.structuredContent).not.toHaveProperty("image");
    expect(longestString(compressed.structuredContent)).toBeLessThan(200);
    const link = compressed.content.find((item) => item.type === "resource_link")!;
    expect(link).toMatchObject({ uri: compressed.structuredContent!.hostedUrl, mimeType: "image/png" });
    expect((await fetchHosted(link.uri!, "image/png")).length).toBeGreaterThan(10_000);

    const svg = (await client.callTool({ name: "text_to_svg", arguments: { prompt: "a blue star", model: "local-svg-v1" } })) as Result;
    expect(JSON.stringify(svg.structuredContent)).not.toContain("data:");
    expect(svg.structuredContent!.svgCode).toMatch(/^<svg/);
    expect(svg.content.find((item) => item.type === "resource")!.resource!.uri).toBe(svg.structuredContent!.hostedUrl);
    expect(svg.content.find((item) => item.type === "resource_link")!.mimeType).toBe("image/svg+xml");

    const converted = (await client.callTool({ name: "convert_format", arguments: { image: photo, targetFormat: "webp" } })) as Result;
    expect(converted.structuredContent).not.toHaveProperty("b64_json");
    expect(converted.content.find((item) => item.type === "resource_link")!.mimeType).toBe("image/webp");
  });

  it("responseFormat b64_json: the base64 once, as b64_json, equal to the hosted file; over the limit only a note", async () => {
    const account = await newAccount({ credits: 50 });
    const client = await mcpClient(account.key);
    const small = (await client.callTool({ name: "convert_format", arguments: { image: await dataUriOf(discOnPlainBackground(64, 48)), targetFormat: "png", responseFormat: "b64_json" } })) as Result;
    expect(small.structuredContent).not.toHaveProperty("imageBase64");
    const hosted = await fetchHosted(small.structuredContent!.hostedUrl, "image/png");
    expect(bytesOfBase64(small.structuredContent!.b64_json)).toEqual(hosted);
    expect(JSON.stringify(small).split(small.structuredContent!.b64_json).length).toBe(2); // once in the whole answer

    // Noise does not compress: 640x640 RGBA is about 1.6 MB of PNG, over the inline limit.
    const big = (await client.callTool({ name: "convert_format", arguments: { image: await dataUriOf(grain(640, 640)), targetFormat: "png", responseFormat: "b64_json" } })) as Result;
    expect(big.isError).toBeFalsy();
    const bigFile = await fetchHosted(big.structuredContent!.hostedUrl, "image/png");
    expect(bigFile.length).toBeGreaterThan(MCP_INLINE_MAX_BYTES);
    expect(big.structuredContent).not.toHaveProperty("b64_json");
    expect(big.structuredContent!.inlineOmitted).toMatch(/1\.00 MB/);
    expect(longestString(big)).toBeLessThan(300_000); // the preview (grain is its worst case), nothing near the 1.6 MB of base64
  });

  it("multicall items: links per item; asked-for base64 shares one budget per answer", async () => {
    const account = await newAccount({ credits: 50 });
    const client = await mcpClient(account.key);
    const image = await dataUriOf(grain(500, 500)); // ~1 MB as PNG: one fits the budget, not two
    const requests = [
      { tool: "compress_image", args: { image, quality: 100, targetFormat: "png" } },
      { tool: "convert_format", args: { image, targetFormat: "png", responseFormat: "b64_json" } },
      { tool: "convert_format", args: { image, targetFormat: "png", responseFormat: "b64_json" } },
    ];
    const result = (await client.callTool({ name: "multicall", arguments: { requests } })) as Result;
    const items = (result.structuredContent!.results as { data: { result: Record<string, unknown> } }[]).map((item) => item.data.result);
    expect(items[0]).not.toHaveProperty("image");
    expect(JSON.stringify(items[0])).not.toContain("data:");
    const file = await fetchHosted(String(items[1]!.hostedUrl), "image/png");
    expect(file.length).toBeGreaterThan(MCP_INLINE_MAX_BYTES / 2);
    expect(file.length).toBeLessThan(MCP_INLINE_MAX_BYTES);
    expect(bytesOfBase64(String(items[1]!.b64_json))).toEqual(file);
    expect(items[2]).not.toHaveProperty("b64_json");
    expect(items[2]!.inlineOmitted).toMatch(/what is left/);
  });
});

describe("MCP replays say that nothing was charged", () => {
  it("a repeated idempotencyKey: deductedCredits 0, replayed, and the text says so", async () => {
    const account = await newAccount({ credits: 20 });
    const client = await mcpClient(account.key);
    const args = { prompt: "a red circle", seed: 3, idempotencyKey: "replay-says-free-1" };
    const first = (await client.callTool({ name: "generate_image", arguments: args })) as Result;
    expect(first.content[0]!.text).toContain("Spent 2 credits; 18 left.");
    const again = (await client.callTool({ name: "generate_image", arguments: args })) as Result;
    expect(again.structuredContent).toMatchObject({ imageUrl: first.structuredContent!.imageUrl, deductedCredits: 0, replayed: true });
    expect(again.content[0]!.text).toMatch(/nothing was charged this time \(the first call spent 2 credits\)/);
    expect(again.content[0]!.text).not.toContain("Spent 2 credits");
    const batch = { requests: [{ tool: "text_to_svg", args: { prompt: "a leaf", model: "local-svg-v1" } }], idempotencyKey: "replay-says-free-2" };
    await client.callTool({ name: "multicall", arguments: batch });
    const batchAgain = (await client.callTool({ name: "multicall", arguments: batch })) as Result;
    expect(batchAgain.structuredContent).toMatchObject({ deductedCredits: 0, replayed: true });
    expect(batchAgain.content[0]!.text).toMatch(/nothing was charged this time \(the first call spent 5 credits\)/);
    expect(await balanceOf(account.id)).toBe(20 - 2 - 5);
  });

  it("a static Idempotency-Key header: other arguments run as new calls, the same arguments replay", async () => {
    const account = await newAccount({ credits: 20 });
    const client = await mcpClient(account.key, "x-api-key", { headers: { "Idempotency-Key": "set-once-in-config" } });
    const one = (await client.callTool({ name: "generate_image", arguments: { prompt: "a red circle", seed: 1 } })) as Result;
    const two = (await client.callTool({ name: "generate_image", arguments: { prompt: "a blue square", seed: 1 } })) as Result;
    expect([one.isError, two.isError]).toEqual([undefined, undefined]);
    expect(two.structuredContent).toMatchObject({ deductedCredits: 2, userCredits: 16 });
    const repeat = (await client.callTool({ name: "generate_image", arguments: { prompt: "a red circle", seed: 1 } })) as Result;
    expect(repeat.structuredContent).toMatchObject({ imageUrl: one.structuredContent!.imageUrl, deductedCredits: 0, replayed: true });
    expect(repeat.content[0]!.text).toMatch(/pass a new idempotencyKey argument/);
    // The argument still wins over the header: a new key is a new call.
    const fresh = (await client.callTool({ name: "generate_image", arguments: { prompt: "a red circle", seed: 1, idempotencyKey: "new-1" } })) as Result;
    expect(fresh.structuredContent).toMatchObject({ deductedCredits: 2 });
    expect(await balanceOf(account.id)).toBe(14);
    expect((await usageRows(account.id)).filter((row) => row.credits_deducted > 0)).toHaveLength(3);
  });
});

describe("MCP lookups take only their own arguments", () => {
  it("get_user_info and list_models refuse an unknown argument, naming it", async () => {
    const client = await mcpClient((await newAccount()).key);
    const me = (await client.callTool({ name: "get_user_info", arguments: { verbose: true } })) as Result;
    expect(me).toMatchObject({ isError: true, structuredContent: { error: { code: "invalid_parameter", param: "verbose" }, status: 400 } });
    const models = (await client.callTool({ name: "list_models", arguments: { task: null, limit: 3 } })) as Result;
    expect(models.structuredContent).toMatchObject({ error: { code: "invalid_parameter", param: "limit" } });
    const fine = (await client.callTool({ name: "list_models", arguments: { task: null } })) as Result;
    expect(fine.isError).toBeFalsy();
  });
});
