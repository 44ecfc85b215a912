// EXIF orientation is applied to the pixels; EXIF, ICC and orientation never reach the output.

import { describe, expect, it } from "vitest";
import {
  applyOrientation,
  decodeImage,
  encodeImage,
  IMAGE_FORMATS,
  readHeader,
  readOrientation,
  sniffFormat,
  type Orientation,
  type RasterImage,
} from "../../src/codecs/index.ts";
import {
  concat,
  contains,
  EXIF_MARKER,
  exifApp1,
  handPng,
  iccApp2,
  image,
  maxDiff,
  meanDiff,
  pixelAt,
  pngChunk,
  quadrants,
  rawRgbTiff,
  tiffStructure,
  webpWithExif,
  withJpegSegments,
} from "./support.ts";

/** 3 x 2 image with six distinct opaque colours, to follow every pixel through a transform. */
function sixPixels(): RasterImage {
  const colors = [[10, 0, 0], [20, 0, 0], [30, 0, 0], [40, 0, 0], [50, 0, 0], [60, 0, 0]];
  return image(3, 2, (x, y) => [...(colors[y * 3 + x] as [number, number, number]), 255]);
}

function reds(img: RasterImage): number[][] {
  const rows: number[][] = [];
  for (let y = 0; y < img.height; y++) rows.push(Array.from({ length: img.width }, (_, x) => pixelAt(img, x, y)[0]!));
  return rows;
}

describe("applyOrientation follows the EXIF table", () => {
  // Stored:  10 20 30
  //          40 50 60
  const expected: Record<Orientation, number[][]> = {
    1: [[10, 20, 30], [40, 50, 60]],
    2: [[30, 20, 10], [60, 50, 40]], // mirrored horizontally
    3: [[60, 50, 40], [30, 20, 10]], // rotated 180
    4: [[40, 50, 60], [10, 20, 30]], // mirrored vertically
    5: [[10, 40], [20, 50], [30, 60]], // transposed
    6: [[40, 10], [50, 20], [60, 30]], // rotated 90 clockwise
    7: [[60, 30], [50, 20], [40, 10]], // transversed
    8: [[30, 60], [20, 50], [10, 40]], // rotated 90 counter-clockwise
  };
  for (const o of [1, 2, 3, 4, 5, 6, 7, 8] as const) {
    it(`orientation ${o}`, () => {
      expect(reds(applyOrientation(sixPixels(), o))).toEqual(expected[o]);
    });
  }
});

describe("readOrientation", () => {
  it("reads the JPEG APP1 Exif orientation in both byte orders", async () => {
    const jpeg = await encodeImage(quadrants(16, 8), "jpeg");
    expect(readOrientation(jpeg, "jpeg")).toBe(1);
    expect(readOrientation(withJpegSegments(jpeg, exifApp1(6)), "jpeg")).toBe(6);
    expect(readOrientation(withJpegSegments(jpeg, iccApp2(), exifApp1(8, true)), "jpeg")).toBe(8);
  });

  it("reads TIFF tag 274 in both byte orders", () => {
    expect(readOrientation(rawRgbTiff(quadrants(4, 2), { orientation: 3 }), "tiff")).toBe(3);
    expect(readOrientation(rawRgbTiff(quadrants(4, 2), { orientation: 5, bigEndian: true }), "tiff")).toBe(5);
    expect(readOrientation(rawRgbTiff(quadrants(4, 2)), "tiff")).toBe(1);
  });

  it("treats broken or out-of-range metadata as 1 instead of failing", async () => {
    const jpeg = await encodeImage(quadrants(16, 8), "jpeg");
    expect(readOrientation(withJpegSegments(jpeg, exifApp1(9)), "jpeg")).toBe(1);
    const broken = exifApp1(6);
    broken[10] = 0x58; // "II" -> "XI": not a TIFF structure
    expect(readOrientation(withJpegSegments(jpeg, broken), "jpeg")).toBe(1);
    expect(readOrientation(new Uint8Array([0xff, 0xd8]), "jpeg")).toBe(1);
    expect(readOrientation(new Uint8Array(0), "gif")).toBe(1);
  });
});

