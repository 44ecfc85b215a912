import { describe, expect, it } from "vitest";
import { adminCall, BASE, call, newAccount } from "../support/fixtures";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, dataUriOf, decodeAny, usageRows } from "../support/tool-calls";
import { FreshOAuthProvider, mcpClient } from "./support";

// MCP as agents and their hosts use it: retries that must not pay twice, results reachable by
// link, strict arguments, and a key problem that reads as one through OAuth-capable clients.

type Content = { type: string; text?: string; data?: string; mimeType?: string; uri?: string };
type Result = { isError?: boolean; content: Content[]; structuredContent?: Record<string, any>; _meta?: Record<string, unknown> };

async function hosted(uri: string): Promise<Response> {
  expect(uri.startsWith(`${BASE}/files/`), uri).toBe(true);
  const response = await call(new URL(uri).pathname);
  expect(response.status).toBe(200);
  return response;
}

describe("MCP idempotency", () => {
  it("the idempotencyKey argument replays the first result for free and refuses other arguments", async () => {
    const account = await newAccount({ credits: 20 });
    const client = await mcpClient(account.key);
    const args = { prompt: "a red circle", seed: 3, idempotencyKey: "retry-after-timeout-1" };
    const first = (await client.callTool({ name: "generate_image", arguments: args })) as Result;
    expect(first.structuredContent).toMatchObject({ deductedCredits: 2, userCredits: 18 });
    const again = (await client.callTool({ name: "generate_image", arguments: args })) as Result;
    expect(again.structuredContent!.imageUrl).toBe(first.structuredContent!.imageUrl);
    expect(again._meta).toMatchObject({ "pixelgate/replayed": true });
    const other = (await client.callTool({ name: "generate_image", arguments: { ...args, prompt: "a blue square" } })) as Result;
    expect(other.structuredContent).toMatchObject({ error: { code: "idempotency_conflict" }, status: 422 });
    const malformed = (await client.callTool({ name: "generate_image", arguments: { ...args, idempotencyKey: "" } })) as Result;
    expect(malformed.structuredContent).toMatchObject({ error: { code: "invalid_parameter", param: "idempotencyKey" } });
    expect(await balanceOf(account.id)).toBe(18);
    expect((await usageRows(account.id)).filter((row) => row.credits_deducted > 0)).toHaveLength(1);
  });

  it("the Idempotency-Key header of /mcp does the same; a call refused for free keeps no answer", async () => {
    const account = await newAccount({ credits: 10 });
    const client = await mcpClient(account.key, "x-api-key", { headers: { "Idempotency-Key": "header-key-1" } });
    const refused = (await client.callTool({ name: "compress_image", arguments: { quality: 40 } })) as Result;
    expect(refused.structuredContent).toMatchObject({ error: { code: "missing_parameter", param: "image" } });
    const image = await dataUriOf(discOnPlainBackground(24, 24));
    const first = (await client.callTool({ name: "compress_image", arguments: { image, quality: 40 } })) as Result;
    const again = (await client.callTool({ name: "compress_image", arguments: { image, quality: 40 } })) as Result;
    expect(again.structuredContent!.hostedUrl).toBe(first.structuredContent!.hostedUrl);
    const longKey = await mcpClient(account.key, "x-api-key", { headers: { "Idempotency-Key": "k".repeat(300) } });
    const refusedKey = (await longKey.callTool({ name: "compress_image", arguments: { image, quality: 40 } })) as Result;
    expect(refusedKey.structuredContent).toMatchObject({ error: { code: "invalid_parameter", param: "Idempotency-Key" } });
    expect(await balanceOf(account.id)).toBe(9);
  });
});

