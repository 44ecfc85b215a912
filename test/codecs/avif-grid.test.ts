// AVIF above libavif's single-image limit: the picture cut into cells coded one at a time
// (avif-cells.ts) inside a grid AVIF (avif-grid.ts). Each file is read back by libavif (jsquash's
// decoder: the reader Chromium uses) and compared with its source; its boxes are read by our own
// HEIF reader. At and under the limit the single image stays what it was.

import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage, nativeRoute, readHeader, recodeImage, sniffFormat, type RasterImage } from "../../src/codecs/index.ts";
import { decodeAvif, readAvifHeader } from "../../src/codecs/avif.ts";
import { cellGrid, encodeAvifCells } from "../../src/codecs/avif-cells.ts";
import { readHeifItems } from "../../src/codecs/heif-items.ts";
import { assertRecodable } from "../../src/codecs/header.ts";
import { encodeBaselineJpeg } from "../../src/codecs/jpeg.ts";
import { generalPrice, SINGLE_AVIF_MAX_PIXELS } from "../../src/codecs/limits.ts";
import type { RgbaRows } from "../../src/codecs/native.ts";
import { readRouteFacts, ROUTE_ROWS } from "../../src/codecs/route-table.ts";
import { bytesOfBase64 } from "../support/tool-calls.ts";
import { GRID_HEIC, GRID_TURNED_HEIC, QUADRANTS_HEIC, TURNED_HEIC } from "../fixtures/heic.ts";
import { GRID_ODD_TURNED_HEIC } from "../fixtures/route-cases.ts";
import { exifApp1, gradientWithAlpha, image, meanDiff, maxDiff, pixelgateError, withJpegSegments } from "./support.ts";

/** Smooth colour with a little texture (what a photo has), no flat areas to hide a misplaced cell. */
function scene(width: number, height: number): RasterImage {
  return image(width, height, (x, y) => [(x * 255) / width, (y * 255) / height, 128 + 60 * Math.sin(x / 37) * Math.cos(y / 29), 255]);
}

/** A raster's rows as a row source hands them out. */
function rowsOf(picture: RasterImage): RgbaRows {
  let next = 0;
  const rowBytes = picture.width * 4;
  return {
    width: picture.width,
    height: picture.height,
    read(into, rows) {
      into.set(picture.data.subarray(next * rowBytes, (next + rows) * rowBytes));
      next += rows;
    },
  };
}

const joined = (pieces: readonly Uint8Array[]) => {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) (out.set(piece, at), (at += piece.length));
  return out;
};

/** The picture turned a quarter clockwise (EXIF orientation 6 shown upright). */
function turnedClockwise(picture: RasterImage): RasterImage {
  const { width, height, data } = picture;
  return image(height, width, (x, y) => {
    const at = ((height - 1 - x) * width + y) * 4;
    return [data[at]!, data[at + 1]!, data[at + 2]!, data[at + 3]!];
  });
}

describe("a grid AVIF", () => {
  it("cuts a picture into equal even cells within 1024x512, the last ones reaching past its edge; odd sides take 4:4:4", () => {
    expect(cellGrid(4032, 3024)).toEqual({ width: 4032, height: 3024, columns: 4, rows: 6, cellWidth: 1008, cellHeight: 504, chroma: "4:2:0" });
    expect(cellGrid(2101, 601)).toEqual({ width: 2101, height: 601, columns: 3, rows: 2, cellWidth: 702, cellHeight: 302, chroma: "4:4:4" });
    // A thin picture: cells of at least 64 (MIAF's least tile), cropped.
    expect(cellGrid(3000, 40)).toMatchObject({ columns: 3, rows: 1, cellWidth: 1000, cellHeight: 64 });
  });

  for (const [width, height, chroma] of [[2101, 601, "4:4:4"], [2102, 602, "4:2:0"]] as const) {
    it(`reads back as the whole picture: a 3x2 grid cropped to ${width}x${height} (${chroma} cells), each cell in its place`, async () => {
      const picture = scene(width, height);
      expect(cellGrid(width, height)).toMatchObject({ cellWidth: 702, cellHeight: 302, chroma });
      const file = joined(await encodeAvifCells(rowsOf(picture), 50));
      expect(sniffFormat(file)).toBe("avif");
      expect(readAvifHeader(file)).toEqual({ width, height });
      const items = readHeifItems(file);
      expect(items.items.get(items.primary)?.type).toBe("grid");
      const cells = items.references.find((r) => r.type === "dimg" && r.from === items.primary)!.to;
      expect(cells).toHaveLength(6);
      for (const id of cells) expect(items.items.get(id)?.type).toBe("av01");

      const decoded = await decodeAvif(file);
      expect([decoded.width, decoded.height]).toEqual([width, height]);
      // Quality 50: close everywhere, the cells' seams and the cropped edge included.
      expect(meanDiff(decoded, picture)).toBeLessThan(3);
      expect(maxDiff(decoded, picture, (x, y) => x >= 695 && x < 710 && y >= 295 && y < 310, 3)).toBeLessThan(40);
      expect(maxDiff(decoded, picture, (x, y) => x > width - 12 && y > height - 12, 3)).toBeLessThan(40);
    }, 60_000);
  }

  it("fails with image_too_large once its AV1 data passes what the call was priced for", async () => {
    const error = await pixelgateError(encodeAvifCells(rowsOf(scene(1500, 600)), 50, 1000));
    expect(error.code).toBe("image_too_large");
  }, 60_000);
});

