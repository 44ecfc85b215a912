// HEIC decoded by our own HEVC module (libde265: src/codecs/hevc.ts) a row of tiles at a time,
// against libheif's decode of the same files (heic.ts), which the fallback path still uses.

import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { decodeHeic, decodeHeicPlanes } from "../../src/codecs/heic.ts";
import { decodeImage, readHeader, recodeImage } from "../../src/codecs/index.ts";
import { nativeRoute } from "../../src/codecs/recode-route.ts";
import { readHeicLayout } from "../../src/codecs/heic-layout.ts";
import { heicStrips } from "../../src/codecs/heic-tiles.ts";
import { HevcDecoder } from "../../src/codecs/hevc.ts";
import type { PlaneStrip, SamplePlane, YCbCrImage } from "../../src/codecs/native.ts";
import { meanDiff } from "./support.ts";
import type { RasterImage } from "../../src/codecs/formats.ts";
import { ALPHA_HEIC, GRID_ALPHA_HEIC, GRID_HEIC, GRID_TURNED_HEIC, PHOTO_12MP_HEIC, QUADRANTS_HEIC, TEN_BIT_HEIC, TURNED_HEIC } from "../fixtures/heic.ts";

const bytesOf = (base64: string) => new Uint8Array(Buffer.from(base64, "base64"));

/** The file with its irot angle (quarter turns anticlockwise) rewritten. */
function withTurns(base64: string, turns: number): string {
  const bytes = Buffer.from(base64, "base64");
  bytes[bytes.indexOf("irot") + 4] = turns;
  return bytes.toString("base64");
}
const BT601_FULL = { kr: 0.299, kb: 0.114, fullRange: true };

/** The largest difference between our strips and libheif's planes, over every sample of `plane`. */
function largestDifference(strips: PlaneStrip[], reference: YCbCrImage, plane: "y" | "cb" | "cr" | "alpha"): number {
  const chroma = plane === "cb" || plane === "cr";
  const width = chroma ? (reference.width + 1) >> 1 : reference.width;
  const theirs = reference[plane] as SamplePlane;
  let largest = 0;
  let top = 0;
  for (const strip of strips) {
    const ours = strip[plane] as SamplePlane;
    const rows = chroma ? (strip.height + 1) >> 1 : strip.height;
    for (let y = 0; y < rows; y++) {
      for (let x = 0; x < width; x++) largest = Math.max(largest, Math.abs(ours.data[y * ours.stride + x]! - theirs.data[(top + y) * theirs.stride + x]!));
    }
    top += rows;
  }
  expect(top).toBe(chroma ? (reference.height + 1) >> 1 : reference.height);
  return largest;
}

/** The largest difference of alpha between two pictures of the same size (WebP keeps alpha losslessly). */
function largestAlphaDifference(a: RasterImage, b: RasterImage): number {
  let largest = 0;
  for (let i = 3; i < a.data.length; i += 4) largest = Math.max(largest, Math.abs(a.data[i]! - b.data[i]!));
  return largest;
}

/** Our strips, each copied (a lent strip is only valid until the next one). */
function decodeStrips(bytes: Uint8Array): PlaneStrip[] {
  const layout = readHeicLayout(bytes);
  if (!layout) throw new Error("the layout was left to libheif");
  const decoder = new HevcDecoder();
  const copy = (p: SamplePlane | undefined) => p && { data: p.data.slice(), stride: p.stride };
  const strips: PlaneStrip[] = [];
  for (const s of heicStrips(decoder, layout)) strips.push({ height: s.height, y: copy(s.y)!, cb: copy(s.cb)!, cr: copy(s.cr)!, alpha: copy(s.alpha) });
  return strips;
}

