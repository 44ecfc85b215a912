import { describe, expect, it } from "vitest";
import { decodeImage, readHeader, sniffFormat, type RasterImage } from "../../src/codecs/index.ts";
import { encodeBaselineJpeg } from "../../src/codecs/jpeg.ts";
import { exifApp1, withJpegSegments } from "../codecs/support.ts";
import { PHOTO_12MP_HEIC } from "../fixtures/heic.ts";
import { newAccount } from "../support/fixtures";
import { alphaAt, discOnPlainBackground } from "../support/pictures.ts";
import { balanceOf, base64, fetchHosted, postTool } from "../support/tool-calls";
import { recordOf } from "../upstream/adapter-kit";

// The model tools take what compress and convert take (a 12 MP phone JPEG shot in portrait, a
// 24 MP camera JPEG, a 12 MP HEIC) and answer at the photo's upright size where the tool's
// meaning calls for it: the local cut-out and the local edit read the photo in bands and write
// their answer as they go (src/providers/local/full-size.ts); a provider is sent a copy within
// what it documents (FLUX.2 on Workers AI: at most 512x512, upright). The pictures are made here.

interface ImageResult {
  imageUrl: string;
  model: string;
}

/** A baseline JPEG of `picture`, with an EXIF orientation when given. */
async function jpegUri(picture: RasterImage, orientation?: number): Promise<string> {
  let jpeg = await encodeBaselineJpeg(picture, 85);
  if (orientation) jpeg = withJpegSegments(jpeg, exifApp1(orientation));
  return `data:image/jpeg;base64,${base64(jpeg)}`;
}

/** A 12 MP phone photo shot in portrait: stored 4032x3024 with EXIF orientation 6, a disc on a plain backdrop. */
const portraitPhoto = () => jpegUri(discOnPlainBackground(4032, 3024), 6);

async function hosted(result: ImageResult, mime: string): Promise<{ bytes: Uint8Array; image: RasterImage }> {
  const bytes = await fetchHosted(result.imageUrl, mime);
  const format = sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error("the answer is not a raster image");
  return { bytes, image: await decodeImage(bytes, readHeader(bytes, format)) };
}

async function resultOf(response: Response): Promise<ImageResult> {
  expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
  return ((await response.json()) as { result: ImageResult }).result;
}