describe("decodeImage applies orientation", () => {
  it("JPEG with EXIF orientation 6 decodes rotated 90 degrees clockwise", async () => {
    // 32 x 16, red left half / green right half on top, blue / white below.
    const stored = quadrants(32, 16);
    const jpeg = withJpegSegments(await encodeImage(stored, "jpeg", { quality: 95 }), exifApp1(6));
    const header = readHeader(jpeg, "jpeg");
    expect(header).toMatchObject({ width: 32, height: 16 }); // the header is the stored size
    const shown = await decodeImage(jpeg, header);
    expect([shown.width, shown.height]).toEqual([16, 32]);
    const expected = applyOrientation(stored, 6);
    // Rotated clockwise: the stored bottom-left (blue) is now top-left, top-left (red) top-right.
    // JPEG rings at the hard quadrant edges; away from them the colours must match.
    const awayFromEdges = (x: number, y: number) => Math.abs(x - 7.5) > 2 && Math.abs(y - 15.5) > 2;
    expect(maxDiff(expected, shown, awayFromEdges, 3)).toBeLessThan(40);
    expect(meanDiff(expected, shown)).toBeLessThan(8);
    const [r, g, b] = pixelAt(shown, 3, 3);
    expect(b).toBeGreaterThan(200);
    expect(Math.max(r!, g!)).toBeLessThan(50);
    expect(pixelAt(shown, 12, 3)[0]).toBeGreaterThan(200); // red
  });

  it("big-endian TIFF with orientation 3 decodes rotated 180 (utif2 path)", async () => {
    const stored = sixPixels();
    const tiff = rawRgbTiff(stored, { bigEndian: true, orientation: 3 });
    const shown = await decodeImage(tiff, readHeader(tiff, "tiff"));
    expect(reds(shown)).toEqual([[60, 50, 40], [30, 20, 10]]);
  });

  it("PNG eXIf orientation is honoured too", async () => {
    const exif = tiffStructure([[0x0112, 3, [8]]]);
    const png = await handPng({ width: 3, height: 2, colorType: 2, bitDepth: 8, sample: (x, y) => [(y * 3 + x + 1) * 10, 0, 0], chunks: [pngChunk("eXIf", exif)] });
    const shown = await decodeImage(png, readHeader(png, "png"));
    expect(reds(shown)).toEqual([[30, 60], [20, 50], [10, 40]]);
  });

  it("WebP EXIF orientation is honoured too", async () => {
    const stored = quadrants(16, 8);
    const webp = webpWithExif(await encodeImage(stored, "webp", { quality: 100 }), tiffStructure([[0x0112, 3, [6]]]), 16, 8);
    expect(sniffFormat(webp)).toBe("webp");
    const shown = await decodeImage(webp, readHeader(webp, "webp"));
    expect([shown.width, shown.height]).toEqual([8, 16]);
    expect(pixelAt(shown, 1, 1)[2]).toBeGreaterThan(200); // blue top-left after a clockwise turn
  });
});

describe("output never carries metadata", () => {
  it("a JPEG with EXIF (orientation 6) and ICC converts to every format without either", async () => {
    const jpeg = withJpegSegments(await encodeImage(quadrants(32, 16), "jpeg"), exifApp1(6), iccApp2());
    expect(contains(jpeg, EXIF_MARKER)).toBe(true); // the fixture really has them
    expect(contains(jpeg, "ICC_PROFILE")).toBe(true);
    const decoded = await decodeImage(jpeg, readHeader(jpeg, "jpeg"));
    for (const format of IMAGE_FORMATS) {
      const out = await encodeImage(decoded, format);
      expect(contains(out, EXIF_MARKER), `${format} has Exif`).toBe(false);
      expect(contains(out, "ICC_PROFILE"), `${format} has ICC`).toBe(false);
      for (const tag of ["eXIf", "iCCP", "EXIF", "ICCP", "prof", "rICC"]) expect(contains(out, tag), `${format} has ${tag}`).toBe(false);
      // AVIF's colr box may only be "nclx" (colour primaries, not an ICC profile).
      if (format === "avif" && contains(out, "colr")) expect(contains(out, "colrnclx")).toBe(true);
      // The turned picture is what gets written: its header shows the rotated size.
      expect(readHeader(out, format), format).toMatchObject({ width: 16, height: 32 });
    }
  });

  it("TIFF output has no orientation tag (274) and no EXIF IFD (34665)", async () => {
    const tiff = await encodeImage(quadrants(8, 8), "tiff");
    const v = new DataView(tiff.buffer, tiff.byteOffset);
    const count = v.getUint16(8, true);
    const tags = Array.from({ length: count }, (_, i) => v.getUint16(10 + i * 12, true));
    expect(tags).not.toContain(274);
    expect(tags).not.toContain(34665);
    expect(tags).not.toContain(34675); // ICC
    expect(tags).toEqual([...tags].sort((a, b) => a - b)); // ascending, as TIFF requires
  });

  it("the jpeg and webp outputs contain only the chunks/segments an encoder needs", async () => {
    const jpeg = await encodeImage(quadrants(16, 16), "jpeg");
    // Walk the markers before the first scan: JFIF APP0 at most, no APP1/APP2.
    const markers: number[] = [];
    for (let at = 2; jpeg[at] === 0xff && jpeg[at + 1] !== 0xda; at += 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!)) markers.push(jpeg[at + 1]!);
    expect(markers.filter((m) => m >= 0xe1 && m <= 0xef)).toEqual([]);
    expect(concat(jpeg.subarray(0, 2))).toEqual(new Uint8Array([0xff, 0xd8]));
  });
});
