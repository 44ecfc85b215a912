import { env } from "cloudflare:workers";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readHeader, type RasterImage } from "../../src/codecs";
import { replicateProvider } from "../../src/providers/replicate";
import { rasterPicture } from "../../src/codecs/picture-rows";
import { upscaleRows } from "../../src/providers/local/upscale";
import { UPSCALE_OUTPUT_LIMITS } from "../../src/providers/upscale-limits";
import { expectError, expectParamError } from "../support/envelope";
import { newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { discOnPlainBackground, noise } from "../support/pictures";
import { balanceOf, dataUriOf, postTool, usageRows } from "../support/tool-calls";
import { callFor, modelFor, pngInput, recordOf } from "../upstream/adapter-kit";

// Upscale's default on real sizes: 4x of the service's own 1024x1024 render is 4096x4096, 8x
// reaches 8192x8192, 2x of a 12 MP photo works. The local upscaler writes its rows straight into
// the hosted file (a multipart upload to R2); these tests read what was stored.

const LOCAL_UPSCALER = "local-lanczos-v1";
/** Real-ESRGAN as seeded, pinned to the version whose published schema the fake holds requests to. */
const REAL_ESRGAN = "nightmareai/real-esrgan:f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa";

type Body = { success: boolean; deductedCredits: number; result: { imageUrl: string; width: number; height: number; scaleFactor: string; b64_json?: string } };

async function upscale(body: Record<string, unknown>) {
  const account = await newAccount({ credits: 100 });
  const response = await postTool("/v1/upscale", account.key, body);
  return { account, response, body: (await response.clone().json()) as Body };
}

/** The stored object behind a result URL: its size, and its IHDR read with a range request. */
async function storedPng(imageUrl: string) {
  const key = `results/${imageUrl.split("/files/")[1]}`;
  const head = await env.FILES.head(key);
  expect(head, key).not.toBeNull();
  const start = await env.FILES.get(key, { range: { offset: 0, length: 33 } });
  const bytes = new Uint8Array(await start!.arrayBuffer());
  const view = new DataView(bytes.buffer);
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(new TextDecoder().decode(bytes.subarray(12, 16))).toBe("IHDR");
  const end = await env.FILES.get(key, { range: { offset: head!.size - 12, length: 12 } });
  const tail = new Uint8Array(await end!.arrayBuffer());
  return {
    key,
    size: head!.size,
    contentType: head!.httpMetadata?.contentType,
    width: view.getUint32(16),
    height: view.getUint32(20),
    colorType: bytes[25],
    endsWithIend: new TextDecoder().decode(tail.subarray(4, 8)) === "IEND",
  };
}

/** The unfiltered rows of a whole PNG of 8-bit RGB or RGBA (IDAT joined and inflated), for checking pixels. */
async function rowsOf(key: string, width: number, height: number, bpp: number): Promise<Uint8Array[]> {
  const file = new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer());
  const view = new DataView(file.buffer);
  const idat: Uint8Array[] = [];
  for (let at = 8; at < file.length; ) {
    const length = view.getUint32(at);
    if (new TextDecoder().decode(file.subarray(at + 4, at + 8)) === "IDAT") idat.push(file.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const data = inflateSync(Buffer.concat(idat));
  const stride = width * bpp + 1;
  expect(data.length).toBe(height * stride);
  const rows: Uint8Array[] = [];
  let prev = new Uint8Array(width * bpp);
  for (let y = 0; y < height; y++) {
    const type = data[y * stride]!;
    const row = new Uint8Array(data.subarray(y * stride + 1, (y + 1) * stride));
    for (let i = 0; i < row.length; i++) {
      const a = i >= bpp ? row[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][type]!;
      row[i] = (row[i]! + predictor) & 0xff;
    }
    rows.push(row);
    prev = row;
  }
  return rows;
}

/** Whether pixel `i` (a byte offset) has the colour of the top-left corner: the plain background. */
function isBackground(image: RasterImage, i: number): boolean {
  return image.data[i] === image.data[0] && image.data[i + 1] === image.data[1] && image.data[i + 2] === image.data[2];
}

describe("upscale at real sizes, local", () => {
  it("4x (the default) of a 1024x1024 render gives a 4096x4096 PNG in R2, pixel for pixel the upscaler's rows", async () => {
    const source = discOnPlainBackground(1024, 1024);
    const { response, body } = await upscale({ image: await dataUriOf(source), model: LOCAL_UPSCALER });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ deductedCredits: 15, result: { scaleFactor: "4x", width: 4096, height: 4096 } });
    const stored = await storedPng(body.result.imageUrl);
    expect(stored).toMatchObject({ width: 4096, height: 4096, colorType: 2, contentType: "image/png", endsWithIend: true });
    // Every row as the upscaler makes it (opaque: written as RGB).
    const rows = await rowsOf(stored.key, 4096, 4096, 3);
    let y = 0;
    for (const band of upscaleRows(rasterPicture(source), 4).bands) {
      for (let k = 0; k < band.length / (4096 * 4); k++, y++) {
        const expected = rows[y]!;
        for (let x = 0; x < 4096; x += 97) {
          expect([expected[x * 3], expected[x * 3 + 1], expected[x * 3 + 2]], `pixel ${x},${y}`).toEqual([band[(k * 4096 + x) * 4], band[(k * 4096 + x) * 4 + 1], band[(k * 4096 + x) * 4 + 2]]);
        }
      }
    }
    expect(y).toBe(4096);
  }, 180_000);

  it("2x of a translucent PNG keeps its alpha: an RGBA file, clear where the source is clear", async () => {
    // A disc on a clear background (a cut-out), decoded whole so its transparency is kept.
    const source = discOnPlainBackground(200, 120);
    for (let i = 0; i < source.data.length; i += 4) if (source.data[i + 3] === 255 && isBackground(source, i)) source.data[i + 3] = 0;
    const { response, body } = await upscale({ image: await dataUriOf(source), model: LOCAL_UPSCALER, scaleFactor: "2x" });
    expect(response.status, JSON.stringify(body)).toBe(200);
    const stored = await storedPng(body.result.imageUrl);
    expect(stored).toMatchObject({ width: 400, height: 240, colorType: 6 });
    const rows = await rowsOf(stored.key, 400, 240, 4);
    expect(rows[0]![3]).toBe(0);
    expect(rows[120]![200 * 4 + 3]).toBe(255);
  }, 60_000);

  it("8x of 1024x1024 reaches 8192x8192, written in multipart parts to R2", async () => {
    // Noise, so the file is far larger than one upload part (8 MiB) and goes up in several.
    const { response, body } = await upscale({ image: await dataUriOf(noise(1024, 1024)), model: LOCAL_UPSCALER, scaleFactor: "8x" });
    expect(response.status).toBe(200);
    expect(body.result).toMatchObject({ width: 8192, height: 8192, scaleFactor: "8x" });
    const stored = await storedPng(body.result.imageUrl);
    expect(stored).toMatchObject({ width: 8192, height: 8192, endsWithIend: true });
    expect(stored.size).toBeGreaterThan(16 * 1024 * 1024);
  }, 300_000);

  it("2x of a 4032x3024 photo gives 8064x6048", async () => {
    const { response, body } = await upscale({ image: await dataUriOf(noise(4032, 3024), "jpeg"), model: LOCAL_UPSCALER, scaleFactor: "2x" });
    expect(response.status, JSON.stringify(body)).toBe(200);
    const stored = await storedPng(body.result.imageUrl);
    expect(stored).toMatchObject({ width: 8064, height: 6048, endsWithIend: true });
  }, 300_000);

  it("refuses, free and before any work, an output over 8192x8192 and b64_json over 2048x2048", async () => {
    const image = await dataUriOf(discOnPlainBackground(1025, 1024));
    const over = await upscale({ image, scaleFactor: "8x", model: LOCAL_UPSCALER });
    const error = await expectError(over.response, 400, "invalid_request_error", "image_too_large");
    expect(error.message).toContain("8192 x 8192");
    expect(await balanceOf(over.account.id)).toBe(100);
    const inline = await upscale({ image, scaleFactor: "4x", model: LOCAL_UPSCALER, responseFormat: "b64_json" });
    const refused = await expectParamError(inline.response, "invalid_parameter", "responseFormat");
    expect(refused.message).toContain(`${Math.sqrt(UPSCALE_OUTPUT_LIMITS.inline)} x`);
    expect(await balanceOf(inline.account.id)).toBe(100);
  });

  it("b64_json up to 2048x2048 carries the hosted file's bytes", async () => {
    const { response, body } = await upscale({ image: await dataUriOf(discOnPlainBackground(512, 512)), model: LOCAL_UPSCALER, responseFormat: "b64_json" });
    expect(response.status).toBe(200);
    const stored = await storedPng(body.result.imageUrl);
    const file = new Uint8Array(await (await env.FILES.get(stored.key))!.arrayBuffer());
    expect(Buffer.from(body.result.b64_json!, "base64").equals(Buffer.from(file))).toBe(true);
    expect(stored).toMatchObject({ width: 2048, height: 2048 });
  }, 120_000);
});

