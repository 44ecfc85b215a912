// The JPEG walk that runs before the charge (readJpegScans via assertSafeToDecode): it counts
// scans, because a progressive decoder passes over the whole image once per scan, and it finds
// the end-of-image marker, because libjpeg decodes a cut-off file as if it were whole.

import { describe, expect, it } from "vitest";
import { assertSafeToDecode, decodeImage, encodeImage, readHeader } from "../../src/codecs/index.ts";
import { MAX_JPEG_SCANS, maxJpegScans, MIN_JPEG_SCANS, readJpegScans } from "../../src/codecs/jpeg.ts";
import { concat, gradient, pixelgateError } from "./support.ts";

const jpeg = await encodeImage(gradient(48, 32), "jpeg"); // progressive (MozJPEG)

/** Offsets of the SOS markers (FF DA) of our encoder's output. */
function sosOffsets(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 0xff && bytes[i + 1] === 0xda) out.push(i);
  return out;
}

/** Our JPEG with its last scan repeated until it has `scans` scans, its frame saying `width` x `height` (the scans are not decoded here). */
function withScans(scans: number, width = 48, height = 32): Uint8Array {
  const sos = sosOffsets(jpeg);
  const last = jpeg.subarray(sos.at(-1)!, jpeg.length - 2);
  const extra = Array.from({ length: scans - sos.length }, () => last);
  const head = jpeg.slice(0, jpeg.length - 2);
  const sof = head.findIndex((b, i) => b === 0xff && head[i + 1] === 0xc2);
  head.set([height >> 8, height & 0xff, width >> 8, width & 0xff], sof + 5);
  return concat(head, ...extra, new Uint8Array([0xff, 0xd9]));
}

function precheck(bytes: Uint8Array) {
  const header = readHeader(bytes, "jpeg");
  return pixelgateError(() => assertSafeToDecode(bytes, header));
}

describe("JPEG scans, counted before the charge", () => {
  it("our own progressive output has a handful of scans", () => {
    const { scans } = readJpegScans(jpeg);
    expect(scans).toBeGreaterThan(2);
    expect(scans).toBeLessThan(20);
  });

  it(`${MAX_JPEG_SCANS} scans pass, one more is refused`, async () => {
    expect(readJpegScans(withScans(MAX_JPEG_SCANS)).scans).toBe(MAX_JPEG_SCANS);
    const bomb = withScans(MAX_JPEG_SCANS + 1);
    expect(readHeader(bomb, "jpeg")).toMatchObject({ width: 48, height: 32 });
    const error = await precheck(bomb);
    expect(error.code).toBe("invalid_image");
    expect(error.message).toContain(String(MAX_JPEG_SCANS));
    expect((await pixelgateError(decodeImage(bomb, readHeader(bomb, "jpeg")))).code).toBe("invalid_image");
  });

  it("the scans allowed shrink as the pixels grow (each scan re-walks them), never below what real encoders write", async () => {
    expect(maxJpegScans(48 * 32)).toBe(MAX_JPEG_SCANS);
    expect(maxJpegScans(6000 * 4000)).toBe(MIN_JPEG_SCANS);
    expect(maxJpegScans(4000 * 3000)).toBe(64);
    for (const [width, height] of [[6000, 4000], [4000, 3000], [3000, 2000]] as const) {
      const most = maxJpegScans(width * height);
      expect(most).toBeGreaterThanOrEqual(20); // the most any real encoder's script has
      expect(readJpegScans(withScans(most, width, height)).scans).toBe(most);
      const bomb = withScans(most + 1, width, height);
      expect(readHeader(bomb, "jpeg")).toMatchObject({ width, height });
      const error = await precheck(bomb);
      expect(error.code).toBe("invalid_image");
      expect(error.message).toContain(`more than ${most} scans`);
    }
  });

  it("FF DA inside a segment between scans is not a scan", async () => {
    // A COM segment full of FF DA pairs before the second scan: skipped by its length.
    const sos = sosOffsets(jpeg);
    const payload = new Uint8Array(400).map((_, i) => (i % 2 ? 0xda : 0xff));
    const com = concat(new Uint8Array([0xff, 0xfe, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]), payload);
    const commented = concat(jpeg.subarray(0, sos[1]), com, jpeg.subarray(sos[1]));
    expect(readJpegScans(commented).scans).toBe(sos.length);
    expect((await decodeImage(commented, readHeader(commented, "jpeg"))).width).toBe(48);
  });

  it("a file cut before its end-of-image marker is refused before the charge", async () => {
    for (const cut of [jpeg.length - 2, Math.floor(jpeg.length * 0.7)]) {
      expect((await precheck(jpeg.subarray(0, cut))).code).toBe("invalid_image");
    }
    // Bytes after EOI are ignored.
    expect(readJpegScans(concat(jpeg, new Uint8Array([1, 2, 0xff, 0xda, 0, 4]))).scans).toBe(sosOffsets(jpeg).length);
  });
});
