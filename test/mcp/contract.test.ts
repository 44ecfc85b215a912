import { describe, expect, it } from "vitest";
import { geminiParameters } from "../../src/mcp/portable-schema";
import { TOOLS } from "../../src/tools/registry";
import { call, newAccount } from "../support/fixtures";
import { mcpClient } from "./support";
import { geminiProblems, openAiStrictProblems } from "./schema-rules";

// What every MCP host can rely on: schemas any model API accepts, descriptions within limits and
// free of REST-only wording, and arguments that cannot drift from /v1/openapi.json.

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; type?: unknown };

async function listed() {
  const client = await mcpClient((await newAccount()).key);
  return (await client.listTools()).tools;
}

async function openApi(): Promise<{ paths: Record<string, any>; components: { schemas: Record<string, Schema> } }> {
  return (await (await call("/v1/openapi.json")).json()) as any;
}

function restBody(doc: Awaited<ReturnType<typeof openApi>>, path: string): Schema {
  const ref = doc.paths[path].post.requestBody.content["application/json"].schema.$ref as string;
  return doc.components.schemas[ref.replace("#/components/schemas/", "")]!;
}

const nonNull = (values: unknown[] | undefined) => values?.filter((value) => value !== null);
const acceptsNull = (schema: Schema) => [schema.type].flat().includes("null");

describe("MCP tool schemas", () => {
  it("pass OpenAI strict mode as served, and Gemini's function declarations after the nullable rewrite", async () => {
    for (const tool of await listed()) {
      expect(openAiStrictProblems(tool.inputSchema as Schema), tool.name).toEqual([]);
      expect(geminiProblems(geminiParameters(tool.inputSchema as Schema)), tool.name).toEqual([]);
    }
  });

  it("the checkers fail on what those APIs refuse", () => {
    const loose = { type: "object", properties: { a: { type: "string", default: "x", maxLength: 3 } }, required: [] };
    expect(openAiStrictProblems(loose)).toEqual(expect.arrayContaining([
      "$: additionalProperties must be false", "$.a: every property must be required (optional = union with null)", "$.a: keyword default is not supported", "$.a: keyword maxLength is not supported",
    ]));
    expect(geminiProblems({ type: "object", additionalProperties: false, properties: { a: { type: ["string", "null"] }, b: { $ref: "#/x" } } })).toEqual(expect.arrayContaining([
      "$: field additionalProperties is not in Gemini's Schema", '$.a: type must be one string, got ["string","null"]', "$.b: field $ref is not in Gemini's Schema",
    ]));
  });

  it("descriptions are under 1,024 characters and say nothing only REST callers can use", async () => {
    for (const tool of await listed()) {
      expect(tool.description!.length, tool.name).toBeLessThan(1024);
      expect(tool.description, tool.name).not.toMatch(/\b[45]\d\d\b|HTTP|\/v1\/|\bGET\b|\bPOST\b|header|b64_json|data URI/);
    }
  });

  it("declare an output schema", async () => {
    for (const tool of await listed()) expect(tool.outputSchema, tool.name).toMatchObject({ type: "object" });
  });
});

describe("MCP tools/list against /v1/openapi.json", () => {
  it("has every REST argument (but the aliases MCP hides), with the same enums and the same required set", async () => {
    const doc = await openApi();
    const tools = Object.fromEntries((await listed()).map((tool) => [tool.name, tool]));
    for (const definition of TOOLS) {
      const rest = restBody(doc, definition.paths.v1);
      const mcp = tools[definition.name]!.inputSchema as Schema;
      const hidden = ["imageBase64", ...(definition.mcpHides ?? [])];
      const restNames = Object.keys(rest.properties!).filter((name) => !hidden.includes(name));
      expect(Object.keys(mcp.properties!).sort(), definition.name).toEqual([...restNames, "idempotencyKey"].sort());
      for (const name of restNames) expect(nonNull(mcp.properties![name]!.enum), `${definition.name}.${name}`).toEqual(rest.properties![name]!.enum);
      const mcpRequired = Object.keys(mcp.properties!).filter((name) => !acceptsNull(mcp.properties![name]!));
      expect(mcpRequired.sort(), definition.name).toEqual((rest.required ?? []).filter((name) => !hidden.includes(name)).sort());
    }
  });

  it("multicall items name the registry's tools and every argument those tools take", async () => {
    const multicall = (await listed()).find((tool) => tool.name === "multicall")!.inputSchema as Schema;
    const items = multicall.properties!.requests!.items as Schema;
    expect(nonNull(items.properties!.tool!.enum)).toEqual(TOOLS.map((tool) => tool.name));
    const doc = await openApi();
    const all = new Set(TOOLS.flatMap((tool) => Object.keys(restBody(doc, tool.paths.v1).properties!)));
    for (const name of ["imageBase64", "scaleFactor"]) all.delete(name);
    expect(Object.keys(items.properties!.args!.properties!).sort()).toEqual([...all].sort());
  });
});
