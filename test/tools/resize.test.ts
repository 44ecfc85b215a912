// Resize on compress and convert-format (`width`, `height`, `fit`): the answer's geometry, upright
// after the EXIF orientation, never enlarged; the fields on every surface; refusals free; a JPEG
// scaled by libjpeg's DCT while it decodes; compress's "never grows" comparing like with like.

import { describe, expect, it } from "vitest";
import { applyOrientation, decodeImage, encodeImage, planRecode, readHeader, resizeGeometry, type RasterImage } from "../../src/codecs/index.ts";
import { estimateCodecBytes, ISOLATE_CODEC_BUDGET } from "../../src/codecs/limits.ts";
import { isolateCodecGate } from "../../src/codecs/memory-gate.ts";
import { estimateResizedBytes } from "../../src/codecs/resize-cost.ts";
import { resizeRaster } from "../../src/codecs/native.ts";
import { expectError, expectParamError } from "../support/envelope";
import { call, newAccount } from "../support/fixtures";
import { prng } from "../support/prng";
import { balanceOf, base64, bytesOfBase64, bytesOfDataUri, dataUriOf, decodeAny, fetchHosted, postTool } from "../support/tool-calls";
import { mcpClient } from "../mcp/support";
import { exifApp1, image, meanDiff, pixelAt, withJpegSegments } from "../codecs/support";
import { ALPHA_HEIC, GRID_HEIC, GRID_TURNED_HEIC, PHOTO_12MP_HEIC, QUADRANTS_HEIC, TURNED_HEIC } from "../fixtures/heic.ts";

const jpegUri = (bytes: Uint8Array) => `data:image/jpeg;base64,${base64(bytes)}`;

/** Three vertical stripes, red, green and blue: where a crop was taken shows in the colours. */
const stripes = (width: number, height: number): RasterImage =>
  image(width, height, (x) => (x < width / 3 ? [255, 0, 0, 255] : x < (2 * width) / 3 ? [0, 255, 0, 255] : [0, 0, 255, 255]));

/** A photo-like scene: smooth shapes plus a little grain, so a wrong filter or a wrong turn shows. */
function scene(width: number, height: number, seed = 3): RasterImage {
  const random = prng(seed);
  return image(width, height, (x, y) => [
    128 + 100 * Math.sin((x / width) * 7) + random() * 10,
    128 + 100 * Math.cos((y / height) * 5) + random() * 10,
    (x * 255) / width,
    255,
  ]);
}

async function answered(response: Response) {
  expect(response.status).toBe(200);
  return (await response.json()) as { message: string; result: Record<string, string | number> };
}

describe("resize geometry", () => {
  it("inside keeps the aspect ratio within the box; one side given scales to that side", () => {
    expect(resizeGeometry({ width: 4032, height: 3024 }, { width: 800, height: 800 })).toMatchObject({ width: 800, height: 600 });
    expect(resizeGeometry({ width: 3024, height: 4032 }, { width: 800, height: 800, fit: "inside" })).toMatchObject({ width: 600, height: 800 });
    expect(resizeGeometry({ width: 4032, height: 3024 }, { width: 1600 })).toMatchObject({ width: 1600, height: 1200, span: { x: 0, y: 0, width: 4032, height: 3024 } });
    expect(resizeGeometry({ width: 4032, height: 3024 }, { height: 300 })).toMatchObject({ width: 400, height: 300 });
  });

  it("cover fills the box and crops the centre", () => {
    const g = resizeGeometry({ width: 6000, height: 4000 }, { width: 800, height: 800, fit: "cover" })!;
    expect(g).toMatchObject({ width: 800, height: 800 });
    expect(g.span.height).toBe(4000);
    expect(g.span.width).toBeCloseTo(4000);
    expect(g.span.x).toBeCloseTo(1000);
    // One side only: nothing to fill, as inside.
    expect(resizeGeometry({ width: 6000, height: 4000 }, { width: 600, fit: "cover" })).toMatchObject({ width: 600, height: 400 });
  });

  it("never enlarges: a box larger than the picture keeps its size (cover: the box's shape, unscaled)", () => {
    expect(resizeGeometry({ width: 200, height: 100 }, { width: 1000 })).toBeNull();
    expect(resizeGeometry({ width: 200, height: 100 }, { width: 1000, height: 1000 })).toBeNull();
    expect(resizeGeometry({ width: 200, height: 100 }, {})).toBeNull();
    const cover = resizeGeometry({ width: 200, height: 100 }, { width: 400, height: 400, fit: "cover" })!;
    expect(cover).toMatchObject({ width: 100, height: 100, span: { x: 50, y: 0, width: 100, height: 100 } });
  });
});

