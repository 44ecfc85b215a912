// Whatever is wrong with the bytes, decodeImage fails with PixelgateError invalid_image, never
// an untyped throw and never a half-decoded picture.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, IMAGE_FORMATS, readHeader, type ImageFormat } from "../../src/codecs/index.ts";
import { gradient, pixelgateError } from "./support.ts";

async function sample(format: ImageFormat): Promise<Uint8Array> {
  return encodeImage(gradient(48, 32), format);
}

describe("decodeImage failures are invalid_image", () => {
  for (const format of IMAGE_FORMATS) {
    it(`${format}: truncated file`, async () => {
      const bytes = await sample(format);
      const header = readHeader(bytes, format); // the header survives the cut below
      const cut = bytes.subarray(0, Math.floor(bytes.length * 0.6));
      const error = await pixelgateError(decodeImage(cut, header));
      expect(error.code).toBe("invalid_image");
    });

    // Uncompressed BMP rows have no structure: any bytes are valid pixels (see bmp.test.ts for
    // BMP's structural failures).
    if (format === "bmp") continue;
    it(`${format}: garbage after a valid header`, async () => {
      const bytes = (await sample(format)).slice();
      const header = readHeader(bytes, format);
      // Keep the first bytes (so the header parses), overwrite the rest with noise.
      // WebP: lossy VP8 data has no checksum, so noise inside it still decodes (to noise, as in
      // browsers); noise from the frame tag on cannot.
      const keep = format === "tiff" ? bytes.length : format === "webp" ? 20 : 64;
      let seed = 12345;
      for (let i = keep; i < bytes.length; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        bytes[i] = seed >>> 24;
      }
      if (format === "tiff") {
        // TIFF: the directory is at the front; scramble the JPEG strip instead.
        const strip = bytes.findIndex((b, i) => b === 0xff && bytes[i + 1] === 0xd8);
        for (let i = strip + 2; i < bytes.length; i++) {
          seed = (seed * 1103515245 + 12345) >>> 0;
          bytes[i] = seed >>> 24;
        }
      }
      const error = await pixelgateError(decodeImage(bytes, header));
      expect(error.code).toBe("invalid_image");
    });
  }

  it("bytes of one format decoded under another format's header", async () => {
    const png = await sample("png");
    const jpeg = await sample("jpeg");
    const error = await pixelgateError(decodeImage(png, { format: "jpeg", width: 48, height: 32 }));
    expect(error.code).toBe("invalid_image");
    expect((await pixelgateError(decodeImage(jpeg, { format: "webp", width: 48, height: 32 }))).code).toBe("invalid_image");
  });

  it("a header that lies about the size is caught after decoding", async () => {
    const png = await sample("png");
    const error = await pixelgateError(decodeImage(png, { format: "png", width: 32, height: 48 }));
    expect(error.code).toBe("invalid_image");
  });

  it("a codec instance that failed does not poison the next decode", async () => {
    const jpeg = await sample("jpeg");
    const header = readHeader(jpeg, "jpeg");
    await pixelgateError(decodeImage(jpeg.subarray(0, 300), header));
    const decoded = await decodeImage(jpeg, header);
    expect(decoded.width).toBe(48);
  });
});
