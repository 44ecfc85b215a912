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

  it("BMP on the playground: a 12 MP portrait photo converts to a data URI (its answer written out in slices), upright; 24 MP (a 69 MB file) is refused, free", async () => {
    const account = await newAccount({ credits: 5 });
    const twelve = await postTool("/playground/convert-format", account.key, { image: await photo(4032, 3024, 6), targetFormat: "bmp" });
    expect(twelve.status, twelve.status === 200 ? "" : await twelve.clone().text()).toBe(200);
    const { mime, bytes } = bytesOfDataUri(((await twelve.json()) as { result: { imageUrl: string } }).result.imageUrl);
    expect(mime).toBe("image/bmp");
    expect(readHeader(bytes, "bmp")).toMatchObject({ width: 3024, height: 4032 });
    const camera = await postTool("/playground/convert-format", account.key, { image: await photo(6000, 4000), targetFormat: "bmp" });
    expect(camera.status).toBe(400);
    expect(((await camera.json()) as { error: { code: string } }).error.code).toBe("image_too_large");
    expect(await balanceOf(account.id)).toBe(4);
  }, 120_000);
});