describe("resize through the tools", () => {
  it("compress resizes an EXIF-turned JPEG upright, the DCT-scaled route's picture matching the decoded one", async () => {
    // Stored 480x360, orientation 6: shown 360x480, so a 90-pixel-wide box gives 90x120.
    const stored = scene(480, 360);
    const jpeg = withJpegSegments(await encodeImage(stored, "jpeg", { quality: 95 }), exifApp1(6));
    const header = readHeader(jpeg, "jpeg");
    const plan = planRecode(jpeg, header, "png", {}, { width: 90 });
    expect(plan.resize?.route).toMatchObject({ name: "jpeg rows, dct-scaled", denom: 4, orientation: 6 });
    expect(plan.resize).toMatchObject({ width: 90, height: 120, read: { width: 120, height: 90 } });

    const account = await newAccount({ credits: 5 });
    const { result, message } = await answered(await postTool("/v1/compress", account.key, { image: jpegUri(jpeg), targetFormat: "png", quality: 100, width: 90 }));
    expect(message).toMatch(/Resized to 90x120/);
    const out = await decodeAny(bytesOfDataUri(result.image as string).bytes);
    expect([out.image.width, out.image.height]).toEqual([90, 120]);
    // The same picture resized from the general decode (upright already) by the same filter.
    const upright = await decodeImage(jpeg, header);
    expect([upright.width, upright.height]).toEqual([360, 480]);
    const reference = resizeRaster(upright, { x: 0, y: 0, width: 360, height: 480 }, { width: 90, height: 120 });
    expect(meanDiff(out.image, reference)).toBeLessThan(3);
    // Turned the right way: the stored picture's top-left corner is the upright one's top-right.
    const turned = resizeRaster(applyOrientation(structuredClone(stored), 6), { x: 0, y: 0, width: 360, height: 480 }, { width: 90, height: 120 });
    expect(meanDiff(out.image, turned)).toBeLessThan(4);
    expect(await balanceOf(account.id)).toBe(4);
  });

  it("convert with fit cover answers the box, cropped at the centre; width and height report it", async () => {
    const account = await newAccount({ credits: 5 });
    const png = await dataUriOf(stripes(300, 100));
    const { result, message } = await answered(await postTool("/v1/convert-format", account.key, { image: png, targetFormat: "png", width: 50, height: 50, fit: "cover" }));
    expect(result).toMatchObject({ width: 50, height: 50, targetFormat: "png" });
    expect(message).toMatch(/resized to 50x50/);
    const { image: out } = await decodeAny(await fetchHosted(result.imageUrl as string, "image/png"));
    // Only the green middle third is shown (the filter may tint the outermost columns).
    for (const [x, y] of [[25, 25], [5, 5], [44, 44]] as const) {
      const [r, g, b] = pixelAt(out, x, y);
      expect(g, `${x},${y}`).toBeGreaterThan(240);
      expect(r! + b!, `${x},${y}`).toBeLessThan(20);
    }
  });

  it("never enlarges, on every route: a PNG and a JPEG smaller than the box keep their size", async () => {
    const account = await newAccount({ credits: 10 });
    const png = await dataUriOf(stripes(200, 100));
    const kept = await answered(await postTool("/v1/convert-format", account.key, { image: png, targetFormat: "webp", width: 1000 }));
    expect(kept.result).toMatchObject({ width: 200, height: 100 });
    const shaped = await answered(await postTool("/v1/convert-format", account.key, { image: png, targetFormat: "webp", width: 400, height: 400, fit: "cover" }));
    expect(shaped.result).toMatchObject({ width: 100, height: 100 });
    const jpeg = jpegUri(await encodeImage(scene(120, 80), "jpeg"));
    const smaller = await answered(await postTool("/v1/compress", account.key, { image: jpeg, height: 40, targetFormat: "jpeg" }));
    const out = await decodeAny(bytesOfDataUri(smaller.result.image as string).bytes);
    expect([out.image.width, out.image.height]).toEqual([60, 40]);
    const same = await answered(await postTool("/v1/compress", account.key, { image: jpeg, width: 500, height: 500, targetFormat: "jpeg" }));
    const whole = await decodeAny(bytesOfDataUri(same.result.image as string).bytes);
    expect([whole.image.width, whole.image.height]).toEqual([120, 80]);
  });

  it("resizes what the general decoder reads too (GIF, an interlaced PNG's kind), alpha kept without dark fringes", async () => {
    const account = await newAccount({ credits: 5 });
    // Half transparent white, half opaque red: filtered premultiplied, red never greys.
    const half = image(64, 32, (x) => (x < 32 ? [255, 255, 255, 0] : [255, 0, 0, 255]));
    const gif = await encodeImage(half, "gif");
    const { result } = await answered(await postTool("/v1/convert-format", account.key, { image: `data:image/gif;base64,${base64(gif)}`, targetFormat: "png", width: 16 }));
    expect(result).toMatchObject({ width: 16, height: 8 });
    const { image: out } = await decodeAny(await fetchHosted(result.imageUrl as string, "image/png"));
    const [r, g, b, a] = pixelAt(out, 12, 4);
    expect([r, g, b, a]).toEqual([255, 0, 0, 255]);
    // At the edge the colour stays red while alpha falls.
    const edge = pixelAt(out, 8, 4);
    if (edge[3]! > 0) expect(edge[0]).toBeGreaterThan(200);
  });

  it("the answer's size is what the encoder must hold: a picture too wide for WebP fits once resized", async () => {
    const account = await newAccount({ credits: 5 });
    const wide = await dataUriOf(stripes(17_000, 60));
    await expectError(await postTool("/v1/convert-format", account.key, { image: wide, targetFormat: "webp" }), 400, "invalid_request_error", "image_too_large");
    expect(await balanceOf(account.id)).toBe(5);
    const { result } = await answered(await postTool("/v1/convert-format", account.key, { image: wide, targetFormat: "webp", width: 8500 }));
    expect(result).toMatchObject({ width: 8500, height: 30 });
    expect(await balanceOf(account.id)).toBe(4);
  });
});

