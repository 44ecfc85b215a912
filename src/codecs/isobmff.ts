// The HEIF container (ISO base media file format) that AVIF and HEIC share: the ftyp brands
// that tell them apart, and the primary image's size and turn, read from the boxes alone.

import { ByteReader, hasAscii, invalidImage } from "./bytes.ts";

/** The brands of the ftyp box (major and compatible), or [] when the file does not start with one. */
export function ftypBrands(bytes: Uint8Array): string[] {
  if (bytes.length < 16 || !hasAscii(bytes, 4, "ftyp")) return [];
  const size = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  if (size < 16 || size > bytes.length) return [];
  const brands: string[] = [];
  for (let offset = 8; offset + 4 <= size; offset += 4) {
    if (offset === 12) continue; // minor_version, not a brand
    brands.push(String.fromCharCode(...bytes.subarray(offset, offset + 4)));
  }
  return brands;
}

export interface Box {
  type: string;
  /** First byte after the box header. */
  start: number;
  end: number;
}

export function* boxes(r: ByteReader, label: string, start: number, end: number): Generator<Box> {
  for (let offset = start; offset + 8 <= end; ) {
    let size = r.u32(offset);
    const type = r.ascii(offset + 4, 4);
    let header = 8;
    if (size === 1) {
      size = r.u64(offset + 8);
      header = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    if (size < header || offset + size > end) throw invalidImage(`The ${label} box "${type}" overruns its container.`);
    yield { type, start: offset + header, end: offset + size };
    offset += size;
  }
}

export function child(r: ByteReader, label: string, parent: Box, type: string, fullBox = false): Box | undefined {
  for (const box of boxes(r, label, parent.start + (fullBox ? 4 : 0), parent.end)) if (box.type === type) return box;
  return undefined;
}

/** The auxiliary-type URNs of alpha planes: HEVC's, and the codec-independent one (MIAF). */
export const ALPHA_URNS = new Set(["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]);

/** An auxC box's type URN: its NUL-terminated string, read no further than any URN we know. */
export function auxiliaryType(r: ByteReader, box: Box): string {
  const length = Math.min(box.end - box.start - 4, 64);
  const text = length > 0 ? r.ascii(box.start + 4, length) : "";
  return text.split("\0")[0]!;
}

/** The item id a pitm box names. */
export function primaryItem(r: ByteReader, pitm: Box): number {
  return r.u8(pitm.start) === 0 ? r.u16(pitm.start + 4) : r.u32(pitm.start + 4);
}

/** Each item's properties (boxes of ipco, in `properties`), from an ipma box. */
export function itemAssociations(r: ByteReader, ipma: Box, properties: Box[]): Map<number, Box[]> {
  const version = r.u8(ipma.start);
  const wideIndex = (r.u8(ipma.start + 3) & 1) === 1;
  const items = new Map<number, Box[]>();
  let at = ipma.start + 4;
  const entries = r.u32(at);
  at += 4;
  for (let e = 0; e < entries; e++) {
    const item = version < 1 ? r.u16(at) : r.u32(at);
    at += version < 1 ? 2 : 4;
    const count = r.u8(at++);
    const associated: Box[] = [];
    for (let k = 0; k < count; k++) {
      const index = wideIndex ? r.u16(at) & 0x7fff : r.u8(at) & 0x7f;
      at += wideIndex ? 2 : 1;
      const property = properties[index - 1];
      if (property) associated.push(property);
    }
    items.set(item, associated);
  }
  return items;
}

/** The primary image's size as stored (`ispe`), and whether a 90 or 270 degree `irot` turns it. */
export interface PrimaryImage {
  width: number;
  height: number;
  quarterTurn: boolean;
  /** Its `colr` box of type nclx, when it has one: the YCbCr matrix (H.273 code) and range. */
  nclx?: { matrix: number; fullRange: boolean };
  /** Whether the file declares an alpha plane (an auxC property of an alpha auxiliary image). */
  alpha: boolean;
}

/**
 * The primary item's properties from meta/iprp/ipco, found through the ipma associations of
 * the item named by pitm (a file without pitm or ipma: the first ispe, no turn).
 */
export function readPrimaryImage(bytes: Uint8Array, label: string): PrimaryImage {
  const r = new ByteReader(bytes, false, label);
  const top: Box = { type: "file", start: 0, end: bytes.length };
  const meta = child(r, label, top, "meta");
  if (!meta) throw invalidImage(`The ${label} has no meta box.`);
  const iprp = child(r, label, meta, "iprp", true);
  const ipco = iprp && child(r, label, iprp, "ipco");
  if (!iprp || !ipco) throw invalidImage(`The ${label} has no item properties.`);
  const properties = [...boxes(r, label, ipco.start, ipco.end)];

  const pitm = child(r, label, meta, "pitm", true);
  const ipma = child(r, label, iprp, "ipma");
  const associated = pitm && ipma ? (itemAssociations(r, ipma, properties).get(primaryItem(r, pitm)) ?? []) : properties;
  const ispe = associated.find((p) => p.type === "ispe");
  if (!ispe) throw invalidImage(`The ${label} has no image size (ispe) for its primary image.`);
  const irot = associated.find((p) => p.type === "irot");
  const quarterTurn = irot !== undefined && (r.u8(irot.start) & 1) === 1;
  const alpha = properties.some((p) => p.type === "auxC" && ALPHA_URNS.has(auxiliaryType(r, p)));
  const image: PrimaryImage = { width: r.u32(ispe.start + 4), height: r.u32(ispe.start + 8), quarterTurn, alpha };
  // colour_type, primaries, transfer, matrix (u16 each), then the full-range flag's byte.
  const nclx = associated.find((p) => p.type === "colr" && p.end - p.start >= 11 && r.u32(p.start) === 0x6e636c78);
  if (nclx) image.nclx = { matrix: r.u16(nclx.start + 8), fullRange: (r.u8(nclx.start + 10) & 0x80) !== 0 };
  return image;
}
