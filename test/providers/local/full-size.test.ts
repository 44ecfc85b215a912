import { describe, expect, it } from "vitest";
import { decodeImage, readHeader, sniffFormat, type RasterImage } from "../../../src/codecs/index.ts";
import { encodeBaselineJpeg } from "../../../src/codecs/jpeg.ts";
import { composeOrientations, applyOrientation, type Orientation } from "../../../src/codecs/orientation.ts";
import { applyEdit, planEdit } from "../../../src/providers/local/edit.ts";
import { cutOutPhoto, editPhoto, photoEditOf } from "../../../src/providers/local/full-size.ts";
import type { ProviderOutput, TaskImage } from "../../../src/providers/types.ts";
import { exifApp1, meanDiff, quadrants, withJpegSegments } from "../../codecs/support.ts";
import { alphaAt, discOnPlainBackground } from "../../support/pictures.ts";

// The local models' full-size paths (src/providers/local/full-size.ts), followed on small
// pictures by lowering the sizes they switch at: the photo read in bands, turned, cut and
// coloured on the way, must give what the whole-raster editor gives; the cut-out's mask, found
// on a small working copy, must follow the full-size picture's edge.

/** Every path through the bands, whatever the size. */
const BANDS = { wholeUpTo: 0, working: 20_000 };

async function jpegOf(picture: RasterImage, orientation: Orientation): Promise<TaskImage> {
  let bytes = await encodeBaselineJpeg(picture, 95);
  if (orientation !== 1) bytes = withJpegSegments(bytes, exifApp1(orientation));
  return { bytes, format: "jpeg", width: picture.width, height: picture.height };
}

async function pixelsOf(output: ProviderOutput): Promise<{ format: string; image: RasterImage }> {
  if (output.kind !== "encoded") throw new Error(`expected an encoded answer, got ${output.kind}`);
  const format = sniffFormat(output.bytes);
  if (format === null || format === "svg") throw new Error("not an image");
  return { format, image: await decodeImage(output.bytes, readHeader(output.bytes, format)) };
}

describe("composeOrientations", () => {
  it("is what applying one orientation and then the other does", () => {
    const picture = quadrants(3, 2);
    for (const first of [1, 2, 3, 4, 5, 6, 7, 8] as Orientation[]) {
      for (const then of [1, 2, 3, 4, 5, 6, 7, 8] as Orientation[]) {
        const both = applyOrientation(applyOrientation({ ...picture, data: picture.data.slice() }, first), then);
        const once = applyOrientation({ ...picture, data: picture.data.slice() }, composeOrientations(first, then));
        expect([once.width, once.height, Array.from(once.data)], `${first} then ${then}`).toEqual([both.width, both.height, Array.from(both.data)]);
      }
    }
  });
});

describe("edit at full size, from the rows", () => {
  const plans = ["rotate 90 right", "rotate 90 left and mirror", "flip and crop to 16:9", "rotate 180, crop to 1:1 and sepia", "mirror, rotate 90 right, crop to 4:3, grayscale and brighten 20%"];

  it("gives the whole-raster editor's picture for turns, flips, crops and colour edits, whatever the EXIF orientation", async () => {
    const picture = quadrants(96, 64);
    for (const orientation of [1, 6, 3, 5, 8] as Orientation[]) {
      const image = await jpegOf(picture, orientation);
      const upright = await decodeImage(image.bytes, image);
      for (const instruction of plans) {
        const plan = planEdit(instruction);
        expect(photoEditOf(plan, image.width, image.height, orientation), instruction).not.toBeNull();
        const expected = applyEdit(upright, plan);
        const { format, image: got } = await pixelsOf(await editPhoto(image, plan, BANDS));
        const what = `${instruction}, EXIF ${orientation}`;
        expect(format, what).toBe("jpeg");
        expect([got.width, got.height], what).toEqual([expected.width, expected.height]);
        // Two JPEG decoders and a re-encode apart; a wrong turn or crop moves whole quadrants (a difference near 100).
        expect(meanDiff(got, expected), what).toBeLessThan(4);
      }
    }
  });

  it("leaves blur, sharpen and upscale to the working copy (answered at its size)", async () => {
    const image = await jpegOf(quadrants(300, 200), 1);
    const output = await editPhoto(image, planEdit("blur"), BANDS);
    expect(output.kind).toBe("raster");
    if (output.kind === "raster") expect(output.image.width * output.image.height).toBeLessThanOrEqual(BANDS.working);
    expect(photoEditOf(planEdit("grayscale and blur"), 300, 200, 1)).toBeNull();
  });
});

describe("remove-background at full size", () => {
  it("scales the working copy's mask up along the full-size edge: a portrait photo's disc, sharp at 600x400 from a 173x115 copy", async () => {
    // Stored 600x400 with EXIF 6: upright 400x600, the disc (radius 120) in the middle.
    const image = await jpegOf(discOnPlainBackground(600, 400), 6);
    const { format, image: cut } = await pixelsOf(await cutOutPhoto(image, BANDS));
    expect(format).toBe("webp");
    expect([cut.width, cut.height]).toEqual([400, 600]);
    expect(alphaAt(cut, 3, 3)).toBe(0);
    expect(alphaAt(cut, 396, 596)).toBe(0);
    expect(alphaAt(cut, 200, 300)).toBe(255);
    const centre = (300 * 400 + 200) * 4;
    const [r, g, b] = cut.data.subarray(centre, centre + 3);
    expect([Math.abs(r! - 170), Math.abs(g! - 20), Math.abs(b! - 30)].every((d) => d < 12), `${r},${g},${b}`).toBe(true);
    // Along the middle row the edge is where the disc's is, and about as sharp as the picture's own
    // (a bilinear mask from a copy 3.5 times smaller would spread over 7 pixels).
    const row = Array.from({ length: 400 }, (_, x) => alphaAt(cut, x, 300));
    const soft = row.filter((a) => a > 0 && a < 255).length;
    expect(soft).toBeLessThanOrEqual(6);
    const right = row.findIndex((a, x) => x > 200 && a < 128);
    expect(Math.abs(right - 320)).toBeLessThanOrEqual(2);
    const left = row.findIndex((a) => a >= 128);
    expect(Math.abs(left - 80)).toBeLessThanOrEqual(2);
  });
});
