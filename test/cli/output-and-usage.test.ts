// Nothing is charged before the CLI knows it can deliver: -o must be writable and the command
// line complete (exit 2, no call); a result that cannot be saved after a paid call is printed
// instead (exit 8), never lost.
import { mkdir, symlink, writeFile } from "node:fs/promises";
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
  it("-o into a directory that does not exist, under a file, or naming a directory", async () => {
    await refusedBeforeAnyCall(["svg", "a kite", "-o", path.join(dir, "missing", "kite.svg")], /the directory .*missing does not exist/);
    await refusedBeforeAnyCall(["compress", photo, "-o", path.join(photo, "small.webp")], /is not a directory/);
    const folder = path.join(dir, "folder.png");
    await mkdir(folder);
    await refusedBeforeAnyCall(["compress", photo, "-o", folder], /is a directory/);
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
  // /dev/full opens for writing (so the check passes) and fails every write with ENOSPC.
  async function fullDisk(name: string): Promise<string> {
    const target = path.join(dir, name);
    await symlink("/dev/full", target);
    return target;
  }

  it("a hosted result: its URL on stdout, charged once, still downloadable", async () => {
    const before = await balanceOf(key);
    const run = await runCli(["generate", "a red kite", "-o", await fullDisk("kite.png")], { key });
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toMatch(/the call succeeded and was charged, but the result could not be saved .*ENOSPC/);
    const url = /^URL: (\S+)$/m.exec(run.stdout)?.[1];
    expect(url, run.stdout).toBeDefined();
    const file = await fetch(url!);
    expect(file.status).toBe(200);
    expect(pngSize(Buffer.from(await file.arrayBuffer())).width).toBe(1024);
    expect(await balanceOf(key)).toBe(before - 2);
  });

  it("an inline result: the data itself on stdout", async () => {
    const run = await runCli(["compress", photo, "--format", "png", "-o", await fullDisk("small.png")], { key });
    expect(run.code, run.stderr).toBe(8);
    const dataUri = run.stdout.trim();
    expect(dataUri).toMatch(/^data:image\/png;base64,/);
    expect(pngSize(Buffer.from(dataUri.split(",")[1]!, "base64"))).toMatchObject({ width: 48, height: 32 });
  });
});
