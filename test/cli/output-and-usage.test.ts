// Nothing is charged before the CLI knows it can deliver: -o must be writable and the command
// line complete (exit 2, no call); a result that cannot be saved after a paid call is printed
// instead (exit 8), never lost.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { balanceOf, getJson, newKey, pngSize, runCli, tempDir, testPng } from "./support.ts";

let key: string;
let dir: string;
let photo: string;

beforeAll(async () => {
  key = await newKey("CLI output", 200);
  dir = tempDir();
  photo = path.join(dir, "photo.png");
  await writeFile(photo, testPng(48, 32));
});

const logged = async (): Promise<number> => (await getJson<{ count: number }>("/v1/usage?limit=100", key)).count;

/** Runs the command, expects exit 2 with `message`, and checks that nothing reached the service. */
async function refusedBeforeAnyCall(args: string[], message: RegExp, env: Record<string, string> = {}): Promise<void> {
  const [balance, entries] = [await balanceOf(key), await logged()];
  const run = await runCli(args, { key, env });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toMatch(message);
  expect(await balanceOf(key)).toBe(balance);
  expect(await logged()).toBe(entries);
}

describe("checked before any call (exit 2, nothing charged or logged)", () => {
  it("-o into a directory that does not exist, or under a file", async () => {
    await refusedBeforeAnyCall(["svg", "a kite", "-o", path.join(dir, "missing", "kite.svg")], /the directory .*missing does not exist/);
    await refusedBeforeAnyCall(["compress", photo, "-o", path.join(photo, "small.webp")], /is not a directory/);
    await refusedBeforeAnyCall(["compress", photo, "-o", path.join(dir, "missing") + path.sep], /the directory .*missing does not exist/);
  });

  it("an inline result without -o, in a folder that takes no files", async () => {
    const [balance, entries] = [await balanceOf(key), await logged()];
    const run = await runCli(["svg", "a kite"], { key, cwd: "/proc" });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/without -o \(an inline result is saved into the current folder; give -o PATH .*cannot create files in \/proc/);
    expect([await balanceOf(key), await logged()]).toEqual([balance, entries]);
  });

  it("-o where no file can be created, whatever the permission bits say (even as root)", async () => {
    await refusedBeforeAnyCall(["generate", "a kite", "-o", "/proc/pixelgate-kite.png"], /cannot create files in \/proc/);
  });

  it("batch -o DIR that cannot be created", async () => {
    const jobs = path.join(dir, "jobs.json");
    await writeFile(jobs, JSON.stringify({ requests: [{ tool: "text_to_svg", args: { prompt: "a sun" } }] }));
    await refusedBeforeAnyCall(["batch", jobs, "-o", path.join(photo, "results")], /cannot create the directory/);
  });

  it("convert without --to, an over-long prompt, and a malformed PIXELGATE_URL", async () => {
    await refusedBeforeAnyCall(["convert", photo], /--to FORMAT is required \(png, jpeg/);
    await refusedBeforeAnyCall(["svg", "x".repeat(4_001)], /PROMPT has 4001 characters; the service takes at most 4000\. Nothing was sent\./);
    for (const url of ["localhost:8787", "not a url", "ftp://127.0.0.1/"]) {
      await refusedBeforeAnyCall(["me"], /PIXELGATE_URL must be an http\(s\) URL/, { PIXELGATE_URL: url });
    }
  });
});

describe("a paid result that cannot be saved is printed (exit 8)", () => {
  /** The directory's files, so a test sees that no partial or temporary file was left. */
  const filesIn = async (folder: string) => (await readdir(folder)).sort();

  it("a hosted result: its URL on stdout, the existing file untouched, charged once, still downloadable", async () => {
    const folder = await mkdtemp(path.join(dir, "full-"));
    const target = path.join(folder, "kite.png");
    await writeFile(target, "the picture from yesterday");
    const before = await balanceOf(key);
    const run = await runCli(["generate", "a red kite", "-o", target], { key, noFileSpace: true });
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toMatch(/the call succeeded and was charged, but the result could not be saved .*EFBIG/);
    expect(await readFile(target, "utf8")).toBe("the picture from yesterday");
    expect(await filesIn(folder)).toEqual(["kite.png"]);
    const url = /^URL: (\S+)$/m.exec(run.stdout)?.[1];
    expect(url, run.stdout).toBeDefined();
    const file = await fetch(url!);
    expect(file.status).toBe(200);
    expect(pngSize(Buffer.from(await file.arrayBuffer())).width).toBe(1024);
    expect(await balanceOf(key)).toBe(before - 2);
  });

  it("an inline result: the data itself on stdout", async () => {
    const folder = await mkdtemp(path.join(dir, "full-"));
    const run = await runCli(["compress", photo, "--format", "png", "-o", path.join(folder, "small.png")], { key, noFileSpace: true });
    expect(run.code, run.stderr).toBe(8);
    const dataUri = run.stdout.trim();
    expect(dataUri).toMatch(/^data:image\/png;base64,/);
    expect(pngSize(Buffer.from(dataUri.split(",")[1]!, "base64"))).toMatchObject({ width: 48, height: 32 });
    expect(await filesIn(folder)).toEqual([]);
  });
});

describe("where results are saved", () => {
  it("-o DIR (existing, or ending in a separator) saves into it under a generated name, never beside it", async () => {
    const folder = path.join(dir, "folder.png");
    await mkdir(folder);
    const run = await runCli(["compress", photo, "--format", "png", "-o", folder], { key });
    expect(run.code, run.stderr).toBe(0);
    const saved = /^Saved: (\S+)$/m.exec(run.stdout)?.[1];
    expect(path.dirname(saved!)).toBe(folder);
    expect(path.basename(saved!)).toMatch(/^compress-.*\.png$/);
    expect(pngSize(await readFile(saved!))).toMatchObject({ width: 48, height: 32 });
    await expect(readFile(`${folder}.png`)).rejects.toThrow(/ENOENT/);
    const slash = await runCli(["svg", "a kite", "-o", folder + path.sep], { key });
    expect(/^Saved: (\S+)$/m.exec(slash.stdout)?.[1]).toMatch(new RegExp(`^${folder}/svg-.*\\.svg$`));
  });

  it("without -o, an inline result (svg, compress, batch items) is saved into the current folder and its path printed", async () => {
    const cwd = await mkdtemp(path.join(dir, "cwd-"));
    const svg = await runCli(["svg", "a green leaf"], { key, cwd });
    expect(svg.code, svg.stderr).toBe(0);
    const saved = /^Saved: (\S+)$/m.exec(svg.stdout)?.[1];
    expect(path.dirname(saved!)).toBe(cwd);
    expect(await readFile(saved!, "utf8")).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const compress = await runCli(["compress", photo], { key, cwd });
    expect(/^Saved: (\S+\.webp)$/m.exec(compress.stdout)?.[1]).toBeDefined();
    // A hosted result stays a link: nothing is written without -o.
    const generate = await runCli(["generate", "a red kite"], { key, cwd });
    expect(generate.stdout).toMatch(/^URL: http/m);
    const jobs = path.join(dir, "inline-jobs.json");
    await writeFile(jobs, JSON.stringify({ requests: [{ tool: "text_to_svg", args: { prompt: "a sun" } }, { tool: "generate_image", args: { prompt: "a moon" } }] }));
    const batch = await runCli(["batch", jobs], { key, cwd });
    expect(batch.code, batch.stderr).toBe(0);
    const files = (await readdir(cwd)).sort();
    expect(files).toHaveLength(3);
    expect(files.filter((name) => /^01-text_to_svg-.*\.svg$/.test(name))).toHaveLength(1);
    // --json prints the result whole instead, and writes nothing.
    await runCli(["svg", "a star", "--json"], { key, cwd });
    expect(await readdir(cwd)).toHaveLength(3);
  });

  it("a replay says that nothing was charged (single commands and batch)", async () => {
    const before = await balanceOf(key);
    const cwd = await mkdtemp(path.join(dir, "replay-"));
    const args = ["generate", "a red kite", "--seed", "5", "--idempotency-key", `cli-replay-${Date.now()}`];
    await runCli(args, { key, cwd });
    const again = await runCli(args, { key, cwd });
    expect(again.stdout).toMatch(/Credits: nothing charged this time \(a replay of the first answer; the balance was \d+ after it\)\./);
    expect(again.stdout).not.toMatch(/2 spent/);
    expect(JSON.parse((await runCli([...args, "--json"], { key, cwd })).stdout)).toMatchObject({ replayed: true, deductedCredits: 0 });
    const jobs = path.join(cwd, "jobs.json");
    await writeFile(jobs, JSON.stringify({ requests: [{ tool: "generate_image", args: { prompt: "a moon", seed: 1 } }] }));
    const batchArgs = ["batch", jobs, "--idempotency-key", `cli-batch-replay-${Date.now()}`];
    await runCli(batchArgs, { key, cwd });
    const batchAgain = await runCli(batchArgs, { key, cwd });
    expect(batchAgain.stdout).toMatch(/Credits: nothing charged this time/);
    expect(await balanceOf(key)).toBe(before - 4);
  });
});
