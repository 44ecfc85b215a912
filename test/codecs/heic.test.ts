// HEIC input (libheif's WebAssembly build): recognised, measured from the header, decoded in
// workerd with the file's own turn applied; never offered as an output.

import { describe, expect, it } from "vitest";
import { decodeImage, nativeBytesPerPixel, readHeader, recodeImage, sniffFormat } from "../../src/codecs/index.ts";
import { Buffer } from "node:buffer";
import { ALPHA_HEIC, BT709_STUDIO_HEIC, QUADRANTS_HEIC, TEN_BIT_HEIC, TURNED_HEIC } from "../fixtures/heic.ts";
import { pixelAt } from "./support.ts";

const bytesOf = (base64: string) => new Uint8Array(Buffer.from(base64, "base64"));

/** Within a lossy codec's reach of an exact colour. */
function near(actual: number[], expected: number[]): void {
  expected.forEach((value, i) => expect(Math.abs(actual[i]! - value), `channel ${i} of ${actual.join(",")}`).toBeLessThan(24));
}

describe("HEIC", () => {
  it("is sniffed as heic and its header gives the size", () => {
    const bytes = bytesOf(QUADRANTS_HEIC);
    expect(sniffFormat(bytes)).toBe("heic");
    expect(readHeader(bytes, "heic")).toEqual({ format: "heic", width: 64, height: 48 });
  });

  it("decodes to RGBA with every quadrant where it was drawn", async () => {
    const bytes = bytesOf(QUADRANTS_HEIC);
    const image = await decodeImage(bytes, readHeader(bytes, "heic"));
    expect([image.width, image.height]).toEqual([64, 48]);
    near(pixelAt(image, 8, 8), [255, 0, 0, 255]);
    near(pixelAt(image, 56, 8), [0, 255, 0, 255]);
    near(pixelAt(image, 8, 40), [0, 0, 255, 255]);
    near(pixelAt(image, 56, 40), [255, 255, 0, 255]);
  });

  it("applies the file's irot turn: the header and the pixels come out portrait", async () => {
    const bytes = bytesOf(TURNED_HEIC);
    const header = readHeader(bytes, "heic");
    expect(header).toEqual({ format: "heic", width: 48, height: 64 });
    const image = await decodeImage(bytes, header);
    expect([image.width, image.height]).toEqual([48, 64]);
    // A quarter turn clockwise: the stored bottom-left (blue) is now top-left, red top-right.
    near(pixelAt(image, 8, 8), [0, 0, 255, 255]);
    near(pixelAt(image, 40, 8), [255, 0, 0, 255]);
    near(pixelAt(image, 8, 56), [255, 255, 0, 255]);
    near(pixelAt(image, 40, 56), [0, 255, 0, 255]);
  });

  describe("to WebP and JPEG through libheif's YCbCr planes (no RGBA image)", () => {
    const RED = [255, 0, 0, 255];
    const GREEN = [0, 255, 0, 255];
    const BLUE = [0, 0, 255, 255];
    const YELLOW = [255, 255, 0, 255];

    /** The file recoded as `target`, read back with our own decoders. */
    async function recoded(base64: string, target: "webp" | "jpeg") {
      const bytes = bytesOf(base64);
      const out = await recodeImage(bytes, readHeader(bytes, "heic"), target, { quality: 95 });
      expect(sniffFormat(out.bytes)).toBe(target);
      const image = await decodeImage(out.bytes, readHeader(out.bytes, target));
      expect([image.width, image.height]).toEqual([out.width, out.height]);
      return image;
    }

    for (const target of ["webp", "jpeg"] as const) {
      it(`keeps every quadrant's colour (${target})`, async () => {
        const image = await recoded(QUADRANTS_HEIC, target);
        expect([image.width, image.height]).toEqual([64, 48]);
        near(pixelAt(image, 8, 8), RED);
        near(pixelAt(image, 56, 8), GREEN);
        near(pixelAt(image, 8, 40), BLUE);
        near(pixelAt(image, 56, 40), YELLOW);
      });

      it(`applies the irot turn (${target})`, async () => {
        const image = await recoded(TURNED_HEIC, target);
        expect([image.width, image.height]).toEqual([48, 64]);
        near(pixelAt(image, 8, 8), BLUE);
        near(pixelAt(image, 40, 8), RED);
      });

      it(`converts a 10-bit file's planes to 8 bits (${target})`, async () => {
        const image = await recoded(TEN_BIT_HEIC, target);
        near(pixelAt(image, 8, 8), RED);
        near(pixelAt(image, 56, 8), GREEN);
        near(pixelAt(image, 8, 40), BLUE);
        near(pixelAt(image, 56, 40), YELLOW);
      });

      // The file's nclx box says BT.709, studio range, over samples coded as BT.601 full range:
      // libheif's own RGB conversion follows the box (green comes out about (0, 255, 0) read
      // the first way, (0, 231, 0) the second), and so must ours. The mis-tagged red and yellow
      // fall outside RGB: libheif clips them per RGB channel, we clip the YCbCr samples, which
      // leaves up to ~13 levels of difference there.
      it(`follows the file's nclx matrix and range as libheif's RGB conversion does (${target})`, async () => {
        const bytes = bytesOf(BT709_STUDIO_HEIC);
        const libheif = await decodeImage(bytes, readHeader(bytes, "heic"));
        const image = await recoded(BT709_STUDIO_HEIC, target);
        for (const [x, y] of [[8, 8], [56, 8], [8, 40], [56, 40]] as const) {
          const expected = pixelAt(libheif, x, y);
          pixelAt(image, x, y).forEach((value, i) => expect(Math.abs(value - expected[i]!), `(${x}, ${y}) channel ${i}`).toBeLessThan(16));
        }
        expect(pixelAt(libheif, 56, 8)[1]).toBeLessThan(240); // the box really changes the colours
      });
    }

    it("keeps an alpha plane in WebP and flattens it onto black in JPEG", async () => {
      const webp = await recoded(ALPHA_HEIC, "webp");
      near(pixelAt(webp, 8, 8), RED);
      expect(pixelAt(webp, 56, 8)[3]).toBeLessThan(8);
      expect(pixelAt(webp, 56, 40)[3]).toBeLessThan(8);
      const jpeg = await recoded(ALPHA_HEIC, "jpeg");
      near(pixelAt(jpeg, 8, 40), BLUE);
      near(pixelAt(jpeg, 56, 8), [0, 0, 0, 255]);
      near(pixelAt(jpeg, 56, 40), [0, 0, 0, 255]);
    });

    it("costs more per pixel with an alpha plane, and other targets take the general path", () => {
      const plain = nativeBytesPerPixel(bytesOf(QUADRANTS_HEIC), "heic", "webp")!;
      expect(plain).toBeGreaterThan(0);
      expect(nativeBytesPerPixel(bytesOf(ALPHA_HEIC), "heic", "webp")).toBeGreaterThan(plain);
      expect(nativeBytesPerPixel(bytesOf(ALPHA_HEIC), "heic", "jpeg")).toBeGreaterThan(plain);
      expect(nativeBytesPerPixel(bytesOf(QUADRANTS_HEIC), "heic", "avif")).toBeNull();
    });
  });
});