describe("resize refusals are 400s in the envelope, free", () => {
  const bad: [Record<string, unknown>, "invalid_parameter" | "missing_parameter", string][] = [
    [{ width: 0 }, "invalid_parameter", "width"],
    [{ width: -5 }, "invalid_parameter", "width"],
    [{ height: 12.5 }, "invalid_parameter", "height"],
    [{ width: "800" }, "invalid_parameter", "width"],
    [{ width: 70_000 }, "invalid_parameter", "width"],
    [{ width: 100, fit: "fill" }, "invalid_parameter", "fit"],
    [{ fit: "cover" }, "missing_parameter", "width"],
  ];

  it.each(["/v1/compress", "/v1/convert-format", "/playground/compress", "/playground/convert-format"])("%s", async (path) => {
    const account = await newAccount({ credits: 3 });
    const image = await dataUriOf(stripes(30, 30));
    for (const [fields, code, param] of bad) {
      await expectParamError(await postTool(path, account.key, { image, targetFormat: "webp", ...fields }), code, param);
    }
    // Unknown fields are refused as before (a resize under another API's name is not applied).
    const unknown = await postTool(path, account.key, { image, targetFormat: "webp", resize: { width: 10 } });
    expect(unknown.status).toBe(400);
    expect(await balanceOf(account.id)).toBe(3);
  });
});

describe("the resize fields on every surface", () => {
  it("OpenAPI documents width, height and fit on both tools' bodies", async () => {
    const doc = (await (await call("/v1/openapi.json")).json()) as { components: { schemas: Record<string, { properties?: Record<string, { enum?: string[]; minimum?: number }> }> } };
    for (const name of ["CompressRequest", "ConvertFormatRequest", "ConvertFormatPlaygroundRequest"]) {
      const properties = doc.components.schemas[name]!.properties!;
      expect(properties.width, name).toMatchObject({ minimum: 1 });
      expect(properties.height, name).toMatchObject({ minimum: 1 });
      expect(properties.fit!.enum, name).toEqual(["inside", "cover"]);
    }
  });

  it("batch items and MCP arguments take them by the same names", async () => {
    const account = await newAccount({ credits: 10 });
    const image = await dataUriOf(stripes(90, 60));
    const response = await postTool("/v1/batch", account.key, {
      requests: [
        { tool: "compress_image", args: { image, width: 30, targetFormat: "png" } },
        { tool: "convert_format", args: { image, targetFormat: "png", width: 20, height: 20, fit: "cover" } },
        { tool: "convert_format", args: { image, targetFormat: "png", width: 0 } },
      ],
    });
    const body = (await response.json()) as { results: { status: number; data: { result?: Record<string, unknown>; error?: { code: string; param: string } } }[] };
    const compressed = await decodeAny(bytesOfDataUri(body.results[0]!.data.result!.image as string).bytes);
    expect([compressed.image.width, compressed.image.height]).toEqual([30, 20]);
    expect(body.results[1]!.data.result).toMatchObject({ width: 20, height: 20 });
    expect(body.results[2]).toMatchObject({ status: 400, data: { error: { code: "invalid_parameter", param: "width" } } });

    const client = await mcpClient(account.key);
    const { tools } = await client.listTools();
    for (const name of ["compress_image", "convert_format"]) {
      const properties = tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, { enum?: unknown[] }>;
      expect(Object.keys(properties), name).toEqual(expect.arrayContaining(["width", "height", "fit"]));
      expect(properties.fit!.enum).toEqual(["inside", "cover", null]);
    }
    const result = (await client.callTool({ name: "convert_format", arguments: { image, targetFormat: "png", height: 30 } })) as { structuredContent?: { width?: number; height?: number } };
    expect(result.structuredContent).toMatchObject({ width: 45, height: 30 });
  });
});

