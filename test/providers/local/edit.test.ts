// The local instruction editor: instructions parsed into operations (natural phrasing,
// amounts, several edits in one instruction), each operation checked on pixels, size limits
// checked before any work, and every instruction it cannot follow refused with the list of
// what it supports, never answered with the input unchanged.

import { describe, expect, it } from "vitest";
import type { RasterImage } from "../../../src/codecs/index.ts";
import { PixelgateError } from "../../../src/errors.ts";
import { applyEdit, checkEditFits, planEdit, SUPPORTED_EDITS, type EditOperation } from "../../../src/providers/local/edit.ts";
import { image, pixelAt } from "../../codecs/support.ts";
import { prng } from "../../support/prng.ts";
import { thrown } from "../../support/thrown.ts";


const edit = (img: RasterImage, instruction: string) => applyEdit(img, planEdit(instruction));

/** Every pixel different: (x, y) is coded in red and green. */
const W = 8, H = 6;
const coded = image(W, H, (x, y) => [x * 30, y * 40, 100 + x + y, 255]);
const noise = (seed: number, w = 32, h = 32) => {
  const random = prng(seed);
  return image(w, h, () => [random() * 255, random() * 255, random() * 255, 255]);
};

function channelStats(img: RasterImage): { mean: number; variance: number } {
  let sum = 0, squares = 0, n = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      sum += img.data[i + c]!;
      squares += img.data[i + c]! ** 2;
      n++;
    }
  }
  const mean = sum / n;
  return { mean, variance: squares / n - mean * mean };
}

describe("planEdit understands natural phrasing", () => {
  const cases: [string, EditOperation[]][] = [
    ["make it black and white", [{ kind: "grayscale" }]],
    ["Monochrome please", [{ kind: "grayscale" }]],
    ["sepia tone", [{ kind: "sepia" }]],
    ["make it a negative", [{ kind: "invert" }]],
    ["light blur", [{ kind: "blur", radius: 1.5 }]],
    ["blur 5px", [{ kind: "blur", radius: 5 }]],
    ["apply a strong blur", [{ kind: "blur", radius: 8 }]],
    ["sharpen", [{ kind: "sharpen", amount: 0.6 }]],
    ["make it brighter", [{ kind: "brightness", percent: 20 }]],
    ["brighten by 30%", [{ kind: "brightness", percent: 30 }]],
    ["a bit lighter", [{ kind: "brightness", percent: 10 }]],
    ["darken 15%", [{ kind: "brightness", percent: -15 }]],
    ["reduce the brightness", [{ kind: "brightness", percent: -20 }]],
    ["increase contrast", [{ kind: "contrast", percent: 25 }]],
    ["less contrast", [{ kind: "contrast", percent: -25 }]],
    ["rotate 90 degrees clockwise", [{ kind: "rotate", degrees: 90 }]],
    ["rotate left", [{ kind: "rotate", degrees: 270 }]],
    ["rotate 90° counter-clockwise", [{ kind: "rotate", degrees: 270 }]],
    ["turn it upside down", [{ kind: "rotate", degrees: 180 }]],
    ["flip", [{ kind: "flip" }]],
    ["flip it vertically", [{ kind: "flip" }]],
    ["flip horizontally", [{ kind: "mirror" }]],
    ["mirror the image", [{ kind: "mirror" }]],
    ["crop to 16:9", [{ kind: "crop", ratio: { width: 16, height: 9, label: "16:9" } }]],
    ["crop square", [{ kind: "crop", ratio: { width: 1, height: 1, label: "1:1" } }]],
    ["crop to portrait 3:4", [{ kind: "crop", ratio: { width: 3, height: 4, label: "3:4" } }]],
    ["crop to portrait 4:3", [{ kind: "crop", ratio: { width: 3, height: 4, label: "3:4" } }]],
    ["remove the background", [{ kind: "remove_background" }]],
    ["make the background transparent", [{ kind: "remove_background" }]],
    ["upscale", [{ kind: "upscale", factor: 2 }]],
    ["enlarge 2x", [{ kind: "upscale", factor: 2 }]],
    ["upscale by 4", [{ kind: "upscale", factor: 4 }]],
    [
      "Black & white, then rotate 90° left and crop to 16:9",
      [{ kind: "grayscale" }, { kind: "rotate", degrees: 270 }, { kind: "crop", ratio: { width: 16, height: 9, label: "16:9" } }],
    ],
    ["please make this photo a little brighter, thanks", [{ kind: "brightness", percent: 10 }]],
  ];
  for (const [instruction, operations] of cases) {
    it(`"${instruction}"`, () => {
      expect(planEdit(instruction).operations).toEqual(operations);
    });
  }

  it("summarises the plan in order", () => {
    expect(planEdit("grayscale and rotate right").summary).toBe("grayscale, then rotate 90° clockwise");
  });
});

