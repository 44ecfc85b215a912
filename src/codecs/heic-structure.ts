// What a HEIC's header size does not cover but its boxes decide, checked before the charge and
// before either decoder (our own, native/hevc/hevc_tile.cc, or libheif) sees the file:
// - every item's data extents fit the file (heif-items.ts readHeifItems);
// - a grid has at most MAX_HEIC_GRID_TILES tiles (each tile is one decoder run);
// - every coded image's sequence parameter sets, in its hvcC box and in band among its NAL
//   units, declare a picture no larger than the item's ispe (give or take the coding blocks a
//   conformance window crops): the decoder allocates what the SPS says, and a 64x64 item
//   carrying a 16384x16384 SPS made libheif decode 268 MP.

import { invalidImage } from "./bytes.ts";
import { gridDescriptor, type HeifItem, type HeifItems, itemData, readHeifItems } from "./heif-items.ts";
import { NAL_SPS, nalType, readSpsSize } from "./hevc-sps.ts";

/**
 * At most this many tiles in one grid. Phones write 512x512 tiles (a 12 MP photo: 48, 48 MP:
 * 192), and the HEIC pixel limit in 256x256 tiles is under 256. Every tile is a decoder run of
 * its own: a 60x60 grid of 64x64 tiles, within the pixel limit, took 10 s a call. At this limit
 * a grid of 64x64 tiles to WebP took 4.1 s on a busy 2-core machine (docs/codecs.md).
 */
export const MAX_HEIC_GRID_TILES = 256;

/**
 * Coded pictures are whole minimum coding blocks (at most 64 luma samples) that a conformance
 * window may crop: an SPS may exceed the declared size by less than this (as hevc_tile.cc allows).
 */
const CODED_MARGIN = 64;

/** Throws invalid_image for the cases above. */
export function assertHeicDecodable(bytes: Uint8Array): void {
  const file = readHeifItems(bytes);
  const primary = file.items.get(file.primary);
  const fallback = primary && ispeOf(file, primary);
  for (const item of file.items.values()) {
    if (item.type === "grid") assertGridTiles(file, item);
    if (item.type === "hvc1") assertParameterSetsFit(file, item, ispeOf(file, item) ?? fallback);
  }
}

function ispeOf(file: HeifItems, item: HeifItem): { width: number; height: number } | undefined {
  const ispe = item.properties.find((p) => p.type === "ispe");
  return ispe && { width: file.reader.u32(ispe.start + 4), height: file.reader.u32(ispe.start + 8) };
}

function assertGridTiles(file: HeifItems, item: HeifItem): void {
  const { rows, columns, width, height } = gridDescriptor(file, item);
  const tiles = rows * columns;
  if (tiles > MAX_HEIC_GRID_TILES) {
    throw invalidImage(`The HEIC's image grid has ${tiles} tiles (${columns} x ${rows}); at most ${MAX_HEIC_GRID_TILES} are decoded.`);
  }
  // The picture a decoder makes is the descriptor's (libheif follows it); the pixel limits were
  // checked against the ispe.
  const declared = ispeOf(file, item);
  if (declared && (declared.width !== width || declared.height !== height)) {
    throw invalidImage(`The HEIC's image grid makes a ${width}x${height} picture where its ispe declares ${declared.width}x${declared.height}.`);
  }
}

/** Each SPS of a coded image, from its hvcC box and its data, within its declared size. */
function assertParameterSetsFit(file: HeifItems, item: HeifItem, declared: { width: number; height: number } | undefined): void {
  const hvcC = item.properties.find((p) => p.type === "hvcC");
  if (!hvcC) return; // no decoder configuration: neither decoder runs it
  const r = file.reader;
  if (hvcC.end - hvcC.start < 23) throw invalidImage("The HEIC's hvcC box is truncated.");
  const check = (unit: Uint8Array) => {
    if (nalType(unit) !== NAL_SPS) return;
    const sps = readSpsSize(unit);
    if (!declared || sps.width > declared.width + CODED_MARGIN || sps.height > declared.height + CODED_MARGIN) {
      const size = declared ? `${declared.width}x${declared.height}` : "no size";
      throw invalidImage(`The HEIC's HEVC parameter set declares a ${sps.width}x${sps.height} picture for an image of ${size}.`);
    }
  };
  // hvcC arrays: type byte, NAL unit count (16 bits), each unit with a 16-bit length.
  for (let a = 0, arrays = r.u8(hvcC.start + 22), at = hvcC.start + 23; a < arrays; a++) {
    const count = r.u16(at + 1);
    at += 3;
    for (let n = 0; n < count; n++) {
      const length = r.u16(at);
      if (at + 2 + length > hvcC.end) throw invalidImage("The HEIC's hvcC box lists more than it holds.");
      check(r.slice(at + 2, length));
      at += 2 + length;
    }
  }
  // The data: NAL units, each after a big-endian length of lengthSizeMinusOne + 1 bytes.
  const lengthSize = (r.u8(hvcC.start + 21) & 3) + 1;
  const data = itemData(file, item);
  for (let at = 0; at < data.length; ) {
    if (lengthSize === 3 || at + lengthSize > data.length) throw invalidImage("The HEIC's HEVC data is truncated.");
    let length = 0;
    for (let k = 0; k < lengthSize; k++) length = length * 256 + data[at + k]!;
    at += lengthSize;
    if (length > data.length - at) throw invalidImage("The HEIC's HEVC data is truncated.");
    check(data.subarray(at, at + length));
    at += length;
  }
}
