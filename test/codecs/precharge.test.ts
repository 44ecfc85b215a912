// The structural checks run where the tools load their input (sourceImageOf), before the charge:
// each hostile file below is refused there, so refusing it costs the client nothing and the
// worker no decoding. One file per kind of check.

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeImage } from "../../src/codecs/index.ts";
import { sourceImageOf } from "../../src/tools/source-image.ts";
import { BASE } from "../support/fixtures";
import { blobOffset, concat, gradient, ifdOffset, pixelgateError, rawRgbEntries, rgbBytes, tiffFile } from "./support.ts";

function dataUri(mime: string, bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${mime};base64,${btoa(binary)}`;
}
const u16 = (v: number) => new Uint8Array([v & 0xff, v >> 8]);

const jpeg = await encodeImage(gradient(48, 32), "jpeg");
const sos = [...jpeg.keys()].filter((i) => jpeg[i] === 0xff && jpeg[i + 1] === 0xda);
const lastScan = jpeg.subarray(sos.at(-1)!, jpeg.length - 2);
const rgbTiff = tiffFile([{ entries: rawRgbEntries(48, 32) }], [rgbBytes(gradient(48, 32))]);
const bmp = await encodeImage(gradient(48, 32), "bmp");
const png = await encodeImage(gradient(48, 32), "png");

const hostile: [name: string, mime: string, bytes: Uint8Array, code: string][] = [
  ["JPEG with 500 scans", "image/jpeg", concat(jpeg.subarray(0, -2), ...Array<Uint8Array>(500).fill(lastScan), new Uint8Array([0xff, 0xd9])), "invalid_image"],
  ["JPEG without its end", "image/jpeg", jpeg.subarray(0, jpeg.length - 40), "invalid_image"],
  [
    "GIF with a 1x1 screen and a 20000x20000 frame",
    "image/gif",
    concat(new TextEncoder().encode("GIF89a"), u16(1), u16(1), new Uint8Array([0x80, 0, 0, 0, 0, 0, 255, 255, 255, 0x2c, 0, 0, 0, 0]), u16(20_000), u16(20_000), new Uint8Array([0, 2, 2, 0x4c, 0x01, 0, 0x3b])),
    "image_too_large",
  ],
  ["uncompressed TIFF cut in half", "image/tiff", rgbTiff.subarray(0, rgbTiff.length >> 1), "invalid_image"],
  ["BMP cut inside its last row", "image/bmp", bmp.subarray(0, bmp.length - 10), "invalid_image"],
  ["PNG cut inside its image data", "image/png", png.subarray(0, png.length - 20), "invalid_image"],
  ["PNG without image data", "image/png", concat(png.subarray(0, 33), png.subarray(png.length - 12)), "invalid_image"],
  ["TIFF strip past the end", "image/tiff", tiffFile([{ entries: rawRgbEntries(4, 4, 0x7fff_0000) }], [new Uint8Array(48)]), "invalid_image"],
  [
    "TIFF SubIFD fan-out",
    "image/tiff",
    tiffFile([{ entries: [...rawRgbEntries(4, 4), [330, 4, Array<number>(16).fill(ifdOffset(1))]] }, { entries: [[256, 4, [1]]] }], [new Uint8Array(48)]),
    "invalid_image",
  ],
  [
    "TIFF of 20000 one-row strips",
    "image/tiff",
    tiffFile([{ entries: [...rawRgbEntries(1, 20_000).filter(([t]) => t !== 273 && t !== 278 && t !== 279), [273, 4, Array<number>(20_000).fill(blobOffset(0))], [278, 4, [1]], [279, 4, Array<number>(20_000).fill(3)]] }], [new Uint8Array(3)]),
    "invalid_image",
  ],
];

const CTX = { env, baseUrl: BASE };

describe("structural refusals happen before the charge, in sourceImageOf", () => {
  for (const [name, mime, bytes, code] of hostile) {
    it(name, async () => {
      const error = await pixelgateError(sourceImageOf({ image: dataUri(mime, bytes) }, CTX));
      expect({ code: error.code, param: error.param }).toEqual({ code, param: "image" });
    });
  }

  it("an honest image still passes", async () => {
    await expect(sourceImageOf({ image: dataUri("image/tiff", rgbTiff) }, CTX)).resolves.toMatchObject({ format: "tiff", width: 48, height: 32 });
    await expect(sourceImageOf({ image: dataUri("image/jpeg", jpeg) }, CTX)).resolves.toMatchObject({ format: "jpeg", width: 48, height: 32 });
    await expect(sourceImageOf({ image: dataUri("image/bmp", bmp) }, CTX)).resolves.toMatchObject({ format: "bmp", width: 48, height: 32 });
    await expect(sourceImageOf({ image: dataUri("image/png", png) }, CTX)).resolves.toMatchObject({ format: "png", width: 48, height: 32 });
  });
});
