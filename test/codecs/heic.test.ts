// HEIC input (libheif's WebAssembly build): recognised, measured from the header, decoded in
// workerd with the file's own turn applied; never offered as an output.

import { describe, expect, it } from "vitest";
import { decodeImage, readHeader, sniffFormat } from "../../src/codecs/index.ts";
import { Buffer } from "node:buffer";
import { QUADRANTS_HEIC, TURNED_HEIC } from "../fixtures/heic.ts";
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
});