describe("upscale at real sizes, Replicate (faked at HTTP, held to its published schema)", () => {
  it("4x of a 1024x1024 render through Real-ESRGAN answers 4096x4096", async () => {
    // The adapter alone, with a deadline the fake's 4096x4096 file needs (the test worker's is 2 s).
    const model = modelFor("replicate", REAL_ESRGAN, "upscale");
    const output = await replicateProvider.run({ kind: "upscale", image: await pngInput(1024, 1024), factor: 4 }, callFor(model, { timeoutMs: 60_000, env: { UPSTREAM_TIMEOUT_MS: "60000" } }));
    expect(output.kind).toBe("encoded");
    const bytes = output.kind === "encoded" ? output.bytes : new Uint8Array();
    expect(readHeader(bytes, "png")).toMatchObject({ width: 4096, height: 4096 });
    expect(recordOf(bytes)).toMatchObject({ endpoint: "predictions", model: "nightmareai/real-esrgan", scale: 4 });
  }, 120_000);

  it("the billed path stores Real-ESRGAN's file as it came, at 4x", async () => {
    const model = await insertModel({ provider: "replicate", upstreamModel: REAL_ESRGAN, task: "upscale", costPerReq: 15 });
    const { account, response, body } = await upscale({ image: await dataUriOf(discOnPlainBackground(256, 192)), model });
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ deductedCredits: 15, result: { scaleFactor: "4x", width: 1024, height: 768 } });
    const stored = await storedPng(body.result.imageUrl);
    expect(stored).toMatchObject({ width: 1024, height: 768, endsWithIend: true });
    // The upstream's own file, byte for byte: it carries the fake's record of the request.
    const file = new Uint8Array(await (await env.FILES.get(stored.key))!.arrayBuffer());
    expect(recordOf(file)).toMatchObject({ model: "nightmareai/real-esrgan", scale: 4 });
    expect((await usageRows(account.id))[0]).toMatchObject({ tool: "upscale_image", credits_deducted: 15, credits_refunded: 0 });
  }, 120_000);
});
