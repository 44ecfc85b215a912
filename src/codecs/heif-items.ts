// The items of a HEIF file's meta box, read enough to decode a HEIC ourselves (heic-layout.ts):
// each item's type (iinf), properties (ipma), references (iref: a grid's tiles, an alpha
// plane's image) and where its data lies (iloc: file offsets, or the idat box).

import { ByteReader, concatBytes, invalidImage } from "./bytes.ts";
import { type Box, boxes, child, itemAssociations, primaryItem } from "./isobmff.ts";

const LABEL = "HEIC";

/**
 * At most this many extents for one item. Writers give an item one extent (libheif, phones);
 * a file listing 65,535 extents of one picture made the join of its data 2.3 GB.
 */
export const MAX_ITEM_EXTENTS = 64;

/** One extent of an item's data: `length` bytes at `offset` of the file (or of idat). */
interface Extent {
  offset: number;
  length: number;
}

export interface HeifItem {
  id: number;
  /** infe item_type: "hvc1" (a coded image), "grid", "iovl", "Exif", ... */
  type: string;
  properties: Box[];
  /** iloc construction method: 0 file offsets, 1 offsets into idat; others are not read. */
  method: number;
  extents: Extent[];
}

export interface HeifItems {
  reader: ByteReader;
  primary: number;
  items: Map<number, HeifItem>;
  /** iref entries: reference type, the item referring, the items referred to (in order). */
  references: { type: string; from: number; to: number[] }[];
  idat?: Box;
}

export function readHeifItems(bytes: Uint8Array): HeifItems {
  const r = new ByteReader(bytes, false, LABEL);
  const meta = child(r, LABEL, { type: "file", start: 0, end: bytes.length }, "meta");
  if (!meta) throw invalidImage("The HEIC has no meta box.");
  const find = (type: string) => child(r, LABEL, meta, type, true);
  const [pitm, iinf, iloc, iprp] = [find("pitm"), find("iinf"), find("iloc"), find("iprp")];
  const ipco = iprp && child(r, LABEL, iprp, "ipco");
  const ipma = iprp && child(r, LABEL, iprp, "ipma");
  if (!pitm || !iinf || !iloc || !ipco || !ipma) throw invalidImage("The HEIC's meta box lacks pitm, iinf, iloc or item properties.");
  const associations = itemAssociations(r, ipma, [...boxes(r, LABEL, ipco.start, ipco.end)]);
  const locations = itemLocations(r, iloc);
  const items = new Map<number, HeifItem>();
  for (const { id, type } of itemInfos(r, iinf)) {
    const location = locations.get(id) ?? { method: 0, extents: [] };
    items.set(id, { id, type, properties: associations.get(id) ?? [], ...location });
  }
  const iref = find("iref");
  const idat = find("idat");
  for (const item of items.values()) assertExtentsFit(item, item.method === 1 ? idat : { type: "file", start: 0, end: bytes.length });
  return { reader: r, primary: primaryItem(r, pitm), items, references: iref ? itemReferences(r, iref) : [], idat };
}

/**
 * An item's extents (at most MAX_ITEM_EXTENTS, itemLocations), checked before anything is
 * joined: each inside the file (or the idat box) it points into, and together no more bytes than
 * that holds, so an item's data is never larger than the file. Items located another way are
 * refused when read (itemData).
 */
function assertExtentsFit(item: HeifItem, base: Box | undefined): void {
  if (item.method > 1 || item.extents.length === 0) return;
  if (!base) throw invalidImage("The HEIC places an item in an idat box it does not have.");
  const room = base.end - base.start;
  let total = 0;
  for (const { offset, length } of item.extents) {
    const size = length === 0 ? room - offset : length; // 0: to the end
    if (offset > room || size < 0 || offset + size > room) throw invalidImage("The HEIC's item data lies past the end of the file.");
    total += size;
  }
  if (total > room) throw invalidImage("The HEIC's item data is larger than the file that holds it.");
}

/**
 * A grid item's ImageGrid descriptor: version, flags (bit 0: 32-bit sizes), rows - 1,
 * columns - 1, then the output width and height, the picture a decoder makes of the tiles.
 */
export function gridDescriptor(file: HeifItems, item: HeifItem): { rows: number; columns: number; width: number; height: number } {
  const grid = itemData(file, item);
  const wide = grid.length > 1 && (grid[1]! & 1) === 1;
  if (grid.length < (wide ? 12 : 8)) throw invalidImage("The HEIC's image grid is truncated.");
  const view = new DataView(grid.buffer, grid.byteOffset, grid.byteLength);
  return {
    rows: grid[2]! + 1,
    columns: grid[3]! + 1,
    width: wide ? view.getUint32(4) : view.getUint16(4),
    height: wide ? view.getUint32(8) : view.getUint16(6),
  };
}

