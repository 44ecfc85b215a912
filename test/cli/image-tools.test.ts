// Every image command run as a child process against the local server: the file written with -o
// is decoded (PNG signature and size from the header) and the balance moves by the price.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { QUADRANTS_HEIC } from "../fixtures/heic.ts";
import { balanceOf, getJson, newKey, pngHasAlpha, pngSize, runCli, tempDir, testPng } from "./support.ts";

let key: string;
let dir: string;
/** A 96x64 PNG on disk, the input of the image-to-image commands. */
let photo: string;

beforeAll(async () => {
  key = await newKey("CLI image tools", 1_000);
  dir = tempDir();
  photo = path.join(dir, "photo.png");
  await writeFile(photo, testPng(96, 64));
});

/** Runs a billed command and checks that the balance fell by exactly the credits it reports. */
async function paid(args: string[], stdin?: Buffer) {
  const before = await balanceOf(key);
  const run = await runCli([...args, "--json"], { key, stdin });
  expect(run.code, run.stderr).toBe(0);
  const body = JSON.parse(run.stdout);
  expect(body.success).toBe(true);
  expect(body.userCredits).toBe(before - body.deductedCredits);
  expect(await balanceOf(key)).toBe(body.userCredits);
  return body;
}

describe("image commands save their results with -o", () => {
  it("generate writes the hosted PNG at the aspect ratio asked for", async () => {
    const out = path.join(dir, "balloon.png");
    const body = await paid(["generate", "a red hot-air balloon over green hills", "--aspect-ratio", "16:9", "--seed", "7", "-o", out]);
    expect(pngSize(await readFile(out))).toMatchObject({ width: 1024, height: 576 });
    expect(body.result).toMatchObject({ seed: 7, aspectRatio: "16:9", action: "generate" });
    // The file on disk is the hosted result, byte for byte.
    const hosted = Buffer.from(await (await fetch(body.result.imageUrl)).arrayBuffer());
    expect((await readFile(out)).equals(hosted)).toBe(true);
  });

  it("the human summary says what was done, the credits and where the file went", async () => {
    const out = path.join(dir, "summary.png");
    const before = await balanceOf(key);
    const run = await runCli(["generate", "a small green tree", "-o", out], { key });
    expect(run.code, run.stderr).toBe(0);
    const after = await balanceOf(key);
    expect(run.stdout).toMatch(/^Generated a 1024x1024 image with /);
    expect(run.stdout).toContain(`Credits: ${before - after} spent, ${after} left.`);
    expect(run.stdout).toContain(`Saved: ${out}`);
    expect(run.stderr).toBe(""); // no spinner: stderr is not a terminal here
  });

  it("transparent writes an RGBA PNG", async () => {
    const out = path.join(dir, "star.png");
    const body = await paid(["transparent", "a yellow star", "-o", out]);
    expect(body.result.isTransparent).toBe(true);
    expect(pngSize(await readFile(out))).toMatchObject({ width: 1024, height: 1024 });
    expect(pngHasAlpha(await readFile(out))).toBe(true);
  });

  it("edit sends a local file and writes the edited image", async () => {
    const out = path.join(dir, "turned.png");
    const body = await paid(["edit", photo, "rotate 90 degrees", "-o", out]);
    expect(body.result).toMatchObject({ action: "edit", hasInputImage: true });
    expect(pngSize(await readFile(out))).toMatchObject({ width: 64, height: 96 });
  });

  it("remove-bg reads the image from stdin", async () => {
    const out = path.join(dir, "cut.png");
    const body = await paid(["remove-bg", "-", "-o", out], testPng(96, 64));
    expect(body.deductedCredits).toBe(8);
    expect(pngSize(await readFile(out))).toMatchObject({ width: 96, height: 64 });
    expect(pngHasAlpha(await readFile(out))).toBe(true);
  });

  it("upscale --scale 2x doubles both sides exactly", async () => {
    const out = path.join(dir, "photo@2x.png");
    const body = await paid(["upscale", photo, "--scale", "2x", "-o", out]);
    expect(body.deductedCredits).toBe(15);
    expect(body.result.scaleFactor).toBe("2x");
    expect(pngSize(await readFile(out))).toMatchObject({ width: 192, height: 128 });
  });

  it("svg writes the markup, adding .svg to a bare path", async () => {
    const body = await paid(["svg", "a green leaf", "--style", "flat", "-o", path.join(dir, "leaf")]);
    const written = await readFile(path.join(dir, "leaf.svg"), "utf8");
    expect(written).toBe(body.result.svgCode);
    expect(written).toMatch(/^<svg[\s>]/);
    expect(body.deductedCredits).toBe(5);
  });

  it("compress decodes the inline data URI into the file", async () => {
    const out = path.join(dir, "photo.webp");
    const body = await paid(["compress", photo, "--format", "webp", "--quality", "60", "-o", out]);
    const bytes = await readFile(out);
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
    expect(`data:image/webp;base64,${bytes.toString("base64")}`).toBe(body.result.image);
    expect(body.deductedCredits).toBe(1);
  });

  it("convert takes a data URI argument and writes the converted file", async () => {
    const out = path.join(dir, "converted.gif");
    const dataUri = `data:image/png;base64,${testPng(40, 30).toString("base64")}`;
    const body = await paid(["convert", dataUri, "--to", "gif", "-o", out]);
    const bytes = await readFile(out);
    expect(bytes.subarray(0, 6).toString("latin1")).toBe("GIF89a");
    expect([bytes.readUInt16LE(6), bytes.readUInt16LE(8)]).toEqual([40, 30]);
    expect(body.result).toMatchObject({ originalFormat: "png", targetFormat: "gif", width: 40, height: 30 });
  });

  it("compress and convert resize with --width, --height and --fit", async () => {
    const thumb = path.join(dir, "thumb.png");
    await paid(["compress", photo, "--format", "png", "--quality", "100", "--width", "48", "-o", thumb]);
    expect(pngSize(await readFile(thumb))).toMatchObject({ width: 48, height: 32 });
    const square = path.join(dir, "square.png");
    const body = await paid(["convert", photo, "--to", "png", "--width", "20", "--height", "20", "--fit", "cover", "-o", square]);
    expect(body.result).toMatchObject({ width: 20, height: 20 });
    expect(pngSize(await readFile(square))).toMatchObject({ width: 20, height: 20 });
    // A bad flag is the CLI's usage error, sent nowhere.
    const bad = await runCli(["convert", photo, "--to", "png", "--fit", "fill"], { key });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--fit must be one of inside, cover/);
  });

  // Through wrangler dev's own bundle, not vitest's module runner: libheif-js's glue once read
  // `__dirname`, which only the test runner defines (scripts/patch-codecs.ts).
  it("compress reads an iPhone-style HEIC file and writes JPEG", async () => {
    const heic = path.join(dir, "quadrants.heic");
    await writeFile(heic, Buffer.from(QUADRANTS_HEIC, "base64"));
    const out = path.join(dir, "from-heic.jpg");
    const body = await paid(["compress", heic, "--format", "jpeg", "-o", out]);
    const bytes = await readFile(out);
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    expect(body.result.format).toBe("JPEG");
  });

  it("-o - writes the image bytes to stdout and the summary to stderr", async () => {
    const run = await runCli(["convert", photo, "--to", "png", "-o", "-"], { key });
    expect(run.code, run.stderr).toBe(0);
    expect(pngSize(run.stdoutBytes)).toMatchObject({ width: 96, height: 64 });
    expect(run.stderr).toContain("Saved: stdout");
  });

  it("every call above is in the usage log with source cli", async () => {
    const { logs } = await getJson<{ logs: { tool: string; source: string }[] }>("/v1/usage?limit=100", key);
    expect(new Set(logs.map((entry) => entry.tool))).toEqual(
      new Set(["generate_image", "generate_transparent_image", "edit_image", "remove_background", "upscale_image", "text_to_svg", "compress_image", "convert_format"]),
    );
    expect(logs.every((entry) => entry.source === "cli")).toBe(true);
  });
});
