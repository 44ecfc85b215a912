// A 12 MP photo converted to AVIF by a real local server (above 2 MP: a grid AVIF whose cells are
// coded one at a time) opens in Debian's Chromium, at its size and with the photo's pixels, and
// in libheif (heif-convert from libheif-examples, where it is installed).
// (Page scripts are passed as strings: this file is typed for Node, without the DOM library.)
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_FOUND, launchChromium, type LaunchedBrowser } from "./chromium.ts";
import { newKey } from "../cli/support.ts";

const baseUrl = (): string => inject("pixelgateUrl");
const [WIDTH, HEIGHT] = [4032, 3024];
const HEIF_CONVERT = spawnSync("heif-convert", ["--version"]).error === undefined;

/** A photo-like picture as raw RGB: smooth colour with some texture. */
function scene(): Buffer {
  const rgb = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0, at = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++, at += 3) {
      rgb[at] = (x * 255) / WIDTH;
      rgb[at + 1] = (y * 255) / HEIGHT;
      rgb[at + 2] = 128 + 60 * Math.sin(x / 37) * Math.cos(y / 29);
    }
  }
  return rgb;
}

/** Points spread over the picture, the cells' seams (every 1008 across, 504 down) and its last row and column among them. */
const POINTS: [number, number][] = [];
for (let y = 0; y < HEIGHT; y += 97) for (let x = 0; x < WIDTH; x += 89) POINTS.push([x, y]);
for (const x of [1007, 1008, 2015, 2016, WIDTH - 1]) for (let y = 0; y < HEIGHT; y += 61) POINTS.push([x, y]);
for (const y of [503, 504, 1007, 1008, HEIGHT - 1]) for (let x = 0; x < WIDTH; x += 61) POINTS.push([x, y]);

/** Mean and largest difference of the RGB values at POINTS, `read` giving a picture's. */
function difference(source: Buffer, read: (x: number, y: number, k: number) => number[]): { mean: number; most: number } {
  let [total, most] = [0, 0];
  for (const [k, [x, y]] of POINTS.entries()) {
    const shown = read(x, y, k);
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(shown[c]! - source[(y * WIDTH + x) * 3 + c]!);
      total += d;
      most = Math.max(most, d);
    }
  }
  return { mean: total / (POINTS.length * 3), most };
}

describe.skipIf(!CHROMIUM_FOUND)("a 12 MP photo as AVIF", () => {
  let browser: LaunchedBrowser;
  const source = scene();
  let imageUrl: string;
  let file: Uint8Array;
  const scratch = mkdtempSync(path.join(os.tmpdir(), "pixelgate-avif-"));

  beforeAll(async () => {
    const jpeg = await sharp(source, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    const key = await newKey("avif browser", 5);
    const response = await fetch(`${baseUrl()}/v1/convert-format`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ image: `data:image/jpeg;base64,${jpeg.toString("base64")}`, targetFormat: "avif" }),
    });
    const body = (await response.json()) as { result: { imageUrl: string; width: number; height: number } };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect([body.result.width, body.result.height]).toEqual([WIDTH, HEIGHT]);
    imageUrl = body.result.imageUrl;
    file = new Uint8Array(await (await fetch(imageUrl)).arrayBuffer());
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("opens in Chromium at 4032x3024, its pixels the photo's (seams and edges included)", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${baseUrl()}/v1`); // the file's origin, so the canvas can be read
    const shown = (await page.evaluate(`(async () => {
      const blob = await (await fetch(${JSON.stringify(imageUrl)})).blob();
      const bitmap = await createImageBitmap(blob);
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext("2d");
      context.drawImage(bitmap, 0, 0);
      const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
      const points = ${JSON.stringify(POINTS)};
      return { width: bitmap.width, height: bitmap.height, type: blob.type, pixels: points.flatMap(([x, y]) => Array.from(data.subarray((y * bitmap.width + x) * 4, (y * bitmap.width + x) * 4 + 3))) };
    })()`)) as { width: number; height: number; type: string; pixels: number[] };
    expect(shown).toMatchObject({ width: WIDTH, height: HEIGHT, type: "image/avif" });
    const { mean, most } = difference(source, (_x, _y, k) => shown.pixels.slice(k * 3, k * 3 + 3));
    expect(mean).toBeLessThan(3);
    expect(most).toBeLessThan(48);
    await page.close();
  });

  it.skipIf(!HEIF_CONVERT)("opens in libheif (heif-convert) at 4032x3024, its pixels the photo's", async () => {
    const [avif, png] = [path.join(scratch, "photo.avif"), path.join(scratch, "photo.png")];
    writeFileSync(avif, file);
    await promisify(execFile)("heif-convert", [avif, png]);
    const { data, info } = await sharp(readFileSync(png)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([WIDTH, HEIGHT]);
    const { mean, most } = difference(source, (x, y) => [...data.subarray((y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3)]);
    expect(mean).toBeLessThan(3);
    expect(most).toBeLessThan(48);
  });
});
