import { describe, expect, it } from "vitest";
import { encodeImage, readHeader, sniffFormat, type RasterImage } from "../../src/codecs/index.ts";
import { encodeBaselineJpeg, readJpegFrame } from "../../src/codecs/jpeg.ts";
import { exifApp1, gradient, withJpegSegments } from "../codecs/support.ts";
import { PHOTO_12MP_HEIC } from "../fixtures/heic.ts";
import { newAccount } from "../support/fixtures";
import { balanceOf, base64, bytesOfDataUri, fetchHosted, postTool } from "../support/tool-calls";

// Photos at the sizes people send: a 12 MP phone JPEG shot in portrait (EXIF orientation 6), a
// 12 MP HEIC (what iPhones save), a 24 MP camera JPEG and a 12 MP WebP, through compress and
// convert end to end, within one isolate's memory (the JPEG, HEIC and WebP paths of our own WASM
// build). The pictures are smooth gradients, made here.

/** A baseline JPEG, as cameras and phones write them. */
async function photo(width: number, height: number, orientation?: number): Promise<string> {
  const raster: RasterImage = gradient(width, height);
  let jpeg = await encodeBaselineJpeg(raster, 85);
  if (orientation) jpeg = withJpegSegments(jpeg, exifApp1(orientation));
  return `data:image/jpeg;base64,${base64(jpeg)}`;
}

