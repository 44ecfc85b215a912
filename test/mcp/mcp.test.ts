import { describe, expect, it } from "vitest";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { expectError } from "../support/envelope";
import { call, newAccount } from "../support/fixtures";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, bytesOfBase64, dataUriOf, decodeAny, usageRows } from "../support/tool-calls";
import { mcpClient } from "./support";

// Remote MCP over streamable HTTP: the SDK's client against /mcp.

const EXPECTED_TOOLS = [
  "compress_image", "convert_format", "edit_image", "generate_image", "generate_transparent_image", "get_user_info",
  "list_models", "multicall", "remove_background", "text_to_svg", "upscale_image",
];

type Content = { type: string; text?: string; data?: string; mimeType?: string; uri?: string; resource?: { text?: string; mimeType?: string } };
type Result = { isError?: boolean; content: Content[]; structuredContent?: Record<string, unknown> };

const initialize = {
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("/mcp authentication", () => {
  it("answers 401 with a JSON-RPC error naming the key problem, without a key and for a bad one", async () => {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    for (const [extra, code] of [[{}, "missing_api_key"], [{ "x-api-key": "pg_nope" }, "invalid_api_key"]] as const) {
      const response = await call("/mcp", { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(initialize) });
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer /);
      expect(response.headers.get("WWW-Authenticate")).not.toMatch(/resource_metadata/);
      expect(response.headers.get("X-Request-Id")).toMatch(/^req_/);
      const body = (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string; data: { code: string; status: number } } };
      expect(body).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32001, data: { code, status: 401 } } });
      expect(body.error.message).toContain(code);
      expect(body.error.message).toContain("x-api-key");
    }
  });

  it("accepts the key as Authorization: Bearer too", async () => {
    const account = await newAccount({ credits: 5 });
    const client = await mcpClient(account.key, "Authorization");
    const result = (await client.callTool({ name: "get_user_info", arguments: {} })) as Result;
    expect(result.structuredContent).toMatchObject({ user: { id: account.id, credits: 5 } });
  });
});

