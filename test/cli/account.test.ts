// `pixelgate me | models | usage`, --json, --help, and the exit codes that need no image:
// usage errors, a missing or refused key.
import { beforeAll, describe, expect, it } from "vitest";
import { getJson, newKey, runCli } from "./support.ts";

let key: string;

beforeAll(async () => {
  key = await newKey("CLI account", 500);
});

describe("pixelgate me, models, usage", () => {
  it("me prints the account and its balance", async () => {
    const run = await runCli(["me"], { key });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^CLI account <cli-account-.*@example\.com>/);
    expect(run.stdout).toContain("Plan free, 500 credits.");
  });

  it("me --json prints the service's body unchanged", async () => {
    const run = await runCli(["me", "--json"], { key });
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(body).toEqual(await getJson("/v1/me", key));
    expect(body.user.credits).toBe(500);
    expect(body.authMethod).toBe("api_key");
  });

  it("models lists every live model with its cost", async () => {
    const listed = await getJson<{ models: { modelId: string; costPerReq: number }[] }>("/v1/models", key);
    const run = await runCli(["models"], { key });
    expect(run.code, run.stderr).toBe(0);
    expect(listed.models.length).toBeGreaterThan(0);
    for (const model of listed.models) expect(run.stdout).toMatch(new RegExp(`^${model.modelId}\\s.*\\s${model.costPerReq}\\s`, "m"));
    expect(run.stdout).toContain(`${listed.models.length} live model`);
    const json = await runCli(["models", "--json"], { key });
    expect(JSON.parse(json.stdout).models.map((m: { modelId: string }) => m.modelId)).toEqual(listed.models.map((m) => m.modelId));
  });

  it("usage shows the CLI's own calls with source cli, and --limit caps the page", async () => {
    const compressed = await runCli(["compress", "data:image/png;base64,not-an-image"], { key });
    expect(compressed.code).toBe(6);
    const run = await runCli(["usage", "--limit", "1", "--json"], { key });
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(body.count).toBe(1);
    expect(body.logs[0]).toMatchObject({ tool: "compress_image", source: "cli", creditsDeducted: 0 });
    const table = await runCli(["usage", "--limit", "5"], { key });
    expect(table.stdout).toMatch(/^TIME\s+TOOL\s+SOURCE\s+STATUS/);
    expect(table.stdout).toMatch(/compress_image\s+cli\s+400/);
  });
});

describe("usage errors and authentication", () => {
  it("--help works for the CLI and every command, without a key", async () => {
    const main = await runCli(["--help"]);
    expect(main.code).toBe(0);
    for (const command of ["me", "models", "usage", "generate", "transparent", "edit", "remove-bg", "upscale", "svg", "compress", "convert", "batch", "mcp"]) {
      expect(main.stdout).toContain(`\n  ${command} `);
      const help = await runCli([command, "--help"]);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toContain(`Usage: pixelgate ${command}`);
      expect(help.stdout, command).toContain("Examples:\n  pixelgate ");
      expect(help.stdout, command).toContain("3  authentication");
    }
  });

  it("an unknown command, an unknown option or a missing argument exits 2 without calling the service", async () => {
    const before = (await getJson<{ count: number }>("/v1/usage?limit=100", key)).count;
    for (const args of [["paint", "x"], ["me", "--colour", "red"], ["generate"], ["upscale", "a.png", "--scale", "3x"], ["usage", "--limit", "many"], ["compress", "/no/such/file.png"]]) {
      const run = await runCli(args, { key });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout, args.join(" ")).toBe("");
      expect(run.stderr, args.join(" ")).toMatch(/^pixelgate: /);
    }
    expect((await getJson<{ count: number }>("/v1/usage?limit=100", key)).count).toBe(before);
  });

  it("a missing key exits 3 with a message that says what to set", async () => {
    const run = await runCli(["me"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("PIXELGATE_API_KEY is not set");
  });

  it("a refused key exits 3 and --json still prints the error envelope", async () => {
    const run = await runCli(["me", "--json"], { key: "pg_notAValidKeyAtAll" });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    expect(run.stderr).toContain("[invalid_api_key]");
  });

  it("an unreachable service exits 7", async () => {
    const run = await runCli(["me"], { key, env: { PIXELGATE_URL: "http://127.0.0.1:9" } });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain("Cannot reach Pixelgate at http://127.0.0.1:9");
  });
});