describe("MCP results", () => {
  it("compress_image and text_to_svg carry a hosted link and a preview (the SVG rasterised), not only inline data", async () => {
    const account = await newAccount({ credits: 20 });
    const client = await mcpClient(account.key);
    const compressed = (await client.callTool({ name: "compress_image", arguments: { image: await dataUriOf(discOnPlainBackground(40, 30)), quality: 40 } })) as Result;
    const link = compressed.content.find((item) => item.type === "resource_link")!;
    expect(link.uri).toBe(compressed.structuredContent!.hostedUrl);
    expect(compressed.content[0]!.text).toContain(link.uri!);
    const file = await hosted(link.uri!);
    expect(file.headers.get("Content-Type")).toBe("image/webp");
    expect((await decodeAny(new Uint8Array(await file.arrayBuffer()))).image.width).toBe(40);
    expect(compressed.content.some((item) => item.type === "image")).toBe(true);

    const svg = (await client.callTool({ name: "text_to_svg", arguments: { prompt: "a blue star", model: "local-svg-v1" } })) as Result;
    const svgLink = svg.content.find((item) => item.type === "resource_link")!;
    const svgPreview = svg.content.find((item) => item.type === "image")!;
    expect(svgPreview.mimeType).toBe("image/webp");
    const drawn = await decodeAny(Uint8Array.from(atob(svgPreview.data!), (char) => char.charCodeAt(0)));
    expect([drawn.image.width, drawn.image.height]).toEqual([512, 512]);
    expect(drawn.image.data[(256 * 512 + 256) * 4 + 3]).toBeGreaterThan(200); // the icon's middle is painted
    expect(await (await hosted(svgLink.uri!)).text()).toBe(svg.structuredContent!.svgCode);
  });

  it("multicall answers links and small previews per item, and no base64 in its text", async () => {
    const account = await newAccount({ credits: 200 });
    const client = await mcpClient(account.key);
    const image = await dataUriOf(discOnPlainBackground(64, 64));
    const requests = [
      ...Array.from({ length: 18 }, (_, index) => ({ tool: "text_to_svg", args: { prompt: `a star number ${index}`, model: "local-svg-v1" } })),
      { tool: "compress_image", args: { image, quality: 50 } },
      { tool: "upscale_image", args: { image, scale: "2x", model: "local-lanczos-v1" } },
    ];
    const result = (await client.callTool({ name: "multicall", arguments: { requests } })) as Result;
    const text = result.content[0]!.text!;
    expect(text).not.toMatch(/base64|data:/);
    expect(text.length).toBeLessThan(4000);
    const links = result.content.filter((item) => item.type === "resource_link");
    expect(links).toHaveLength(20);
    for (const link of links) expect(text).toContain(link.uri!);
    const previews = result.content.filter((item) => item.type === "image");
    expect(previews).toHaveLength(20); // the SVGs too, rasterised
    const star = await decodeAny(Uint8Array.from(atob(previews[0]!.data!), (char) => char.charCodeAt(0)));
    expect([star.image.width, star.image.height]).toEqual([256, 256]);
    const upscaled = await decodeAny(Uint8Array.from(atob(previews[19]!.data!), (char) => char.charCodeAt(0)));
    expect(upscaled.image.width).toBe(128); // 128 px result: under the 256 px multicall preview side
    expect(result.structuredContent!.results[19].data.result).toMatchObject({ scaleFactor: "2x", hostedUrl: links[19]!.uri });
    expect(await balanceOf(account.id)).toBe(200 - 18 * 5 - 1 - 15);
  });
});

describe("MCP arguments", () => {
  it("an unknown argument is refused naming it, null means not given, errors name the MCP spelling; nothing charged", async () => {
    const account = await newAccount({ credits: 50 });
    const client = await mcpClient(account.key);
    const unknown = (await client.callTool({ name: "generate_image", arguments: { prompt: "a cat", size: "1024x1024" } })) as Result;
    expect(unknown.structuredContent).toMatchObject({ error: { code: "invalid_parameter", param: "size" }, status: 400 });
    const image = await dataUriOf(discOnPlainBackground(10, 10));
    const badScale = (await client.callTool({ name: "upscale_image", arguments: { image, scale: "3x" } })) as Result;
    expect(badScale.structuredContent).toMatchObject({ error: { code: "invalid_parameter", param: "scale" } });
    const convert = (await client.callTool({ name: "convert_format", arguments: { image, targetFormat: null } })) as Result;
    expect(convert.structuredContent).toMatchObject({ error: { code: "missing_parameter", param: "targetFormat" } });
    expect(await balanceOf(account.id)).toBe(50);
    const nulls = Object.fromEntries(["model", "aspectRatio", "style", "seed", "image", "referenceImages", "responseFormat", "idempotencyKey"].map((name) => [name, null]));
    const strictClient = (await client.callTool({ name: "generate_image", arguments: { prompt: "a cat", ...nulls } })) as Result;
    expect(strictClient.structuredContent).toMatchObject({ aspectRatio: "1:1", deductedCredits: 2 });
  });
});

describe("/mcp over HTTP", () => {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

  it("every answer has X-Request-Id; GET and DELETE answer 405 (stateless: no stream to hold open)", async () => {
    const account = await newAccount();
    const list = await call("/mcp", { method: "POST", headers: { ...headers, "x-api-key": account.key }, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }) });
    expect(list.status).toBe(200);
    expect(list.headers.get("X-Request-Id")).toMatch(/^req_/);
    for (const method of ["GET", "DELETE"]) {
      const response = await call("/mcp", { method, headers: { "x-api-key": account.key, Accept: "text/event-stream" } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST");
      expect(response.headers.get("X-Request-Id")).toMatch(/^req_/);
      // Without a good key the key problem comes first, for clients falling back to SSE (GET).
      const refused = await call("/mcp", { method, headers: { "x-api-key": "pg_nope", Accept: "text/event-stream" } });
      expect(refused.status, method).toBe(401);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/^invalid_api_key/);
    }
  });

  it("advertises no OAuth: the metadata documents are 404", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"]) {
      expect((await call(path)).status, path).toBe(404);
    }
  });

  it("a bad or revoked key reads as such through a client without OAuth and through an OAuth-capable one (mcp-remote, Inspector)", async () => {
    await expect(mcpClient("pg_not_a_key")).rejects.toThrow(/invalid_api_key/);
    const account = await newAccount();
    expect((await adminCall(`/admin/v1/keys/${account.keyId}`, "DELETE")).status).toBe(200);
    const attempt = mcpClient(account.key, "x-api-key", { authProvider: new FreshOAuthProvider() });
    await expect(attempt).rejects.toThrow(/takes an API key, not OAuth/);
    await expect(mcpClient(account.key, "x-api-key", { authProvider: new FreshOAuthProvider() })).rejects.toThrow(/invalid_api_key/);
  });
});