describe("a JPEG resized while it decodes", () => {
  /** A JPEG's header claiming `width` x `height`, baseline (the plan reads the header only). */
  async function jpegClaiming(width: number, height: number): Promise<Uint8Array> {
    const jpeg = await encodeImage(scene(16, 16), "jpeg");
    const out = jpeg.slice();
    for (let i = 2; i < out.length - 8; ) {
      const marker = out[i + 1]!;
      const length = (out[i + 2]! << 8) | out[i + 3]!;
      if (marker >= 0xc0 && marker <= 0xc2) {
        out[i + 1] = 0xc0; // our encoder writes progressive files: this one says baseline
        out[i + 5] = height >> 8;
        out[i + 6] = height & 255;
        out[i + 7] = width >> 8;
        out[i + 8] = width & 255;
        return out;
      }
      i += 2 + length;
    }
    throw new Error("no frame header");
  }

  it("a 24 MP JPEG to an 800x800 thumbnail is read at 1/4 and priced at a fraction of a full-size call", async () => {
    const jpeg = await jpegClaiming(6000, 4000);
    const header = readHeader(jpeg, "jpeg");
    const plan = planRecode(jpeg, header, "webp", { quality: 80 }, { width: 800, height: 800 });
    expect(plan.resize).toMatchObject({ width: 800, height: 533, route: { name: "jpeg rows, dct-scaled", denom: 4 }, read: { width: 1500, height: 1000 } });
    // Beside what the same file costs to WebP at full size, with a photo's upload (10 MB).
    const padded = new Uint8Array(10_000_000);
    padded.set(jpeg); // the header is what is read; the length is the upload's
    const upload = { ...header, bytes: padded };
    const resized = estimateResizedBytes(upload, "webp", plan.resize!, 80);
    const full = planRecode(jpeg, header, "webp", { quality: 80 });
    const whole = estimateCodecBytes(header.width * header.height, full.price, upload.bytes.length);
    expect(resized).toBeLessThan(whole * 0.6);
    // 12 MP to 1600 wide: half size read.
    const phone = await jpegClaiming(4032, 3024);
    expect(planRecode(phone, readHeader(phone, "jpeg"), "jpeg", {}, { width: 1600 }).resize).toMatchObject({ width: 1600, height: 1200, route: { denom: 2 } });
    // A thumbnail as AVIF of a file AVIF could not hold at full size.
    expect(planRecode(jpeg, header, "avif", {}, { width: 400 }).resize).toMatchObject({ width: 400, height: 267, route: { denom: 8 } });
  });
});