describe("HEIC through our HEVC decoder", () => {
  const colourCases = [
    ["decodes a single-image HEIC to libheif's samples (within a step of rounding)", QUADRANTS_HEIC],
    ["rounds 10-bit samples to 8 bits the way the libheif path does", TEN_BIT_HEIC],
  ] as const;
  for (const [what, base64] of colourCases) {
    it(what, async () => {
      const bytes = bytesOf(base64);
      const reference = await decodeHeicPlanes(bytes, 1_000_000, BT601_FULL);
      const strips = decodeStrips(bytes);
      for (const plane of ["y", "cb", "cr"] as const) expect(largestDifference(strips, reference, plane), plane).toBeLessThanOrEqual(2);
    });
  }

  it("decodes Debian's own libde265's samples, byte for byte (a 12 MP image's SAO filter a row of CTBs at a time; 10 bits)", async () => {
    // SHA-256 of the planes Debian's libde265-dec265 writes for each fixture's bitstream
    // (node scripts/hevc-reference.ts): Y, Cb, Cr, rows packed, 2 bytes a sample above 8 bits.
    const reference = {
      QUADRANTS_HEIC: "047a833abb9e8ef677c928bda32f8775a580c65d16ca0d8808110745ba26fb96",
      TEN_BIT_HEIC: "53c5a77cb155653084d6b14d7249b61dc576ef8fb3bf5d1ddc02d4cae73a5a61",
      PHOTO_12MP_HEIC: "e0e3e45b7f65d3df43d06bf48b70a9480658d56efba1f73463efc86f580b8ff5",
    };
    const fixtures = { QUADRANTS_HEIC, TEN_BIT_HEIC, PHOTO_12MP_HEIC };
    for (const [name, digest] of Object.entries(reference)) {
      const { image } = readHeicLayout(bytesOf(fixtures[name as keyof typeof fixtures]))!;
      const tile = image.tiles[0]!;
      const decoder = new HevcDecoder();
      const picture = decoder.decode(tile.hvcc, tile.data(), image.tileWidth, image.tileHeight);
      const rows = picture.planes.flatMap(({ data, stride, width, height, bits }) => Array.from({ length: height }, (_, y) => data.slice(y * stride, y * stride + width * (bits > 8 ? 2 : 1))));
      decoder.release();
      const packed = new Uint8Array(rows.reduce((n, row) => n + row.length, 0));
      rows.reduce((at, row) => (packed.set(row, at), at + row.length), 0);
      expect(Buffer.from(await crypto.subtle.digest("SHA-256", packed)).toString("hex"), name).toBe(digest);
    }
  }, 60_000);

  it("decodes the alpha plane's own image alongside", async () => {
    const bytes = bytesOf(ALPHA_HEIC);
    expect(readHeicLayout(bytes)?.alpha).toBeDefined();
    const reference = await decodeHeicPlanes(bytes, 1_000_000, BT601_FULL);
    expect(largestDifference(decodeStrips(bytes), reference, "alpha")).toBeLessThanOrEqual(2);
  });

  it("decodes a grid a row of tiles at a time, cut to the grid's output size", async () => {
    const bytes = bytesOf(GRID_HEIC);
    const layout = readHeicLayout(bytes)!;
    expect({ ...layout.image, tiles: layout.image.tiles.length }).toEqual({ width: 120, height: 100, columns: 2, rows: 2, tileWidth: 64, tileHeight: 64, tiles: 4 });
    const reference = await decodeHeicPlanes(bytes, 1_000_000, BT601_FULL);
    const strips = decodeStrips(bytes);
    expect(strips.map((s) => s.height)).toEqual([64, 36]);
    for (const plane of ["y", "cb", "cr"] as const) expect(largestDifference(strips, reference, plane), plane).toBeLessThanOrEqual(2);
  });

  it("decodes a grid's alpha grid tile by tile with the colour", async () => {
    const bytes = bytesOf(GRID_ALPHA_HEIC);
    const reference = await decodeHeicPlanes(bytes, 1_000_000, BT601_FULL);
    expect(reference.alpha).toBeDefined();
    const strips = decodeStrips(bytes);
    expect(largestDifference(strips, reference, "alpha")).toBeLessThanOrEqual(2);
    expect(largestDifference(strips, reference, "y")).toBeLessThanOrEqual(2);
  });

  it("reads a grid's irot as quarter turns", () => {
    expect(readHeicLayout(bytesOf(GRID_TURNED_HEIC))?.turns).toBe(1);
  });

  describe("recoded as WebP, JPEG and PNG, against libheif's RGB decode", () => {
    const cases = [
      ["a grid", GRID_HEIC, 4, [120, 100]],
      ["a grid turned by irot (a quarter anticlockwise)", GRID_TURNED_HEIC, 4, [100, 120]],
      ["a grid turned by irot (a half)", withTurns(GRID_TURNED_HEIC, 2), 4, [120, 100]],
      ["a grid turned by irot (a quarter clockwise)", withTurns(GRID_TURNED_HEIC, 3), 4, [100, 120]],
      ["a single image turned by irot", TURNED_HEIC, 1, [48, 64]],
      ["a grid with alpha", GRID_ALPHA_HEIC, 4, [120, 100]],
    ] as const;
    // PNG: the whole planes joined from our tiles, read by the PNG writer.
    for (const target of ["webp", "jpeg", "png"] as const) {
      for (const [what, base64, tiles, size] of cases) {
        it(`${what} to ${target} takes our tiles and shows libheif's picture`, async () => {
          const bytes = bytesOf(base64);
          const header = readHeader(bytes, "heic");
          const route = nativeRoute(bytes, "heic", target, header.width * header.height, 95);
          expect(route?.input === "heic" && route.tiles?.image.tiles.length).toBe(tiles);
          const out = await recodeImage(bytes, header, target, { quality: 95 });
          expect([out.width, out.height]).toEqual(size);
          const ours = await decodeImage(out.bytes, readHeader(out.bytes, target));
          const theirs = await decodeHeic(bytes, 1_000_000);
          // JPEG has no alpha: compare where libheif's picture is opaque, and (WebP) the alpha too.
          const opaque = (x: number, y: number) => theirs.data[(y * theirs.width + x) * 4 + 3] === 255;
          // The existing HEIC tests allow 24 per channel at a quadrant's centre; over the whole
          // gradient picture, lossy encoding at quality 95 stays within a few steps on average.
          expect(meanDiff(ours, theirs, opaque)).toBeLessThan(4);
          if (target !== "jpeg") expect(largestAlphaDifference(ours, theirs)).toBeLessThanOrEqual(2);
        });
      }
    }
  });
});
