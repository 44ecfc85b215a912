// HEIF files written from a description (items, properties, references), for the hostile corpus
// and the fuzz seeds: layouts no encoder writes on purpose (an item in thousands of extents, a
// grid of thousands of tiles, a parameter set in band that disagrees with the box). Runtime-
// neutral (web-standard APIs only), so the corpus builds it inside workerd too.
//
// Layout: ftyp, meta (hdlr, pitm, iinf of version 2 infe boxes, iref, iprp with ipco and a
// version 0 ipma, iloc version 1 with 4-byte offsets and lengths), then one mdat holding each
// distinct data array once; items given the same array share its bytes.

import { concatBytes } from "../../src/codecs/bytes.ts";
import { readSpsSize, rbspOf } from "../../src/codecs/hevc-sps.ts";

export interface HeifItemSpec {
  id: number;
  /** infe item_type: hvc1, grid, ... */
  type: string;
  hidden?: boolean;
  /** Indices into `properties`, from 1; the essential bit (0x80) may be set. */
  properties: number[];
  data: Uint8Array;
  /** The data listed this many times over as extents (default 1). */
  extents?: number;
}

export interface HeifSpec {
  primary: number;
  /** Whole boxes (header included), numbered from 1 in the ipma. */
  properties: Uint8Array[];
  items: HeifItemSpec[];
  references?: { type: string; from: number; to: number[] }[];
}

const encoder = new TextEncoder();

const join = concatBytes;

function be(bytes: number, ...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * bytes);
  values.forEach((v, k) => {
    for (let b = 0; b < bytes; b++) out[k * bytes + b] = Math.floor(v / 256 ** (bytes - 1 - b)) & 255;
  });
  return out;
}

export const u16 = (...values: number[]) => be(2, ...values);
export const u32 = (...values: number[]) => be(4, ...values);

export function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const body = join(parts);
  return join([u32(body.length + 8), encoder.encode(type), body]);
}

export function fullBox(type: string, version: number, flags: number, ...parts: Uint8Array[]): Uint8Array {
  return box(type, new Uint8Array([version, flags >> 16, (flags >> 8) & 255, flags & 255]), ...parts);
}

export const ispeBox = (width: number, height: number) => fullBox("ispe", 0, 0, u32(width, height));
/** An hvcC property from its body (configurationVersion on), as heic-layout.ts's CodedTile holds it. */
export const hvccBox = (body: Uint8Array) => box("hvcC", body);
/** ImageGrid item data: rows and columns (1 to 256), output size in 16 bits. */
export const gridData = (rows: number, columns: number, width: number, height: number) => join([new Uint8Array([0, 0, rows - 1, columns - 1]), u16(width, height)]);

export function writeHeif(spec: HeifSpec): Uint8Array {
  const stored: Uint8Array[] = [];
  const where = new Map<Uint8Array, number>();
  let size = 0;
  for (const item of spec.items) {
    if (where.has(item.data)) continue;
    where.set(item.data, size);
    stored.push(item.data);
    size += item.data.length;
  }
  const infe = (item: HeifItemSpec) => fullBox("infe", 2, item.hidden ? 1 : 0, u16(item.id, 0), encoder.encode(`${item.type}\0`));
  const ipma = fullBox(
    "ipma",
    0,
    0,
    u32(spec.items.length),
    ...spec.items.map((item) => join([u16(item.id), new Uint8Array([item.properties.length, ...item.properties])])),
  );
  const references = (spec.references ?? []).map((ref) => box(ref.type, u16(ref.from, ref.to.length, ...ref.to)));
  const meta = (dataStart: number) => {
    const locations = spec.items.map((item) => {
      const extent = u32(dataStart + where.get(item.data)!, item.data.length);
      const copies = item.extents ?? 1;
      return join([u16(item.id, 0, 0, copies), ...Array<Uint8Array>(copies).fill(extent)]);
    });
    return fullBox(
      "meta",
      0,
      0,
      fullBox("hdlr", 0, 0, u32(0), encoder.encode("pict"), u32(0, 0, 0), new Uint8Array(1)),
      fullBox("pitm", 0, 0, u16(spec.primary)),
      fullBox("iinf", 0, 0, u16(spec.items.length), ...spec.items.map(infe)),
      ...(references.length ? [fullBox("iref", 0, 0, ...references)] : []),
      box("iprp", box("ipco", ...spec.properties), ipma),
      fullBox("iloc", 1, 0, new Uint8Array([0x44, 0x00]), u16(spec.items.length), ...locations),
    );
  };
  const ftyp = box("ftyp", encoder.encode("heic"), u32(0), encoder.encode("mif1heic"));
  const dataStart = ftyp.length + meta(0).length + 8;
  return join([ftyp, meta(dataStart), box("mdat", ...stored)]);
}

/** The SPS NAL unit `sps` with its coded picture size rewritten (its other fields kept, bit for bit). */
export function spsWithSize(sps: Uint8Array, width: number, height: number): Uint8Array {
  const rbsp = rbspOf(sps, Infinity);
  const bits: number[] = [];
  for (let i = 0; i < rbsp.length * 8; i++) bits.push((rbsp[i >> 3]! >> (7 - (i & 7))) & 1);
  // The stop bit and the alignment zeros after it are written again for the new length.
  while (bits.length && bits.at(-1) === 0) bits.pop();
  bits.pop();
  const ue = (value: number) => {
    const code = (value + 1).toString(2);
    return [...Array<number>(code.length - 1).fill(0), ...[...code].map(Number)];
  };
  const { sizeBits } = readSpsSize(sps);
  const out = [...bits.slice(0, sizeBits[0]), ...ue(width), ...ue(height), ...bits.slice(sizeBits[1]), 1];
  while (out.length % 8) out.push(0);
  const payload: number[] = [];
  let zeros = 0;
  for (let i = 0; i < out.length; i += 8) {
    const byte = out.slice(i, i + 8).reduce((v, b) => v * 2 + b, 0);
    if (zeros >= 2 && byte <= 3) {
      payload.push(3); // emulation prevention
      zeros = 0;
    }
    payload.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return new Uint8Array([sps[0]!, sps[1]!, ...payload]);
}

/** The parameter set NAL units (VPS, SPS, PPS) of an hvcC body, in order. */
export function hvccUnits(hvcc: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  for (let a = 0, arrays = hvcc[22]!, at = 23; a < arrays; a++) {
    const count = (hvcc[at + 1]! << 8) | hvcc[at + 2]!;
    at += 3;
    for (let n = 0; n < count; n++) {
      const length = (hvcc[at]! << 8) | hvcc[at + 1]!;
      units.push(hvcc.subarray(at + 2, at + 2 + length));
      at += 2 + length;
    }
  }
  return units;
}

/** NAL units as item data: each after a 4-byte length (the hvcC's lengthSizeMinusOne is 3 in every file here). */
export function lengthPrefixed(...units: Uint8Array[]): Uint8Array {
  return join(units.flatMap((unit) => [u32(unit.length), unit]));
}
