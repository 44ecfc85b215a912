// A grid AVIF (HEIF `grid` derived image item, ISO/IEC 23008-12 6.6.2.3; MIAF; AV1 in HEIF):
// the picture stored as equal cells, each its own AV1 image item, and a `grid` item that names
// them in order (iref dimg) and the size the reconstructed picture is cropped to. libheif,
// libavif (Chromium, Firefox) and Apple's readers all show it as one image. avif-cells.ts
// encodes the cells one at a time as single-image AVIFs; this module takes each one's AV1
// payload and its properties (av1C, pixi, colr) and writes the container around them.
//
// Layout written: ftyp (the cells' own), meta [hdlr, pitm, iloc, iinf, iref, iprp [ipco, ipma]],
// mdat [the grid's description, then each cell's AV1 data]. Item 1 is the grid, the primary
// item; items 2.. are the cells, row by row, hidden (infe flag 1) so that readers show the
// grid only. The cells' identical properties are stored once.

import { ByteReader, concatBytes, invalidImage } from "./bytes.ts";
import { type Box, child } from "./isobmff.ts";
import { itemData, readHeifItems } from "./heif-items.ts";

/** One cell, as avif-cells.ts made it: its AV1 data and the properties its AVIF gave it. */
export interface AvifCell {
  /** The AV1 image item's data: a sequence header and a frame (OBUs). */
  payload: Uint8Array;
  /** Property boxes, whole (header included), in the order the cell's AVIF associated them. */
  properties: AvifProperty[];
}

export interface AvifProperty {
  type: string;
  box: Uint8Array;
  essential: boolean;
}

/** What a cell's own AVIF holds besides the picture: its ftyp and hdlr, kept for the grid. */
export interface AvifHead {
  ftyp: Uint8Array;
  hdlr: Uint8Array;
}

const LABEL = "AVIF";

/** The primary item of a single-image AVIF (libavif's output): its data, properties, ftyp and hdlr. */
export function readAvifCell(file: Uint8Array): AvifCell & AvifHead {
  const items = readHeifItems(file);
  const item = items.items.get(items.primary);
  if (!item || item.type !== "av01") throw invalidImage("The AVIF encoder's output has no AV1 primary image.");
  const r = new ByteReader(file, false, LABEL);
  const top: Box = { type: "file", start: 0, end: file.length };
  const ftyp = child(r, LABEL, top, "ftyp");
  const meta = child(r, LABEL, top, "meta");
  const hdlr = meta && child(r, LABEL, meta, "hdlr", true);
  if (!ftyp || !hdlr) throw invalidImage("The AVIF encoder's output has no ftyp or hdlr box.");
  const whole = (box: Box) => file.slice(box.start - 8, box.end);
  const properties = item.properties.map((box) => ({ type: box.type, box: whole(box), essential: ESSENTIAL.has(box.type) }));
  return { payload: itemData(items, item).slice(), properties, ftyp: whole(ftyp), hdlr: whole(hdlr) };
}

/** Properties a reader must understand to show the item (ipma's essential flag). */
const ESSENTIAL = new Set(["av1C", "a1op", "lsel"]);

/** Properties of a coded picture only, not of the grid made of them. */
const CELL_ONLY = new Set(["av1C", "a1op", "a1lx", "lsel", "ispe"]);

export interface GridShape {
  /** The picture's size: the grid is cropped to it. */
  width: number;
  height: number;
  columns: number;
  rows: number;
}

/**
 * The grid AVIF of `cells` (row by row, all of one size, at most 256 x 256 of them), cropped to
 * `shape`'s size, as the pieces it is sent in: the header, then each cell's data as it is.
 */
