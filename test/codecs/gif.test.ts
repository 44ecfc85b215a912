// GIF: first frame only, 1-bit transparency, quantization to at most 256 colours.

import { describe, expect, it } from "vitest";
import { assertSafeToDecode, decodeImage, encodeImage, MAX_DECODE_PIXELS, readHeader } from "../../src/codecs/index.ts";
import { GifReader, GifWriter } from "omggif";
import { animatedGif, concat, distinctColors, gradient, image, interlacedGif, meanDiff, pixelAt, pixelgateError, quadrants } from "./support.ts";

describe("GIF input", () => {
  it("an animated GIF decodes to its first frame, composited on transparent", async () => {
    const gif = animatedGif(8, 6);
    expect(new GifReader(gif).numFrames()).toBe(2); // the fixture is really animated
    const decoded = await decodeImage(gif, readHeader(gif, "gif"));
    expect(pixelAt(decoded, 0, 0)).toEqual([0, 0, 0, 0]); // frame 1's transparent index
    expect(pixelAt(decoded, 1, 0)).toEqual([255, 0, 0, 255]); // frame 1 is red, frame 2 blue
    expect(pixelAt(decoded, 7, 5)).toEqual([255, 0, 0, 255]);
  });

  it("GIF to GIF keeps only the first frame", async () => {
    const gif = animatedGif(8, 6);
    const out = await encodeImage(await decodeImage(gif, readHeader(gif, "gif")), "gif");
    const reader = new GifReader(out);
    expect(reader.numFrames()).toBe(1);
    expect(reader.loopCount()).toBeNull(); // no NETSCAPE loop extension either
    const again = await decodeImage(out, readHeader(out, "gif"));
    expect(pixelAt(again, 0, 0)[3]).toBe(0);
    expect(pixelAt(again, 3, 3)).toEqual([255, 0, 0, 255]);
  });

  it("decodes an interlaced GIF into the right rows", async () => {
    const width = 4;
    const height = 11; // touches all four interlace passes
    const indices = Array.from({ length: width * height }, (_, i) => Math.floor(i / width) % 4);
    const palette = [0x000000, 0xff0000, 0x00ff00, 0x0000ff];
    const gif = interlacedGif(width, height, indices, palette);
    const decoded = await decodeImage(gif, readHeader(gif, "gif"));
    for (let y = 0; y < height; y++) {
      const p = palette[y % 4]!;
      expect(pixelAt(decoded, 2, y), `row ${y}`).toEqual([(p >> 16) & 255, (p >> 8) & 255, p & 255, 255]);
    }
  });

  it("a frame reaching past the logical screen is clipped to it", async () => {
    // An 8 x 6 frame, red where x < 5 and blue beyond, on a logical screen shrunk to 5 x 4.
    const buf = new Uint8Array(1024);
    const writer = new GifWriter(buf, 8, 6, { palette: [0xff0000, 0x0000ff] });
    writer.addFrame(0, 0, 8, 6, Array.from({ length: 48 }, (_, i) => (i % 8 < 5 ? 0 : 1)));
    const gif = buf.slice(0, writer.end());
    gif[6] = 5;
    gif[8] = 4;
    const decoded = await decodeImage(gif, readHeader(gif, "gif"));
    expect([decoded.width, decoded.height]).toEqual([5, 4]);
    // Wrapping the frame's rows into the narrower screen would bring blue in.
    for (let y = 0; y < 4; y++) for (let x = 0; x < 5; x++) expect(pixelAt(decoded, x, y)).toEqual([255, 0, 0, 255]);
  });
});

describe("GIF output", () => {
  it("few colours give an exact palette", async () => {
    const source = quadrants(20, 10);
    const out = await encodeImage(source, "gif");
    const decoded = await decodeImage(out, readHeader(out, "gif"));
    expect(decoded.data).toEqual(source.data);
  });

  it("many colours are quantized to at most 256, deterministically", async () => {
    const source = gradient(128, 96);
    expect(distinctColors(source)).toBeGreaterThan(5000);
    const a = await encodeImage(source, "gif");
    const b = await encodeImage(source, "gif");
    expect(a).toEqual(b);
    const decoded = await decodeImage(a, readHeader(a, "gif"));
    expect(distinctColors(decoded)).toBeLessThanOrEqual(256);
    expect(distinctColors(decoded)).toBeGreaterThan(128); // the palette is actually used
    expect(meanDiff(source, decoded)).toBeLessThan(4);
  });

  it("keeps a transparent index beside 255 opaque colours", async () => {
    const source = gradient(64, 64);
    for (let i = 0; i < 64; i++) source.data[(i * 64 + i) * 4 + 3] = 0; // transparent diagonal
    const out = await encodeImage(source, "gif");
    const reader = new GifReader(out);
    const transparent = reader.frameInfo(0).transparent_index;
    expect(transparent).not.toBeNull();
    const decoded = await decodeImage(out, readHeader(out, "gif"));
    for (let i = 0; i < 64; i++) expect(pixelAt(decoded, i, i)[3]).toBe(0);
    expect(pixelAt(decoded, 1, 0)[3]).toBe(255);
    // Opaque pixels never map to the transparent index.
    let transparentPixels = 0;
    for (let i = 3; i < decoded.data.length; i += 4) if (decoded.data[i] === 0) transparentPixels++;
    expect(transparentPixels).toBe(64);
  });

  it("a single-colour image is still a valid GIF (2-entry colour table)", async () => {
    const out = await encodeImage(image(3, 3, () => [9, 8, 7, 255]), "gif");
    const decoded = await decodeImage(out, readHeader(out, "gif"));
    expect(pixelAt(decoded, 2, 2)).toEqual([9, 8, 7, 255]);
  });
});