describe("/mcp tools", () => {
  it("lists exactly the documented tools, with schemas from the REST definitions and truthful annotations", async () => {
    const client = await mcpClient((await newAccount()).key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(EXPECTED_TOOLS);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    const generate = byName.generate_image!;
    const properties = generate.inputSchema.properties as Record<string, { type?: string | string[] }>;
    // Strict form: every argument listed in `required`; the optional ones also accept null.
    expect(generate.inputSchema.required).toEqual(Object.keys(properties));
    expect(Object.keys(properties).filter((name) => !([properties[name]!.type].flat() as string[]).includes("null"))).toEqual(["prompt"]);
    expect((generate.inputSchema.properties as Record<string, { description?: string }>).prompt!.description).toMatch(/What to draw/);
    const upscale = byName.upscale_image!.inputSchema.properties as Record<string, { enum?: string[] }>;
    expect(upscale.scale!.enum).toEqual(["2x", "4x", "8x", null]);
    expect(upscale).not.toHaveProperty("scaleFactor");
    expect(byName.get_user_info!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(byName.list_models!.annotations).toMatchObject({ readOnlyHint: true });
    for (const name of ["generate_image", "compress_image", "multicall"]) {
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    }
  });

  it("generate_image: structured result, a short summary, a small inline preview and a link; billed and logged as mcp", async () => {
    const account = await newAccount({ credits: 20 });
    const client = await mcpClient(account.key);
    const result = (await client.callTool({ name: "generate_image", arguments: { prompt: "a red circle", aspectRatio: "16:9" } })) as Result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ action: "generate", model: "local-draw-v1", deductedCredits: 2, userCredits: 18 });
    const imageUrl = String(result.structuredContent!.imageUrl);
    const text = result.content.find((item) => item.type === "text")!.text!;
    expect(text).toContain("Spent 2 credits; 18 left.");
    expect(text).toContain(imageUrl);
    const preview = result.content.find((item) => item.type === "image")!;
    expect(preview.mimeType).toBe("image/webp");
    expect(preview.data!.length).toBeLessThan(200_000);
    const { image } = await decodeAny(bytesOfBase64(preview.data!));
    expect([image.width, image.height]).toEqual([512, 288]);
    expect(result.content.find((item) => item.type === "resource_link")!.uri).toBe(imageUrl);
    expect(await balanceOf(account.id)).toBe(18);
    expect(await usageRows(account.id)).toMatchObject([{ tool: "generate_image", source: "mcp", credits_deducted: 2 }]);
  });

  it("upscale_image takes `scale`; compress_image previews its inline result; text_to_svg returns the markup", async () => {
    const account = await newAccount({ credits: 50 });
    const client = await mcpClient(account.key);
    const image = await dataUriOf(discOnPlainBackground(40, 30));
    const upscaled = (await client.callTool({ name: "upscale_image", arguments: { image, scale: "2x", model: "local-lanczos-v1" } })) as Result;
    expect(upscaled.structuredContent).toMatchObject({ scaleFactor: "2x", width: 80, height: 60, deductedCredits: 15 });
    const compressed = (await client.callTool({ name: "compress_image", arguments: { image, quality: 40 } })) as Result;
    expect(compressed.structuredContent).toMatchObject({ format: "WEBP", deductedCredits: 1 });
    expect(compressed.content.some((item) => item.type === "image")).toBe(true);
    const svg = (await client.callTool({ name: "text_to_svg", arguments: { prompt: "a blue star", model: "local-svg-v1" } })) as Result;
    const resource = svg.content.find((item) => item.type === "resource")!.resource!;
    expect(resource.mimeType).toBe("image/svg+xml");
    expect(resource.text).toBe(svg.structuredContent!.svgCode);
    expect(await balanceOf(account.id)).toBe(50 - 15 - 1 - 5);
  });

  it("get_user_info, list_models and multicall", async () => {
    const account = await newAccount({ credits: 30 });
    const client = await mcpClient(account.key);
    const me = (await client.callTool({ name: "get_user_info", arguments: {} })) as Result;
    expect(me.structuredContent).toMatchObject({ user: { id: account.id, credits: 30 }, authMethod: "api_key" });
    const models = (await client.callTool({ name: "list_models", arguments: {} })) as Result;
    expect((models.structuredContent!.models as { modelId: string }[]).map((m) => m.modelId)).toContain("local-draw-v1");
    // Other tools' models are discoverable by task, each saying where its id goes.
    const upscalers = (await client.callTool({ name: "list_models", arguments: { task: "upscale" } })) as Result;
    const upscalerEntries = upscalers.structuredContent!.models as { modelId: string; task: string; tools: string[] }[];
    expect(upscalerEntries.map((m) => m.modelId)).toContain("local-lanczos-v1");
    expect(upscalerEntries.every((m) => m.task === "upscale" && m.tools.join() === "upscale_image")).toBe(true);
    const every = (await client.callTool({ name: "list_models", arguments: { task: "all" } })) as Result;
    expect(new Set((every.structuredContent!.models as { task: string }[]).map((m) => m.task))).toEqual(new Set(["image", "remove_bg", "upscale", "svg"]));
    const wrong = (await client.callTool({ name: "list_models", arguments: { task: "video" } })) as Result;
    expect(wrong.isError).toBe(true);
    const batch = (await client.callTool({
      name: "multicall",
      arguments: { requests: [{ tool: "text_to_svg", args: { prompt: "a leaf", model: "local-svg-v1" } }, { tool: "generate_image", args: { prompt: "" } }] },
    })) as Result;
    expect(batch.structuredContent).toMatchObject({ count: 2, deductedCredits: 5, userCredits: 25 });
    expect((batch.structuredContent!.results as { success: boolean }[]).map((item) => item.success)).toEqual([true, false]);
    expect(batch.content[0]!.text).toMatch(/1 succeeded, 1 failed/);
  });

  it("recoverable failures are isError results with the code and what to do, and cost nothing", async () => {
    const account = await newAccount({ credits: 1 });
    const client = await mcpClient(account.key);
    const missing = (await client.callTool({ name: "generate_image", arguments: {} })) as Result;
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { code: "missing_parameter", param: "prompt" }, status: 400 });
    expect(missing.content[0]!.text).toMatch(/missing_parameter/);
    const poor = (await client.callTool({ name: "generate_image", arguments: { prompt: "a cat" } })) as Result;
    expect(poor.structuredContent).toMatchObject({ error: { code: "insufficient_credits" }, currentCredits: 1, requiredCredits: 2 });
    expect(poor.content[0]!.text).toMatch(/Top up/);
    const unsafe = (await client.callTool({ name: "generate_image", arguments: { prompt: "explicit nude porn photo" } })) as Result;
    expect(unsafe.structuredContent).toMatchObject({ error: { code: "content_policy_violation" }, isNsfw: true, category: "sexual" });
    expect(await balanceOf(account.id)).toBe(1);
    expect((await usageRows(account.id)).every((row) => row.source === "mcp" && row.credits_deducted === 0)).toBe(true);
  });

  it("an unknown tool is a protocol error", async () => {
    const client = await mcpClient((await newAccount()).key);
    await expect(client.callTool({ name: "make_coffee", arguments: {} })).rejects.toBeInstanceOf(McpError);
  });
});