describe("a HEIC resized from its planes", () => {
  const heics = { single: QUADRANTS_HEIC, "turned by irot": TURNED_HEIC, grid: GRID_HEIC, "grid turned": GRID_TURNED_HEIC, "with alpha": ALPHA_HEIC };

  it.each(Object.entries(heics))("%s: the same picture the general decode gives, resized by the same filter", async (_, base64Heic) => {
    const heic = bytesOfBase64(base64Heic);
    const header = readHeader(heic, "heic");
    const upright = await decodeImage(heic, header);
    const size = { width: Math.ceil(upright.width / 2), height: Math.ceil(upright.height / 2) };
    const plan = planRecode(heic, header, "png", {}, { width: size.width, height: size.height });
    expect(plan.resize?.route.name).toBe("heic planes");
    const account = await newAccount({ credits: 3 });
    const { result } = await answered(await postTool("/v1/compress", account.key, { image: `data:image/heic;base64,${base64Heic}`, targetFormat: "png", quality: 100, width: size.width, height: size.height }));
    const out = await decodeAny(bytesOfDataUri(result.image as string).bytes);
    expect([out.image.width, out.image.height]).toEqual([plan.resize!.width, plan.resize!.height]);
    const reference = resizeRaster(upright, { x: 0, y: 0, width: upright.width, height: upright.height }, out.image);
    expect(meanDiff(out.image, reference)).toBeLessThan(3);
  });

  it("a 12 MP HEIC to JPEG 1600 wide, within the isolate's memory", async () => {
    const heic = bytesOfBase64(PHOTO_12MP_HEIC);
    const header = readHeader(heic, "heic");
    const plan = planRecode(heic, header, "jpeg", {}, { width: 1600 });
    expect(estimateResizedBytes({ ...header, bytes: heic }, "jpeg", plan.resize!, plan.quality)).toBeLessThan(ISOLATE_CODEC_BUDGET);
    const account = await newAccount({ credits: 3 });
    const { result } = await answered(await postTool("/v1/convert-format", account.key, { image: `data:image/heic;base64,${PHOTO_12MP_HEIC}`, targetFormat: "jpeg", width: 1600 }));
    expect(result).toMatchObject({ width: 1600, height: Math.round((header.height * 1600) / header.width), originalFormat: "heic" });
  });
});

describe("the memory gate admits a resized call at its own estimate", () => {
  it("with only the resized estimate free, the resized call runs while the full-size one waits", async () => {
    const jpeg = await encodeImage(scene(1200, 900), "jpeg");
    const header = readHeader(jpeg, "jpeg");
    const plan = planRecode(jpeg, header, "webp", { quality: 70 }, { width: 100 });
    expect(plan.resize?.route).toMatchObject({ name: "jpeg rows, dct-scaled", denom: 8 });
    const resized = estimateResizedBytes({ ...header, bytes: jpeg }, "webp", plan.resize!, plan.quality);
    const whole = planRecode(jpeg, header, "webp", { quality: 70 });
    expect(resized).toBeLessThan(estimateCodecBytes(1200 * 900, whole.price, jpeg.length));

    const account = await newAccount({ credits: 5 });
    const held = await isolateCodecGate.acquire(ISOLATE_CODEC_BUDGET - resized);
    try {
      const small = await postTool("/v1/compress", account.key, { image: jpegUri(jpeg), quality: 70, width: 100 });
      expect(small.status).toBe(200);
      await small.json();
      let answered = false;
      const full = postTool("/v1/compress", account.key, { image: jpegUri(jpeg), quality: 70 }).finally(() => (answered = true));
      for (let i = 0; i < 1000 && isolateCodecGate.state.waiting === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(isolateCodecGate.state.waiting).toBe(1);
      expect(answered).toBe(false);
      held.release();
      const answer = await full;
      expect(answer.status).toBe(200);
      await answer.json();
    } finally {
      held.release(); // idempotent
    }
    expect(await balanceOf(account.id)).toBe(3);
  });
});

describe("compress never grows, comparing like with like", () => {
  it("a resized answer larger than the input is answered, never swapped for the unresized input", async () => {
    const random = prng(14);
    const grainy = image(384, 288, (x, y) => [(x * 95) / 384 + random() * 160, (y * 95) / 288 + random() * 160, random() * 255, 255]);
    const input = await encodeImage(grainy, "webp", { quality: 35 });
    const account = await newAccount({ credits: 5 });
    const uri = `data:image/webp;base64,${base64(input)}`;
    const unresized = await answered(await postTool("/v1/compress", account.key, { image: uri, quality: 95, targetFormat: "webp" }));
    expect(unresized.result.savedPercentage).toBe("0%"); // the input came back, as before
    const { result, message } = await answered(await postTool("/v1/compress", account.key, { image: uri, quality: 95, targetFormat: "webp", width: 360 }));
    const out = bytesOfDataUri(result.image as string).bytes;
    expect(out.length).toBeGreaterThan(input.length); // the case: larger than the input
    const decoded = await decodeAny(out);
    expect([decoded.image.width, decoded.image.height]).toEqual([360, 270]);
    expect(result.savedPercentage).toMatch(/^-\d+\.\d%$/);
    expect(message).toMatch(/Resized to 360x270/);
  });
});