// ---------------------------------------------------------------------------------------------
// The first frame: checked before the charge, and decoded no further than the screen shows

const u16 = (v: number) => new Uint8Array([v & 0xff, v >> 8]);

/** A GIF89a screen with a black/red/green/blue global palette, one frame, and the trailer. */
function gifWithFrame(screen: [number, number], frame: { x?: number; y?: number; width: number; height: number }, data: number[]): Uint8Array {
  return concat(
    new TextEncoder().encode("GIF89a"), u16(screen[0]), u16(screen[1]), new Uint8Array([0x81, 0, 0]),
    new Uint8Array([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]),
    new Uint8Array([0x2c]), u16(frame.x ?? 0), u16(frame.y ?? 0), u16(frame.width), u16(frame.height), new Uint8Array([0]),
    new Uint8Array(data),
    new Uint8Array([0x3b]),
  );
}
/** LZW data (code size 2) for exactly one pixel of index 1 (red): clear, 1, end. */
const ONE_RED_PIXEL = [2, 2, 0x4c, 0x01, 0];

function precheck(gif: Uint8Array) {
  const header = readHeader(gif, "gif");
  return pixelgateError(() => assertSafeToDecode(gif, header));
}

describe("GIF first frame", () => {
  it("a first frame beyond the pixel limit on a 1x1 screen is refused before the charge", async () => {
    const gif = gifWithFrame([1, 1], { width: 20_000, height: 20_000 }, ONE_RED_PIXEL);
    expect(gif.length).toBeLessThan(50);
    expect(readHeader(gif, "gif")).toMatchObject({ width: 1, height: 1 }); // the header sees the screen
    expect(20_000 * 20_000).toBeGreaterThan(MAX_DECODE_PIXELS);
    expect((await precheck(gif)).code).toBe("image_too_large");
  });

  it("a frame larger than the screen is decoded only as far as the screen shows", async () => {
    // 3.6 M pixels of frame (within the limit) on a 2 x 2 screen: two rows of it are decoded.
    const gif = gifWithFrame([2, 2], { width: 1900, height: 1900 }, ONE_RED_PIXEL);
    const decoded = await decodeImage(gif, readHeader(gif, "gif"));
    expect([decoded.width, decoded.height]).toEqual([2, 2]);
    expect(pixelAt(decoded, 0, 0)).toEqual([255, 0, 0, 255]);
  });

  it("LZW data that ends early leaves the rest of the frame transparent", async () => {
    const gif = gifWithFrame([3, 2], { width: 3, height: 2 }, ONE_RED_PIXEL);
    const decoded = await decodeImage(gif, readHeader(gif, "gif"));
    expect(pixelAt(decoded, 0, 0)).toEqual([255, 0, 0, 255]);
    for (const [x, y] of [[1, 0], [2, 0], [0, 1], [2, 1]] as const) expect(pixelAt(decoded, x, y), `${x},${y}`).toEqual([0, 0, 0, 0]);
  });

  it("a frame placed off the screen leaves a transparent canvas", async () => {
    const gif = gifWithFrame([4, 4], { x: 10, y: 0, width: 2, height: 2 }, ONE_RED_PIXEL);
    const decoded = await decodeImage(gif, readHeader(gif, "gif"));
    expect(decoded.data.every((v) => v === 0)).toBe(true);
  });

  it("an invalid LZW code size or a cut sub-block chain is refused before the charge", async () => {
    expect((await precheck(gifWithFrame([1, 1], { width: 1, height: 1 }, [12, 2, 0x4c, 0x01, 0]))).code).toBe("invalid_image");
    const whole = gifWithFrame([1, 1], { width: 1, height: 1 }, [2, 200, 0x4c, 0x01]); // a 200-byte block, 2 there
    expect((await precheck(whole)).code).toBe("invalid_image");
  });
});