describe("planEdit refuses what it cannot do", () => {
  const refused = [
    "make it look like a Van Gogh",
    "add a cat",
    "make the sky brighter", // a region the local editor cannot find
    "grayscale and add a hat", // one unknown part refuses the whole instruction
    "rotate 45 degrees",
    "upscale 3x",
    "crop",
    "grayscale 50%",
    "",
  ];
  for (const instruction of refused) {
    it(`"${instruction}" -> 400 invalid_parameter listing what is supported`, () => {
      const error = thrown(() => planEdit(instruction));
      expect(error.code).toBe("invalid_parameter");
      expect(error.param).toBe("prompt");
      expect(error.message).toContain(SUPPORTED_EDITS.join("; "));
    });
  }

  it("names the parameter it was given", () => {
    expect(thrown(() => planEdit("add a cat", "instruction")).param).toBe("instruction");
  });
});

describe("applyEdit on pixels", () => {
  it("grayscale: R = G = B at the pixel's luma", () => {
    const out = edit(coded, "grayscale");
    for (let i = 0; i < out.data.length; i += 4) {
      const [r, g, b] = [coded.data[i]!, coded.data[i + 1]!, coded.data[i + 2]!];
      expect([out.data[i + 1], out.data[i + 2]]).toEqual([out.data[i], out.data[i]]);
      expect(Math.abs(out.data[i]! - (0.299 * r + 0.587 * g + 0.114 * b))).toBeLessThanOrEqual(0.5);
    }
  });

  it("sepia: warm tones, red >= green >= blue, no longer gray", () => {
    const out = edit(coded, "sepia");
    for (let i = 0; i < out.data.length; i += 4) {
      expect(out.data[i]!).toBeGreaterThanOrEqual(out.data[i + 1]!);
      expect(out.data[i + 1]!).toBeGreaterThanOrEqual(out.data[i + 2]!);
    }
    expect(pixelAt(out, 2, 2)[0]! - pixelAt(out, 2, 2)[2]!).toBeGreaterThan(30);
  });

  it("invert: 255 - c, and twice is the identity; alpha untouched", () => {
    const translucent = image(4, 4, (x, y) => [x * 60, y * 60, 7, 100 + x]);
    const once = edit(translucent, "invert");
    expect(pixelAt(once, 1, 2)).toEqual([195, 135, 248, 101]);
    expect(edit(once, "negative").data).toEqual(translucent.data);
  });

  it("rotate 90 clockwise swaps the sides and moves the top-left pixel to the top-right", () => {
    const out = edit(coded, "rotate 90 clockwise");
    expect([out.width, out.height]).toEqual([H, W]);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(pixelAt(out, H - 1 - y, x)).toEqual(pixelAt(coded, x, y));
  });

  it("rotate left and rotate 180 land each pixel where expected", () => {
    const left = edit(coded, "rotate left");
    const half = edit(coded, "rotate 180");
    expect([left.width, left.height, half.width, half.height]).toEqual([H, W, W, H]);
    expect(pixelAt(left, 0, W - 1)).toEqual(pixelAt(coded, 0, 0));
    expect(pixelAt(left, 2, W - 1 - 5)).toEqual(pixelAt(coded, 5, 2));
    expect(pixelAt(half, W - 1 - 5, H - 1 - 2)).toEqual(pixelAt(coded, 5, 2));
  });

  it("mirror swaps left and right, flip swaps top and bottom, and the input is left as it was", () => {
    const before = coded.data.slice();
    const mirrored = edit(coded, "mirror");
    const flipped = edit(coded, "flip");
    expect(coded.data).toEqual(before);
    expect(pixelAt(mirrored, W - 1 - 2, 3)).toEqual(pixelAt(coded, 2, 3));
    expect(pixelAt(flipped, 2, H - 1 - 3)).toEqual(pixelAt(coded, 2, 3));
  });

  it("crop to a ratio keeps the largest centred region with exactly that ratio", () => {
    const source = image(160, 120, (x, y) => [x, y, 0, 255]);
    const wide = edit(source, "crop to 16:9");
    expect([wide.width, wide.height]).toEqual([160, 90]);
    expect(pixelAt(wide, 0, 0)).toEqual([0, 15, 0, 255]);
    const square = edit(source, "crop square");
    expect([square.width, square.height]).toEqual([120, 120]);
    expect(pixelAt(square, 0, 0)).toEqual([20, 0, 0, 255]);
    const portrait = edit(source, "crop to portrait 3:4");
    expect([portrait.width, portrait.height]).toEqual([90, 120]);
    expect(pixelAt(portrait, 0, 0)).toEqual([35, 0, 0, 255]);
  });

  it("brighten raises the mean by the percent asked; darken lowers it", () => {
    const before = channelStats(coded).mean;
    const brighter = edit(coded, "brighten 20%");
    expect(pixelAt(brighter, 3, 2)).toEqual([108, 96, 126, 255]); // (90, 80, 105) x 1.2
    expect(channelStats(brighter).mean).toBeGreaterThan(before);
    expect(channelStats(edit(coded, "darken")).mean).toBeLessThan(before);
  });

  it("contrast up spreads the values, contrast down gathers them", () => {
    const source = noise(3);
    const before = channelStats(source).variance;
    expect(channelStats(edit(source, "increase contrast")).variance).toBeGreaterThan(before);
    expect(channelStats(edit(source, "decrease contrast by 50%")).variance).toBeLessThan(before * 0.3);
  });

  it("blur lowers the variance, more for a stronger blur, and keeps a flat image flat", () => {
    const source = noise(5);
    const before = channelStats(source).variance;
    const light = channelStats(edit(source, "light blur")).variance;
    const strong = channelStats(edit(source, "strong blur")).variance;
    expect(light).toBeLessThan(before * 0.5);
    expect(strong).toBeLessThan(light);
    const flat = image(20, 20, () => [90, 140, 30, 255]);
    expect(edit(flat, "blur 6px").data).toEqual(flat.data);
  });

  it("sharpen raises the variance of a soft picture, a strong sharpen more", () => {
    const soft = edit(noise(9), "blur 1px");
    const before = channelStats(soft).variance;
    const normal = channelStats(edit(soft, "sharpen")).variance;
    expect(normal).toBeGreaterThan(before * 1.2);
    expect(channelStats(edit(soft, "sharpen strongly")).variance).toBeGreaterThan(normal);
  });

  it("applies combined edits in order", () => {
    const source = image(40, 20, (x, y) => [x * 6, y * 12, 60, 255]);
    const out = edit(source, "black and white, rotate 90 clockwise and crop square");
    expect([out.width, out.height]).toEqual([20, 20]);
    for (let i = 0; i < out.data.length; i += 4) expect(out.data[i]).toBe(out.data[i + 1]);
  });

  it("removes a plain background", () => {
    const subject = image(64, 64, (x, y) => ((x - 32) ** 2 + (y - 32) ** 2 < 300 ? [30, 60, 200, 255] : [250, 250, 250, 255]));
    const out = edit(subject, "remove the background");
    expect(pixelAt(out, 0, 0)[3]).toBe(0);
    expect(pixelAt(out, 32, 32)).toEqual([30, 60, 200, 255]);
  });

  it("fails as the model would (refunded upstream_error) when there is no background to remove", () => {
    expect(thrown(() => edit(noise(13), "remove the background")).code).toBe("upstream_error");
  });

  it("upscales with exact sizes", () => {
    const out = edit(coded, "enlarge 4x");
    expect([out.width, out.height]).toEqual([W * 4, H * 4]);
  });
});

describe("checkEditFits follows the size through the plan", () => {
  it("refuses an upscale past the output limit before any work, naming the prompt", () => {
    const error = thrown(() => checkEditFits(planEdit("upscale 4x"), 500, 600));
    expect(error.code).toBe("image_too_large");
    expect(error.param).toBe("prompt");
  });

  it("counts a crop before the upscale", () => {
    expect(() => checkEditFits(planEdit("crop to 16:9 and upscale 4x"), 500, 600)).not.toThrow();
    expect(() => checkEditFits(planEdit("upscale 2x and upscale 2x"), 600, 600)).toThrow(PixelgateError);
  });

  it("lets edits without upscaling through at any size", () => {
    expect(() => checkEditFits(planEdit("grayscale, rotate left and blur"), 2000, 2000)).not.toThrow();
  });
});
