// The HEIC structure check (src/codecs/heic-structure.ts, run before the charge): item extents,
// grid tiles and HEVC parameter sets, on files the HEIF writer builds from the heif-enc fixtures.

import { describe, expect, it } from "vitest";
import { assertSafeToDecode, decodeImage, readHeader, recodeImage } from "../../src/codecs/index.ts";
import { readHeicLayout } from "../../src/codecs/heic-layout.ts";
import { MAX_HEIC_GRID_TILES } from "../../src/codecs/heic-structure.ts";
import { HevcDecoder } from "../../src/codecs/hevc.ts";
import { MAX_ITEM_EXTENTS } from "../../src/codecs/heif-items.ts";
import { readSpsSize } from "../../src/codecs/hevc-sps.ts";
import { heicGrid, heicInBandSps, heicManyExtents } from "../support/heic-hostile.ts";
import { spsWithSize } from "../support/heif-writer.ts";
import { GRID_ISPE_SHORT_HEIC } from "../fixtures/heic.ts";
import { bytesOfBase64 } from "../support/tool-calls.ts";
import { pixelgateError } from "./support.ts";

function check(bytes: Uint8Array): void {
  assertSafeToDecode(bytes, readHeader(bytes, "heic"));
}

describe("HEIC structure before the charge", () => {
  it("the writer's files are valid HEICs: one extent, a 2x2 grid, both decode", async () => {
    for (const bytes of [heicManyExtents(1), heicGrid(2, 2)]) {
      check(bytes);
      const header = readHeader(bytes, "heic");
      const image = await decodeImage(bytes, header);
      expect([image.width, image.height]).toEqual([header.width, header.height]);
      expect((await recodeImage(bytes, header, "webp")).width).toBe(header.width);
    }
  });

  it(`an item in more than ${MAX_ITEM_EXTENTS} extents, or in extents holding more bytes than the file, is refused`, async () => {
    for (const extents of [65_535, 600, MAX_ITEM_EXTENTS + 1, MAX_ITEM_EXTENTS]) {
      const bytes = heicManyExtents(extents);
      expect((await pixelgateError(() => check(bytes))).code, `${extents} extents`).toBe("invalid_image");
    }
  });

  it("an SPS rewritten by the writer keeps its fields: the new size reads back", () => {
    const sps = spsWithSize(new Uint8Array([0x42, 0x01, 0x01, 0x01, 0x60, 0, 0, 0x03, 0, 0xb0, 0, 0, 0x03, 0, 0, 0x03, 0, 0x5d, 0xa0, 0x02, 0x00, 0x80, 0x30, 0x16, 0x20]), 16_384, 8192);
    expect(readSpsSize(sps)).toMatchObject({ width: 16_384, height: 8192 });
  });

  it("an SPS in band larger than the item's ispe is refused, on our path and on libheif's (imir)", async () => {
    for (const [name, bytes] of [
      ["8192 in band", heicInBandSps(8192)],
      ["16384 in band, mirrored", heicInBandSps(16_384, true)],
      ["one grid tile with 8192 in band", heicGrid(2, 2, 3)],
    ] as const) {
      const error = await pixelgateError(() => check(bytes));
      expect({ name, code: error.code }).toEqual({ name, code: "invalid_image" });
      expect(error.message).toMatch(/parameter set declares a 8192x8192|16384x16384/);
    }
  });

  it("a grid whose descriptor makes another picture than its ispe declares is refused (the fuzz's finding, on libheif's path)", async () => {
    const bytes = bytesOfBase64(GRID_ISPE_SHORT_HEIC);
    expect(readHeader(bytes, "heic")).toMatchObject({ width: 64, height: 16 });
    const error = await pixelgateError(() => check(bytes));
    expect(error.code).toBe("invalid_image");
    expect(error.message).toMatch(/makes a 64x48 picture where its ispe declares 64x16/);
  });

  it(`a grid of more than ${MAX_HEIC_GRID_TILES} tiles is refused; ${MAX_HEIC_GRID_TILES} pass`, async () => {
    expect((await pixelgateError(() => check(heicGrid(60, 60)))).code).toBe("invalid_image");
    expect((await pixelgateError(() => check(heicGrid(16, 17)))).message).toMatch(/272 tiles/);
    expect(() => check(heicGrid(16, 16))).not.toThrow();
  });
});

describe("the decoders' own guards, behind the structure check", () => {
  it("our HEVC decoder refuses an SPS in the item's data larger than the declared size, before decoding a slice", async () => {
    const bytes = heicInBandSps(8192);
    const tile = readHeicLayout(bytes)!.image.tiles[0]!;
    const decoder = new HevcDecoder();
    try {
      expect((await pixelgateError(() => decoder.decode(tile.hvcc, tile.data(), 64, 64))).code).toBe("invalid_image");
      // The same data without the extra SPS decodes at its size.
      const plain = readHeicLayout(heicInBandSps(64))!.image.tiles[0]!;
      expect(decoder.decode(plain.hvcc, plain.data(), 64, 64).planes[0]).toMatchObject({ width: 64, height: 64 });
    } finally {
      decoder.release();
    }
  });
});