describe("AVIF from compress and convert", () => {
  it("keeps libavif's single image, byte for byte, up to 2,000,000 pixels; above it writes the grid", async () => {
    const small = await encodeBaselineJpeg(scene(1600, 1250), 85);
    expect(1600 * 1250).toBe(SINGLE_AVIF_MAX_PIXELS);
    expect(nativeRoute(small, "jpeg", "avif", 1600 * 1250, 50)).toBeNull();
    const single = await recodeImage(small, readHeader(small, "jpeg"), "avif");
    const before = await encodeImage(await decodeImage(small, readHeader(small, "jpeg")), "avif");
    expect(single.bytes).toEqual(before);
    expect(readHeifItems(single.bytes).items.size).toBe(1);

    const large = await encodeBaselineJpeg(scene(1602, 1250), 85);
    expect(nativeRoute(large, "jpeg", "avif", 1602 * 1250, 50)?.row.name).toBe("jpeg, png, still webp rows into avif cells");
    const grid = await recodeImage(large, readHeader(large, "jpeg"), "avif");
    const items = readHeifItems(grid.bytes);
    expect(items.items.get(items.primary)?.type).toBe("grid");
    expect(readAvifHeader(grid.bytes)).toEqual({ width: 1602, height: 1250 });
  }, 120_000);

  it("turns a JPEG by its EXIF orientation on the way: 2000x1100 shown as 1100x2000", async () => {
    const picture = scene(2000, 1100);
    const jpeg = withJpegSegments(await encodeBaselineJpeg(picture, 90), exifApp1(6));
    const out = await recodeImage(jpeg, readHeader(jpeg, "jpeg"), "avif");
    expect([out.width, out.height]).toEqual([1100, 2000]);
    const decoded = await decodeAvif(out.bytes);
    expect([decoded.width, decoded.height]).toEqual([1100, 2000]);
    expect(meanDiff(decoded, turnedClockwise(picture))).toBeLessThan(4);
  }, 120_000);

  it("takes an opaque PNG above the limit; one with alpha keeps the single image's limit, refused before the charge", async () => {
    const opaque = await encodeImage(scene(1800, 1200), "png");
    expect(nativeRoute(opaque, "png", "avif", 1800 * 1200, 50)).not.toBeNull();
    const alpha = await encodeImage(gradientWithAlpha(1800, 1200), "png");
    expect(nativeRoute(alpha, "png", "avif", 1800 * 1200, 50)).toBeNull();
    const refused = await pixelgateError(() => assertRecodable({ format: "png", width: 1800, height: 1200, bytes: alpha }, "avif", generalPrice("png", "avif", alpha.length, 1800 * 1200)));
    expect(refused.code).toBe("image_too_large");
  }, 60_000);
});

describe("the HEIC row into AVIF cells", () => {
  // The fixtures are small (the row is chosen above 2 MP only): its run is called as the route
  // table would call it, on each way a HEIC's rows are made.
  const row = ROUTE_ROWS.find((r) => r.name === "opaque heic planes into avif cells")!;
  const fixtures = {
    "a grid (our decoder's rows of tiles)": GRID_HEIC,
    "a grid turned by irot (columns of tiles, turned)": GRID_TURNED_HEIC,
    "a grid of odd sides turned by irot (libheif's planes)": GRID_ODD_TURNED_HEIC,
    "a single image": QUADRANTS_HEIC,
    "a single image turned by irot": TURNED_HEIC,
  };
  for (const [name, base64] of Object.entries(fixtures)) {
    it(`${name}: the AVIF shows the HEIC's own picture, upright`, async () => {
      const heic = bytesOfBase64(base64);
      const header = readHeader(heic, "heic");
      const facts = readRouteFacts(heic, "heic");
      const shown = { width: header.width, height: header.height };
      const out = await row.run({ bytes: heic, header, facts, target: "avif", quality: 50, shown });
      const decoded = await decodeAvif(out!.bytes);
      expect([decoded.width, decoded.height]).toEqual([header.width, header.height]);
      expect(meanDiff(decoded, await decodeImage(heic, header))).toBeLessThan(4);
    });
  }
});
