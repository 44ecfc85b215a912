// The CLI's tool facts (prices, choices, defaults, limits, body field names) are the service's:
// src/cli/tool-facts.ts is generated from /v1/openapi.json, and this fails when it drifts.
import { describe, expect, it } from "vitest";
import { toolFactsOf, type OpenApiDocument } from "../../src/cli/openapi-facts.ts";
import { TOOL_FACTS } from "../../src/cli/tool-facts.ts";
import { baseUrl, runCli } from "./support.ts";

describe("CLI tool facts", () => {
  it("equal what the running service's /v1/openapi.json says (else run npm run cli:facts)", async () => {
    const doc = (await (await fetch(`${baseUrl()}/v1/openapi.json`)).json()) as OpenApiDocument;
    const live = toolFactsOf(doc);
    expect(Object.keys(live)).toContain("/v1/convert-format");
    expect(TOOL_FACTS, "src/cli/tool-facts.ts is stale: run npm run cli:facts").toEqual(live);
  });

  it("are what the help states: each tool command's price is its path's price", async () => {
    const help = (await runCli(["--help"])).stdout;
    const commands: Record<string, string> = {
      generate: "/v1/generate", transparent: "/v1/generate-transparent", edit: "/v1/edit", "remove-bg": "/v1/remove-background",
      upscale: "/v1/upscale", svg: "/v1/text-to-svg", compress: "/v1/compress", convert: "/v1/convert-format",
    };
    for (const [command, path] of Object.entries(commands)) {
      const line = new RegExp(`^  ${command} +(.*)$`, "m").exec(help)?.[1];
      expect(line, command).toMatch(new RegExp(`\\(${TOOL_FACTS[path]!.price.replace(/[+()]/g, "\\$&")}\\)\\.$`));
    }
    const upscaleHelp = (await runCli(["upscale", "--help"])).stdout;
    expect(upscaleHelp).toContain(`--scale ${TOOL_FACTS["/v1/upscale"]!.fields.scaleFactor!.enum!.join("|")}`);
  });
});