export function writeGridAvif(head: AvifHead, shape: GridShape, cells: readonly AvifCell[]): Uint8Array[] {
  const { width, height, columns, rows } = shape;
  if (cells.length !== columns * rows || columns > 256 || rows > 256 || cells.length === 0) throw new Error(`A grid of ${columns}x${rows} cannot hold ${cells.length} cells.`);
  const wide = width > 0xffff || height > 0xffff;
  const gridData = concatBytes([u8(0), u8(wide ? 1 : 0), u8(rows - 1), u8(columns - 1), wide ? u32(width) : u16(width), wide ? u32(height) : u16(height)]);

  // Properties: each distinct box once; the grid's are the first cell's that describe the
  // picture (colour, pixel depth), and its own size.
  const ipco: Uint8Array[] = [];
  const indexOf = new Map<string, number>();
  const property = (box: Uint8Array): number => {
    const key = hex(box);
    let index = indexOf.get(key);
    if (index === undefined) {
      ipco.push(box);
      index = ipco.length;
      indexOf.set(key, index);
    }
    return index;
  };
  const associations: [item: number, [index: number, essential: boolean][]][] = [];
  const gridProperties: [number, boolean][] = [[property(ispe(width, height)), false]];
  for (const p of cells[0]!.properties) if (!CELL_ONLY.has(p.type)) gridProperties.push([property(p.box), p.essential]);
  associations.push([GRID_ID, gridProperties]);
  cells.forEach((cell, k) => associations.push([GRID_ID + 1 + k, cell.properties.map((p) => [property(p.box), p.essential])]));

  const ids = [GRID_ID, ...cells.map((_, k) => GRID_ID + 1 + k)];
  const lengths = [gridData.length, ...cells.map((cell) => cell.payload.length)];
  const infe = (id: number, type: string, hidden: boolean) => fullBox("infe", 2, hidden ? 1 : 0, [u16(id), u16(0), ascii(type), u8(0)]);
  const iinf = fullBox("iinf", 0, 0, [u16(ids.length), infe(GRID_ID, "grid", false), ...cells.map((_, k) => infe(GRID_ID + 1 + k, "av01", true))]);
  const iref = fullBox("iref", 0, 0, [box("dimg", [u16(GRID_ID), u16(cells.length), ...cells.map((_, k) => u16(GRID_ID + 1 + k))])]);
  const wideIndex = ipco.length > 127;
  const ipma = fullBox("ipma", 0, wideIndex ? 1 : 0, [
    u32(associations.length),
    ...associations.flatMap(([item, list]) => [u16(item), u8(list.length), ...list.map(([index, essential]) => (wideIndex ? u16((essential ? 0x8000 : 0) | index) : u8((essential ? 0x80 : 0) | index)))]),
  ]);
  const iprp = box("iprp", [box("ipco", ipco), ipma]);
  const pitm = fullBox("pitm", 0, 0, [u16(GRID_ID)]);
  // iloc's offsets depend on the meta box's size, which does not depend on them (fixed 4-byte fields).
  const iloc = (dataStart: number) => {
    let offset = dataStart;
    const entries = ids.map((id, k) => {
      const entry = concatBytes([u16(id), u16(0), u16(1), u32(offset), u32(lengths[k]!)]);
      offset += lengths[k]!;
      return entry;
    });
    return fullBox("iloc", 0, 0, [u8(0x44), u8(0x00), u16(ids.length), ...entries]);
  };
  const meta = (dataStart: number) => fullBox("meta", 0, 0, [head.hdlr, pitm, iloc(dataStart), iinf, iref, iprp]);
  const mdatSize = 8 + lengths.reduce((sum, n) => sum + n, 0);
  const before = head.ftyp.length + meta(0).length;
  const mdatHeader = concatBytes([u32(mdatSize), ascii("mdat")]); // the cells of a 24 MP picture: far under 4 GB
  const header = concatBytes([head.ftyp, meta(before + mdatHeader.length), mdatHeader, gridData]);
  return [header, ...cells.map((cell) => cell.payload)];
}

const GRID_ID = 1;

function ispe(width: number, height: number): Uint8Array {
  return fullBox("ispe", 0, 0, [u32(width), u32(height)]);
}

function box(type: string, parts: Uint8Array[]): Uint8Array {
  const body = concatBytes(parts);
  return concatBytes([u32(8 + body.length), ascii(type), body]);
}

function fullBox(type: string, version: number, flags: number, parts: Uint8Array[]): Uint8Array {
  return box(type, [u8(version), u8(flags >> 16), u8(flags >> 8), u8(flags), ...parts]);
}

const u8 = (v: number) => Uint8Array.of(v & 0xff);
const u16 = (v: number) => Uint8Array.of((v >> 8) & 0xff, v & 0xff);
const u32 = (v: number) => Uint8Array.of((v >>> 24) & 0xff, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
