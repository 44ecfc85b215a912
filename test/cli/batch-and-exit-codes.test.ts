// `pixelgate batch`, --idempotency-key, and the exit codes a script branches on: credits (4),
// rate limit (5), bad input (6), a partly failed batch (1).
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { balanceOf, getJson, newKey, pngSize, runCli, tempDir, testPng } from "./support.ts";

let key: string;
let dir: string;
let photo: string;

beforeAll(async () => {
  key = await newKey("CLI batch", 1_000);
  dir = tempDir();
  photo = path.join(dir, "photo.png");
  await writeFile(photo, testPng(64, 48));
});

describe("pixelgate batch", () => {
  it("runs FILE.json, sends local image paths, saves each success into -o DIR and exits 1 when an item failed", async () => {
    const file = path.join(dir, "jobs.json");
    await writeFile(file, JSON.stringify({
      requests: [
        { tool: "generate_image", args: { prompt: "a red kite", aspectRatio: "4:3" } },
        { tool: "text_to_svg", args: { prompt: "a kite icon" } },
        { tool: "compress_image", args: { image: photo, targetFormat: "png" } },
        { tool: "convert_format", args: { image: photo, targetFormat: "svg" } },
      ],
    }));
    const out = path.join(dir, "results");
    const before = await balanceOf(key);
    const run = await runCli(["batch", file, "-o", out], { key });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^Ran 4 items: 3 succeeded, 1 failed\./);
    expect(run.stdout).toMatch(/ 4\. convert_format: failed 400 \[\w+\]/);
    expect((await readdir(out)).sort()).toEqual(["01-generate_image.png", "02-text_to_svg.svg", "03-compress_image.png"]);
    expect(pngSize(await readFile(path.join(out, "01-generate_image.png")))).toMatchObject({ width: 1024, height: 768 });
    expect(pngSize(await readFile(path.join(out, "03-compress_image.png")))).toMatchObject({ width: 64, height: 48 });
    expect(await readFile(path.join(out, "02-text_to_svg.svg"), "utf8")).toMatch(/^<svg[\s>]/);
    const after = await balanceOf(key);
    expect(run.stdout).toContain(`Credits: ${before - after} spent, ${after} left.`);
  });

  it("reads the body from stdin with -, and --json prints the batch envelope", async () => {
    const body = { requests: [{ tool: "text_to_svg", args: { prompt: "a sun" } }, { tool: "text_to_svg", args: { prompt: "a moon" } }] };
    const run = await runCli(["batch", "-", "--json"], { key, stdin: JSON.stringify(body) });
    expect(run.code, run.stderr).toBe(0);
    const envelope = JSON.parse(run.stdout);
    expect(envelope).toMatchObject({ success: true, count: 2, deductedCredits: 10 });
    expect(envelope.results.map((item: { tool: string; success: boolean }) => [item.tool, item.success])).toEqual([["text_to_svg", true], ["text_to_svg", true]]);
  });

  it("a file that is not a batch body is a usage error (2) and costs nothing", async () => {
    const file = path.join(dir, "broken.json");
    await writeFile(file, "{ requests: oops");
    const before = await balanceOf(key);
    expect((await runCli(["batch", file], { key })).code).toBe(2);
    await writeFile(file, JSON.stringify({ jobs: [] }));
    expect((await runCli(["batch", file], { key })).code).toBe(2);
    expect(await balanceOf(key)).toBe(before);
  });
});

describe("exit codes", () => {
  it("too little credit exits 4 and says how much is needed", async () => {
    const poor = await newKey("CLI poor", 3);
    const run = await runCli(["svg", "a red kite"], { key: poor }); // 5 credits
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("[insufficient_credits]");
    expect(run.stderr).toMatch(/This call needs 5 credits; the balance is 3\./);
    expect(await balanceOf(poor)).toBe(3);
  });

  it("bad input exits 6 and names the parameter", async () => {
    const run = await runCli(["generate", "a red kite", "--aspect-ratio", "9:1"], { key });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("[invalid_parameter]");
    expect(run.stderr).toContain("Parameter: aspectRatio");
  });

  it("the rate limit exits 5 and prints Retry-After", async () => {
    const busy = await newKey("CLI busy", 100);
    const twenty = { requests: Array.from({ length: 20 }, () => ({ tool: "compress_image", args: { image: photo } })) };
    for (let i = 0; i < 3; i++) expect((await runCli(["batch", "-"], { key: busy, stdin: JSON.stringify(twenty) })).code).toBe(0);
    const run = await runCli(["me"], { key: busy });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/Rate limited: retry after \d+ seconds\./);
  });

  it("--idempotency-key replays the first answer without charging again", async () => {
    const idempotencyKey = `cli-test-${crypto.randomUUID()}`;
    const logged = async () => (await getJson<{ count: number }>("/v1/usage?limit=100", key)).count;
    const [before, entriesBefore] = [await balanceOf(key), await logged()];
    const first = await runCli(["compress", photo, "--idempotency-key", idempotencyKey, "--json"], { key });
    const second = await runCli(["compress", photo, "--idempotency-key", idempotencyKey, "--json"], { key });
    expect([first.code, second.code]).toEqual([0, 0]);
    // The same answer, marked as a replay that charged nothing.
    const zeroed = JSON.parse(first.stdout, (name, value: unknown) => (name === "deductedCredits" ? 0 : value)) as Record<string, unknown>;
    expect(JSON.parse(second.stdout)).toEqual({ replayed: true, ...zeroed });
    expect(await balanceOf(key)).toBe(before - 1);
    expect(await logged()).toBe(Math.min(100, entriesBefore + 1));
  });
});