describe("model tools on real photos", () => {
  it("remove-background (local) cuts a 12 MP portrait phone JPEG out at its upright size, 3024x4032, with alpha", async () => {
    const account = await newAccount({ credits: 20 });
    const result = await resultOf(await postTool("/v1/remove-background", account.key, { image: await portraitPhoto(), model: "local-cutout-v1" }));
    const { bytes, image } = await hosted(result, "image/webp");
    expect(sniffFormat(bytes)).toBe("webp");
    expect([image.width, image.height]).toEqual([3024, 4032]);
    // The backdrop is gone, the disc (in the middle, upright or not) stays, and its edge is soft but close to the disc's.
    expect(alphaAt(image, 10, 10)).toBe(0);
    expect(alphaAt(image, 3013, 4021)).toBe(0);
    expect(alphaAt(image, 1512, 2016)).toBe(255);
    const radius = 3024 * 0.3;
    expect(alphaAt(image, Math.round(1512 + radius - 12), 2016)).toBe(255);
    expect(alphaAt(image, Math.round(1512 + radius + 12), 2016)).toBe(0);
    expect(await balanceOf(account.id)).toBe(12);
  }, 180_000);

  it("edit (local) works on the whole 12 MP photo: grayscale upright at 3024x4032; a turn and a crop follow the upright picture", async () => {
    const account = await newAccount({ credits: 20 });
    const image = await portraitPhoto();
    const grey = await hosted(await resultOf(await postTool("/v1/edit", account.key, { image, prompt: "black and white", model: "local-draw-v1" })), "image/jpeg");
    expect(sniffFormat(grey.bytes)).toBe("jpeg");
    expect([grey.image.width, grey.image.height]).toEqual([3024, 4032]);
    const at = (x: number, y: number) => Array.from(grey.image.data.subarray((y * 3024 + x) * 4, (y * 3024 + x) * 4 + 3));
    const [r, g, b] = at(1512, 2016);
    expect(Math.max(r!, g!, b!) - Math.min(r!, g!, b!)).toBeLessThan(6); // the red disc, now grey
    expect(r!).toBeLessThan(120);

    const turned = await hosted(await resultOf(await postTool("/v1/edit", account.key, { image, prompt: "rotate 90 right and crop to 1:1", model: "local-draw-v1" })), "image/jpeg");
    // Upright 3024x4032, turned 4032x3024, the centred square 3024x3024 with the disc in its middle.
    expect([turned.image.width, turned.image.height]).toEqual([3024, 3024]);
    const centre = (1512 * 3024 + 1512) * 4;
    expect(turned.image.data[centre]!).toBeGreaterThan(140); // red
    expect(turned.image.data[2]!).toBeGreaterThan(200); // the backdrop's blue at a corner
    expect(await balanceOf(account.id)).toBe(16); // local-draw-v1 costs 2 an edit
  }, 240_000);

  it("edit on a provider (FLUX.2 [dev], faked at HTTP) is sent the portrait photo upright, within its documented 512x512", async () => {
    const account = await newAccount({ credits: 100 });
    const result = await resultOf(await postTool("/v1/edit", account.key, { image: await portraitPhoto(), prompt: "turn the disc into a sunflower", model: "flux-2-dev", aspectRatio: "3:4" }));
    const record = recordOf(await fetchHosted(result.imageUrl, "image/png"));
    expect(record).toMatchObject({ imageCount: 1, inputSizes: ["384x512"] });
  }, 180_000);

  it("generate takes a 12 MP HEIC as a reference image: the local renderer reads a working copy, FLUX.2 is sent 512x384", async () => {
    const account = await newAccount({ credits: 100 });
    const heic = `data:image/heic;base64,${PHOTO_12MP_HEIC}`;
    const local = await resultOf(await postTool("/v1/generate", account.key, { prompt: "a lighthouse in these colours", referenceImages: [heic], model: "local-draw-v1" }));
    expect((await hosted(local, "image/png")).image.width).toBeGreaterThan(0);
    const flux = await resultOf(await postTool("/v1/generate", account.key, { prompt: "a lighthouse like this", image: heic, model: "flux-2-klein-4b", aspectRatio: "4:3" }));
    expect(recordOf(await fetchHosted(flux.imageUrl, "image/png"))).toMatchObject({ imageCount: 1, inputSizes: ["512x384"] });
  }, 180_000);

  it("a 6000x4000 camera JPEG is taken (edited at full size); a 24.1 MP one is refused before any charge", async () => {
    const account = await newAccount({ credits: 20 });
    const camera = await jpegUri(discOnPlainBackground(6000, 4000));
    const edited = await hosted(await resultOf(await postTool("/v1/edit", account.key, { image: camera, prompt: "mirror", model: "local-draw-v1" })), "image/jpeg");
    expect([edited.image.width, edited.image.height]).toEqual([6000, 4000]);
    expect(await balanceOf(account.id)).toBe(18);

    // 6010x4010 in its header (24,100,100 pixels): refused from the header, nothing decoded, nothing charged.
    const small = await encodeBaselineJpeg(discOnPlainBackground(16, 16), 85);
    const sof = small.findIndex((byte, i) => byte === 0xff && small[i + 1] === 0xc0);
    const huge = small.slice();
    huge.set([6010 >> 8, 6010 & 0xff], sof + 7);
    huge.set([4010 >> 8, 4010 & 0xff], sof + 5);
    for (const [path, body] of [
      ["/v1/remove-background", { image: `data:image/jpeg;base64,${base64(huge)}` }],
      ["/v1/edit", { image: `data:image/jpeg;base64,${base64(huge)}`, prompt: "mirror", model: "local-draw-v1" }],
      ["/v1/generate", { prompt: "x", referenceImages: [`data:image/jpeg;base64,${base64(huge)}`] }],
    ] as const) {
      const response = await postTool(path, account.key, body);
      expect(response.status, path).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; param: string; message: string } };
      expect(error, path).toMatchObject({ code: "image_too_large", param: path === "/v1/generate" ? "referenceImages.0" : "image" });
      expect(error.message).toContain("24000000");
    }
    expect(await balanceOf(account.id)).toBe(18);
  }, 240_000);
});