/** An item's data as one array: a view of the file when it is one extent, joined otherwise. */
export function itemData(file: HeifItems, item: HeifItem): Uint8Array {
  if (item.method > 1) throw invalidImage("The HEIC locates an item's data in a way this reader does not follow.");
  const base = item.method === 1 ? file.idat : { start: 0, end: file.reader.length };
  if (!base) throw invalidImage("The HEIC places an item in an idat box it does not have.");
  // readHeifItems checked the extents (assertExtentsFit): the join is no larger than the file.
  const parts = item.extents.map(({ offset, length }) => file.reader.slice(base.start + offset, length === 0 ? base.end - base.start - offset : length));
  return concatBytes(parts.length ? parts : [new Uint8Array(0)]);
}

/** The infe entries of iinf: item id and type (version 2 and 3 entries; older ones have no type). */
function itemInfos(r: ByteReader, iinf: Box): { id: number; type: string }[] {
  const first = iinf.start + 4 + (r.u8(iinf.start) === 0 ? 2 : 4);
  const infos: { id: number; type: string }[] = [];
  for (const infe of boxes(r, LABEL, first, iinf.end)) {
    if (infe.type !== "infe") continue;
    const version = r.u8(infe.start);
    if (version < 2) continue;
    const wide = version >= 3;
    const id = wide ? r.u32(infe.start + 4) : r.u16(infe.start + 4);
    infos.push({ id, type: r.ascii(infe.start + (wide ? 10 : 8), 4) });
  }
  return infos;
}

/** An unsigned big-endian field of 0, 4 or 8 bytes (iloc's sizes). */
function sized(r: ByteReader, at: number, size: number): number {
  if (size === 0) return 0;
  if (size === 4) return r.u32(at);
  if (size === 8) return r.u64(at);
  throw invalidImage("The HEIC's iloc box uses a field size the format does not define.");
}

/** iloc: each item's construction method and extents (base offset folded in). */
function itemLocations(r: ByteReader, iloc: Box): Map<number, Omit<HeifItem, "id" | "type" | "properties">> {
  const version = r.u8(iloc.start);
  const sizes = r.u8(iloc.start + 4);
  const more = r.u8(iloc.start + 5);
  const [offsetSize, lengthSize, baseSize] = [sizes >> 4, sizes & 15, more >> 4];
  const indexSize = version >= 1 ? more & 15 : 0;
  let at = iloc.start + 6;
  const count = version < 2 ? r.u16(at) : r.u32(at);
  at += version < 2 ? 2 : 4;
  // Every field is read inside the box: an entry of empty fields still takes its id's bytes.
  const inside = (next: number) => {
    if (next > iloc.end) throw invalidImage("The HEIC's iloc box lists more than it holds.");
  };
  const locations = new Map<number, Omit<HeifItem, "id" | "type" | "properties">>();
  for (let i = 0; i < count; i++) {
    const id = version < 2 ? r.u16(at) : r.u32(at);
    at += version < 2 ? 2 : 4;
    const method = version >= 1 ? r.u16(at) & 15 : 0;
    at += version >= 1 ? 2 : 0;
    at += 2; // data_reference_index: 0, this file
    const base = sized(r, at, baseSize);
    at += baseSize;
    const extentCount = r.u16(at);
    at += 2;
    inside(at);
    // Extents of no bytes (offset and length sizes 0) would cost nothing to list 65,535 times.
    if (extentCount > MAX_ITEM_EXTENTS) throw invalidImage(`A HEIC item's data is in ${extentCount} pieces; at most ${MAX_ITEM_EXTENTS} are read.`);
    const extents: Extent[] = [];
    for (let e = 0; e < extentCount; e++) {
      at += indexSize;
      extents.push({ offset: base + sized(r, at, offsetSize), length: sized(r, at + offsetSize, lengthSize) });
      at += offsetSize + lengthSize;
    }
    inside(at);
    locations.set(id, { method, extents });
  }
  return locations;
}

/** iref's single-item reference boxes. */
function itemReferences(r: ByteReader, iref: Box): HeifItems["references"] {
  const wide = r.u8(iref.start) !== 0;
  const id = (at: number) => (wide ? r.u32(at) : r.u16(at));
  const step = wide ? 4 : 2;
  const references: HeifItems["references"] = [];
  for (const box of boxes(r, LABEL, iref.start + 4, iref.end)) {
    const count = r.u16(box.start + step);
    const to: number[] = [];
    for (let k = 0, at = box.start + step + 2; k < count; k++, at += step) to.push(id(at));
    references.push({ type: box.type, from: id(box.start), to });
  }
  return references;
}