describe("real photo sizes", () => {
  it("compresses a 12 MP portrait phone JPEG to WebP, upright: 3024x4032, one credit", async () => {
    const account = await newAccount({ credits: 5 });
    const response = await postTool("/v1/compress", account.key, { image: await photo(4032, 3024, 6), targetFormat: "webp", quality: 70 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { image: string; format: string } };
    const { bytes } = bytesOfDataUri(body.result.image);
    expect(sniffFormat(bytes)).toBe("webp");
    const header = readHeader(bytes, "webp");
    expect([header.width, header.height]).toEqual([3024, 4032]);
    expect(await balanceOf(account.id)).toBe(4);
  }, 120_000);

  it("converts a 12 MP portrait phone JPEG to lossless PNG and compresses it to a palette PNG, upright", async () => {
    const account = await newAccount({ credits: 5 });
    const image = await photo(4032, 3024, 6);
    const converted = await postTool("/v1/convert-format", account.key, { image, targetFormat: "png" });
    expect(converted.status, converted.status === 200 ? "" : await converted.clone().text()).toBe(200);
    const hosted = (await converted.json()) as { result: { imageUrl: string; width: number; height: number; mimeType: string } };
    expect([hosted.result.width, hosted.result.height]).toEqual([3024, 4032]);
    const png = await fetchHosted(hosted.result.imageUrl, hosted.result.mimeType);
    expect(sniffFormat(png)).toBe("png");
    expect([readHeader(png, "png").width, readHeader(png, "png").height]).toEqual([3024, 4032]);

    const compressed = await postTool("/v1/compress", account.key, { image, targetFormat: "png", quality: 70 });
    expect(compressed.status).toBe(200);
    const body = (await compressed.json()) as { result: { image: string } };
    const { bytes } = bytesOfDataUri(body.result.image);
    expect([readHeader(bytes, "png").width, readHeader(bytes, "png").height]).toEqual([3024, 4032]);
    expect(bytes.length).toBeLessThan(png.length);
    expect(await balanceOf(account.id)).toBe(3);
  }, 180_000);

  it("admits four 12 MP compress calls sent at once: the memory gate queues what does not fit, all succeed", async () => {
    const account = await newAccount({ credits: 10 });
    const image = await photo(4032, 3024);
    const answers = await Promise.all(Array.from({ length: 4 }, () => postTool("/v1/compress", account.key, { image, targetFormat: "webp" })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    // Each answer is read to its end: an inline file holds its place at the memory gate until
    // it is written, and later calls in this isolate would wait behind unread ones.
    for (const answer of answers) {
      const { bytes } = bytesOfDataUri(((await answer.json()) as { result: { image: string } }).result.image);
      expect(readHeader(bytes, "webp")).toMatchObject({ width: 4032, height: 3024 });
    }
    expect(await balanceOf(account.id)).toBe(6);
  }, 180_000);

  it("compresses a 12 MP HEIC to WebP and converts it to JPEG: originalFormat heic, 4032x3024", async () => {
    const account = await newAccount({ credits: 5 });
    const image = `data:image/heic;base64,${PHOTO_12MP_HEIC}`;
    const compressed = await postTool("/v1/compress", account.key, { image, targetFormat: "webp", quality: 70 });
    expect(compressed.status, await compressed.clone().text()).toBe(200);
    const { bytes } = bytesOfDataUri(((await compressed.json()) as { result: { image: string } }).result.image);
    expect(readHeader(bytes, "webp")).toMatchObject({ width: 4032, height: 3024 });
    const converted = await postTool("/v1/convert-format", account.key, { image, targetFormat: "jpeg" });
    expect(converted.status, await converted.clone().text()).toBe(200);
    const body = (await converted.json()) as { result: { originalFormat: string; imageUrl: string; width: number; height: number; mimeType: string } };
    expect(body.result).toMatchObject({ originalFormat: "heic", width: 4032, height: 3024 });
    expect(sniffFormat(await fetchHosted(body.result.imageUrl, body.result.mimeType))).toBe("jpeg");
    expect(await balanceOf(account.id)).toBe(3);
  }, 120_000);

  it("converts a 12 MP portrait phone JPEG to TIFF (a baseline JPEG strip from our own build), upright", async () => {
    const account = await newAccount({ credits: 5 });
    const response = await postTool("/v1/convert-format", account.key, { image: await photo(4032, 3024, 6), targetFormat: "tiff" });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as { result: { imageUrl: string; width: number; height: number; mimeType: string } };
    expect([body.result.width, body.result.height]).toEqual([3024, 4032]);
    const hosted = await fetchHosted(body.result.imageUrl, body.result.mimeType);
    expect(readHeader(hosted, "tiff")).toMatchObject({ width: 3024, height: 4032 });
    expect(await balanceOf(account.id)).toBe(4);
  }, 120_000);

  it("converts a 24 MP (6000x4000) camera JPEG to WebP and to JPEG", async () => {
    const account = await newAccount({ credits: 5 });
    const image = await photo(6000, 4000);
    for (const targetFormat of ["webp", "jpeg"] as const) {
      const response = await postTool("/v1/convert-format", account.key, { image, targetFormat });
      expect(response.status, `${targetFormat}: ${response.status === 200 ? "" : await response.clone().text()}`).toBe(200);
      const body = (await response.json()) as { result: { imageUrl: string; width: number; height: number; mimeType: string } };
      expect([body.result.width, body.result.height]).toEqual([6000, 4000]);
      const hosted = await fetchHosted(body.result.imageUrl, body.result.mimeType);
      expect(sniffFormat(hosted)).toBe(targetFormat);
    }
    expect(await balanceOf(account.id)).toBe(3);
  }, 180_000);

  it("compresses a 12 MP WebP to WebP and converts it to JPEG (libwebp's decoder into the encoders): 4032x3024", async () => {
    const account = await newAccount({ credits: 5 });
    const webp = await encodeImage(gradient(4032, 3024), "webp", { quality: 80 });
    const image = `data:image/webp;base64,${base64(webp)}`;
    const compressed = await postTool("/v1/compress", account.key, { image, targetFormat: "webp", quality: 70 });
    expect(compressed.status, compressed.status === 200 ? "" : await compressed.clone().text()).toBe(200);
    const { bytes } = bytesOfDataUri(((await compressed.json()) as { result: { image: string } }).result.image);
    expect(sniffFormat(bytes)).toBe("webp");
    expect(readHeader(bytes, "webp")).toMatchObject({ width: 4032, height: 3024 });

    const converted = await postTool("/v1/convert-format", account.key, { image, targetFormat: "jpeg" });
    expect(converted.status, converted.status === 200 ? "" : await converted.clone().text()).toBe(200);
    const body = (await converted.json()) as { result: { imageUrl: string; width: number; height: number; mimeType: string } };
    expect([body.result.width, body.result.height]).toEqual([4032, 3024]);
    expect(readHeader(await fetchHosted(body.result.imageUrl, body.result.mimeType), "jpeg")).toMatchObject({ width: 4032, height: 3024 });
    expect(await balanceOf(account.id)).toBe(3);
  }, 180_000);

  it("converts a 12 MP WebP and a 12 MP HEIC to lossless PNG and compresses both to palette PNGs (the PNG writer reads them row by row)", async () => {
    const account = await newAccount({ credits: 10 });
    const webp = await encodeImage(gradient(4032, 3024), "webp", { quality: 80 });
    for (const image of [`data:image/webp;base64,${base64(webp)}`, `data:image/heic;base64,${PHOTO_12MP_HEIC}`]) {
      const converted = await postTool("/v1/convert-format", account.key, { image, targetFormat: "png" });
      expect(converted.status, converted.status === 200 ? "" : await converted.clone().text()).toBe(200);
      const hosted = (await converted.json()) as { result: { imageUrl: string; width: number; height: number; mimeType: string } };
      expect([hosted.result.width, hosted.result.height]).toEqual([4032, 3024]);
      const png = await fetchHosted(hosted.result.imageUrl, hosted.result.mimeType);
      expect(readHeader(png, "png")).toMatchObject({ width: 4032, height: 3024 });

      const compressed = await postTool("/v1/compress", account.key, { image, targetFormat: "png", quality: 70 });
      expect(compressed.status, compressed.status === 200 ? "" : await compressed.clone().text()).toBe(200);
      const { bytes } = bytesOfDataUri(((await compressed.json()) as { result: { image: string } }).result.image);
      expect(readHeader(bytes, "png")).toMatchObject({ width: 4032, height: 3024 });
    }
    // A WebP cut off halfway is refused before any charge.
    const cut = `data:image/webp;base64,${base64(webp.subarray(0, webp.length >> 1))}`;
    const refused = await postTool("/v1/convert-format", account.key, { image: cut, targetFormat: "png" });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_image");
    expect(await balanceOf(account.id)).toBe(6);
  }, 240_000);

  it("compresses a 24 MP progressive JPEG to JPEG: both whole-image coefficient arrays (decoder, encoder) kept packed, 6000x4000, one credit", async () => {
    const account = await newAccount({ credits: 5 });
    const progressive = await encodeImage(gradient(6000, 4000), "jpeg", { quality: 85 });
    expect(readJpegFrame(progressive).progressive).toBe(true);
    const response = await postTool("/v1/compress", account.key, { image: `data:image/jpeg;base64,${base64(progressive)}`, targetFormat: "jpeg", quality: 70 });
    expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
    const { bytes } = bytesOfDataUri(((await response.json()) as { result: { image: string } }).result.image);
    expect(readJpegFrame(bytes)).toMatchObject({ width: 6000, height: 4000, progressive: true });
    expect(await balanceOf(account.id)).toBe(4);
  }, 120_000);

  it("converts a smooth 24 MP JPEG to PNG: the PNG path's cost follows the upload's density (this one's file is small)", async () => {
    const account = await newAccount({ credits: 5 });
    const response = await postTool("/v1/convert-format", account.key, { image: await photo(6000, 4000), targetFormat: "png" });
    expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
    const body = (await response.json()) as { result: { width: number; height: number; mimeType: string } };
    expect([body.result.width, body.result.height, body.result.mimeType]).toEqual([6000, 4000, "image/png"]);
    expect(await balanceOf(account.id)).toBe(4);
  }, 120_000);

  it("converts a 12 MP portrait phone JPEG to GIF (our own build's row writer, no raster), upright, hosted and as base64", async () => {
    const account = await newAccount({ credits: 5 });
    const response = await postTool("/v1/convert-format", account.key, { image: await photo(4032, 3024, 6), targetFormat: "gif", responseFormat: "b64_json" });
    expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
    const body = (await response.json()) as { result: { imageUrl: string; b64_json: string; width: number; height: number; mimeType: string } };
    expect([body.result.width, body.result.height, body.result.mimeType]).toEqual([3024, 4032, "image/gif"]);
    const gif = await fetchHosted(body.result.imageUrl, body.result.mimeType);
    expect(readHeader(gif, "gif")).toMatchObject({ width: 3024, height: 4032 });
    expect(base64(gif)).toBe(body.result.b64_json);
    expect(await balanceOf(account.id)).toBe(4);
  }, 120_000);

  it("converts a 24 MP (6000x4000) camera JPEG to GIF", async () => {
    const account = await newAccount({ credits: 5 });
    const response = await postTool("/v1/convert-format", account.key, { image: await photo(6000, 4000), targetFormat: "gif" });
    expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
    const body = (await response.json()) as { result: { imageUrl: string; width: number; height: number; mimeType: string } };
    expect(readHeader(await fetchHosted(body.result.imageUrl, body.result.mimeType), "gif")).toMatchObject({ width: 6000, height: 4000 });
    expect(await balanceOf(account.id)).toBe(4);
  }, 180_000);

  it("BMP on the playground: a 12 MP portrait photo and a 24 MP camera photo (a 69 MB file, made as it is read) convert to data URIs, upright", async () => {
    const account = await newAccount({ credits: 5 });
    const twelve = await postTool("/playground/convert-format", account.key, { image: await photo(4032, 3024, 6), targetFormat: "bmp" });
    expect(twelve.status, twelve.status === 200 ? "" : await twelve.clone().text()).toBe(200);
    const { mime, bytes } = bytesOfDataUri(((await twelve.json()) as { result: { imageUrl: string } }).result.imageUrl);
    expect(mime).toBe("image/bmp");
    expect(readHeader(bytes, "bmp")).toMatchObject({ width: 3024, height: 4032 });
    // The 24 MP answer is 96 MB of JSON: read as a stream, its data URI decoded a slice at a
    // time, the rows checked as they come (bottom-up: the gradient's last row first).
    const camera = await postTool("/playground/convert-format", account.key, { image: await photo(6000, 4000), targetFormat: "bmp" });
    expect(camera.status, camera.status === 200 ? "" : await camera.clone().text()).toBe(200);
    const bmp = await bmpOfAnswer(camera, 6000, 4000);
    expect(bmp.rows).toBe(4000);
    expect(bmp.header).toMatchObject({ width: 6000, height: 4000 });
    expect(Number(camera.headers.get("Content-Length"))).toBe(bmp.answerBytes);
    expect(await balanceOf(account.id)).toBe(3);
  }, 180_000);
});

/** Row `y` of gradient(width, height) (test/codecs/support.ts) as a BMP stores it: B, G, R. */
function expectGradientRow(row: Uint8Array, y: number, width: number, height: number): void {
  for (const x of [0, width >> 1, width - 1]) {
    const r = Math.round((x / (width - 1)) * 255);
    const g = Math.round((y / (height - 1)) * 255);
    const b = Math.round(((x + y) / (width + height - 2)) * 200) + 40;
    // The JPEG is lossy: within a few steps of the gradient it was made from.
    expect(Math.abs(row[3 * x + 2]! - r) + Math.abs(row[3 * x + 1]! - g) + Math.abs(row[3 * x]! - b), `row ${y}, column ${x}`).toBeLessThan(24);
  }
}

/**
 * A playground answer carrying a BMP data URI, read as a stream: the JSON's prefix up to the
 * data URI, then its base64 decoded slice by slice, each of some rows checked, never the whole
 * file or its text at once.
 */
async function bmpOfAnswer(answer: Response, width: number, height: number): Promise<{ header: ReturnType<typeof readHeader>; rows: number; answerBytes: number }> {
  const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
  const stride = Math.ceil((width * 3) / 4) * 4;
  const marker = '"imageUrl":"data:image/bmp;base64,';
  let text = "";
  let answerBytes = 0;
  let inData = false;
  let file = new Uint8Array(0);
  let header: ReturnType<typeof readHeader> | undefined;
  let rows = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    answerBytes += new TextEncoder().encode(chunk.value).byteLength;
    text += chunk.value;
    if (!inData) {
      const at = text.indexOf(marker);
      if (at < 0) continue;
      text = text.slice(at + marker.length);
      inData = true;
    }
    const end = text.indexOf('"');
    const usable = end >= 0 ? text.slice(0, end) : text.slice(0, text.length - (text.length % 4));
    text = end >= 0 ? "" : text.slice(usable.length);
    const decoded = Uint8Array.from(atob(usable), (c) => c.charCodeAt(0));
    const joined = new Uint8Array(file.length + decoded.length);
    joined.set(file);
    joined.set(decoded, file.length);
    file = joined;
    if (!header && file.length >= 54) {
      header = readHeader(file.slice(0, 54), "bmp");
      file = file.slice(54);
    }
    if (header) {
      const whole = Math.floor(file.length / stride);
      for (let k = 0; k < whole; k++, rows++) {
        if (rows % 997 === 0 || rows === height - 1) expectGradientRow(file.subarray(k * stride, (k + 1) * stride), height - 1 - rows, width, height);
      }
      file = file.slice(whole * stride);
    }
    if (end >= 0) inData = false;
  }
  expect(file.length, "nothing after the last row").toBe(0);
  return { header: header!, rows, answerBytes };
}
