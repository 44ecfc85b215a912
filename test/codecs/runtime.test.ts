// How the WASM codecs live in the isolate: a complete `location` for code that resolves URLs
// later, and independent instances per operation (concurrent calls, failures).

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, readHeader } from "../../src/codecs/index.ts";
import { gradient, meanDiff } from "./support.ts";

describe("codec runtime", () => {
  it("leaves a complete location behind after the Emscripten glue ran", async () => {
    await encodeImage(gradient(8, 8), "webp");
    await encodeImage(gradient(8, 8), "jpeg");
    await encodeImage(gradient(8, 8), "avif");
    const location = (globalThis as unknown as { location: Record<string, unknown> }).location;
    expect(location.href).toBe("https://pixelgate.invalid/");
    expect(location.origin).toBe("https://pixelgate.invalid");
    expect(location.protocol).toBe("https:");
    // What broke the MCP SDK: resolving a relative URL against location.href.
    expect(new URL("schema.json", String(location.href)).href).toBe("https://pixelgate.invalid/schema.json");
  });

  it("concurrent operations do not share codec state", async () => {
    const images = [gradient(40, 30), gradient(30, 40), gradient(50, 20)];
    const encoded = await Promise.all(images.flatMap((img) => (["jpeg", "webp", "avif"] as const).map((f) => encodeImage(img, f))));
    const decoded = await Promise.all(
      encoded.map((bytes, i) => {
        const format = (["jpeg", "webp", "avif"] as const)[i % 3]!;
        return decodeImage(bytes, readHeader(bytes, format));
      }),
    );
    decoded.forEach((img, i) => {
      const source = images[Math.floor(i / 3)]!;
      expect([img.width, img.height]).toEqual([source.width, source.height]);
      expect(meanDiff(source, img)).toBeLessThan(6);
    });
  });

  it("repeated encodes are byte-identical (deterministic output)", async () => {
    const source = gradient(33, 21);
    for (const format of ["png", "jpeg", "webp", "avif", "gif", "bmp", "tiff"] as const) {
      expect(await encodeImage(source, format), format).toEqual(await encodeImage(source, format));
    }
  });

  it("results own their memory: no view into a codec's WASM heap survives the call", async () => {
    // A view would keep the whole instance memory (tens of MB for big images) alive.
    for (const format of ["png", "jpeg", "webp", "avif", "gif", "bmp", "tiff"] as const) {
      const bytes = await encodeImage(gradient(30, 20), format);
      expect(bytes.buffer.byteLength, `${format} output`).toBe(bytes.length);
      const decoded = await decodeImage(bytes, readHeader(bytes, format));
      expect(decoded.data.buffer.byteLength, `${format} decode`).toBe(decoded.data.length);
    }
  });

  it("decodes from a view with an odd byte offset (no assumption that bytes start a buffer)", async () => {
    for (const format of ["png", "jpeg", "webp", "avif", "gif", "bmp", "tiff"] as const) {
      const bytes = await encodeImage(gradient(30, 20), format);
      const padded = new Uint8Array(bytes.length + 3);
      padded.set(bytes, 3);
      const view = padded.subarray(3);
      const decoded = await decodeImage(view, readHeader(view, format));
      expect(meanDiff(gradient(30, 20), decoded), format).toBeLessThan(6);
    }
  });
});
