// Hostile HEIC files built from the small heif-enc fixtures (test/fixtures/heic.ts) with the
// HEIF writer (heif-writer.ts): the cases of the HEIC structure check (src/codecs/heic-structure.ts).
// Runtime-neutral, for the hostile corpus, the codec tests and the fuzz seeds.

import { concatBytes } from "../../src/codecs/bytes.ts";
import { readHeicLayout, type CodedTile } from "../../src/codecs/heic-layout.ts";
import { NAL_SPS, nalType } from "../../src/codecs/hevc-sps.ts";
import { GRID_HEIC, QUADRANTS_HEIC } from "../fixtures/heic.ts";
import { box, gridData, hvccBox, hvccUnits, ispeBox, lengthPrefixed, spsWithSize, writeHeif, type HeifItemSpec } from "./heif-writer.ts";

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** The one coded image of the quadrants file (64x64: heif-enc codes the 64x48 picture padded), and the first 64x64 tile of the grid file. */
function codedImages(): { single: CodedTile; tile: CodedTile } {
  const single = readHeicLayout(fromBase64(QUADRANTS_HEIC))!.image.tiles[0]!;
  const tile = readHeicLayout(fromBase64(GRID_HEIC))!.image.tiles[0]!;
  return { single, tile };
}

/**
 * The image's own parameter sets (VPS, SPS, PPS) as in-band NAL units, the SPS's picture size
 * rewritten to side x side: what an encoder repeating its parameter sets in band writes.
 */
function inBandSets(image: CodedTile, side: number): Uint8Array {
  return lengthPrefixed(...hvccUnits(image.hvcc).map((unit) => (nalType(unit) === NAL_SPS ? spsWithSize(unit, side, side) : unit)));
}

/** A single 64x64 image whose data is listed `extents` times over (the join is `extents` times the picture). */
export function heicManyExtents(extents: number): Uint8Array {
  const { single } = codedImages();
  return writeHeif({
    primary: 1,
    properties: [ispeBox(64, 64), hvccBox(single.hvcc)],
    items: [{ id: 1, type: "hvc1", properties: [1, 0x82], data: single.data(), extents }],
  });
}

/** A single 64x64 image (hvcC saying 64x64) whose data starts with its parameter sets again, the SPS saying side x side; `mirrored`: an imir property sends it to libheif. */
export function heicInBandSps(side: number, mirrored = false): Uint8Array {
  const { single } = codedImages();
  const data = concatBytes([inBandSets(single, side), single.data()]);
  const properties = [ispeBox(64, 64), hvccBox(single.hvcc), ...(mirrored ? [box("imir", new Uint8Array([0]))] : [])];
  return writeHeif({ primary: 1, properties, items: [{ id: 1, type: "hvc1", properties: mirrored ? [1, 0x82, 0x83] : [1, 0x82], data }] });
}

/**
 * A grid of rows x columns 64x64 tiles, all the grid fixture's first tile (one copy of its data
 * in the file); `bigSpsTile`: that tile's data carries its parameter sets in band, the SPS saying 8192x8192.
 */
export function heicGrid(rows: number, columns: number, bigSpsTile?: number): Uint8Array {
  const { tile } = codedImages();
  const data = tile.data();
  const big = bigSpsTile === undefined ? data : concatBytes([inBandSets(tile, 8192), data]);
  const [width, height] = [columns * 64, rows * 64];
  const tiles: HeifItemSpec[] = Array.from({ length: rows * columns }, (_, k) => ({ id: k + 2, type: "hvc1", hidden: true, properties: [2, 0x83], data: k === bigSpsTile ? big : data }));
  return writeHeif({
    primary: 1,
    properties: [ispeBox(width, height), ispeBox(64, 64), hvccBox(tile.hvcc)],
    items: [{ id: 1, type: "grid", properties: [1], data: gridData(rows, columns, width, height) }, ...tiles],
    references: [{ type: "dimg", from: 1, to: tiles.map((t) => t.id) }],
  });
}
