// How a HEIC's primary image is coded, for decoding it a row of tiles at a time (heic-tiles.ts):
// one HEVC image, or a `grid` of them (what phones write: 512x512 tiles), each tile with its
// decoder configuration (hvcC) and data; the alpha plane's image when there is one, coded the
// same way; the turn (irot). Null for what this reader leaves to libheif (heic.ts): overlays,
// mirrors, crops, premultiplied alpha, chroma other than 4:2:0, tiles of odd or unequal sizes,
// an alpha plane laid out unlike the colour image.

import { invalidImage } from "./bytes.ts";
import { gridDescriptor, type HeifItem, type HeifItems, itemData, readHeifItems } from "./heif-items.ts";
import { ALPHA_URNS, auxiliaryType, type Box } from "./isobmff.ts";

/** One coded image: its hvcC box body (from configurationVersion on) and its data, read when decoded. */
export interface CodedTile {
  hvcc: Uint8Array;
  data: () => Uint8Array;
}

/** An image as rows and columns of equal tiles (a single image is one tile). */
export interface TiledImage {
  width: number;
  height: number;
  columns: number;
  rows: number;
  tileWidth: number;
  tileHeight: number;
  /** Row by row. */
  tiles: CodedTile[];
}

export interface HeicLayout {
  image: TiledImage;
  alpha?: TiledImage;
  /** Quarter turns anticlockwise (irot), 0-3. */
  turns: number;
}

/** Properties that change how the decoded samples are shown, beyond a turn: left to libheif. */
const TRANSFORMS_LEFT_TO_LIBHEIF = new Set(["imir", "clap"]);

/** The primary image's layout, or null when libheif should decode it. Throws invalid_image for broken structure. */
export function readHeicLayout(bytes: Uint8Array): HeicLayout | null {
  const file = readHeifItems(bytes);
  const primary = file.items.get(file.primary);
  if (!primary) throw invalidImage("The HEIC's primary item is not in its item list.");
  if (primary.properties.some((p) => TRANSFORMS_LEFT_TO_LIBHEIF.has(p.type))) return null;
  const image = tiledImage(file, primary, true);
  if (!image) return null;
  const irot = property(primary, "irot");
  const turns = irot ? file.reader.u8(irot.start) & 3 : 0;
  const layout: HeicLayout = { image, turns };
  const alphaItems = file.references.filter((ref) => ref.type === "auxl" && ref.to.includes(primary.id)).map((ref) => file.items.get(ref.from));
  const alphaItem = alphaItems.find((item) => item && isAlpha(file, item));
  if (alphaItem) {
    if (file.references.some((ref) => ref.type === "prem" && ref.from === primary.id)) return null;
    const alpha = tiledImage(file, alphaItem, false);
    if (!alpha || !sameLayout(alpha, image)) return null;
    layout.alpha = alpha;
  }
  return layout;
}

function property(item: HeifItem, type: string): Box | undefined {
  return item.properties.find((p) => p.type === type);
}

/** An alpha auxiliary image; a type string without its NUL is malformed (libheif refuses it too). */
function isAlpha(file: HeifItems, item: HeifItem): boolean {
  const auxC = property(item, "auxC");
  if (!auxC) return false;
  if (!file.reader.slice(auxC.start + 4, Math.max(0, auxC.end - auxC.start - 4)).includes(0)) throw invalidImage("The HEIC's auxiliary image type is not NUL-terminated.");
  return ALPHA_URNS.has(auxiliaryType(file.reader, auxC));
}

function sameLayout(a: TiledImage, b: TiledImage): boolean {
  return a.width === b.width && a.height === b.height && a.columns === b.columns && a.tileWidth === b.tileWidth && a.tileHeight === b.tileHeight;
}

/** ispe: the image's width and height. */
function size(file: HeifItems, item: HeifItem): { width: number; height: number } | null {
  const ispe = property(item, "ispe");
  return ispe ? { width: file.reader.u32(ispe.start + 4), height: file.reader.u32(ispe.start + 8) } : null;
}

/**
 * A coded image item as a tile, or null when it is not HEVC, has no hvcC, or (a colour image)
 * its hvcC's chroma_format_idc (byte 16, low two bits) says other than 4:2:0.
 */
function codedTile(file: HeifItems, item: HeifItem | undefined, colour: boolean): CodedTile | null {
  const hvcC = item && item.type === "hvc1" ? property(item, "hvcC") : undefined;
  if (!item || !hvcC || hvcC.end - hvcC.start < 23) return null;
  if (colour && (file.reader.u8(hvcC.start + 16) & 3) !== 1) return null;
  return { hvcc: file.reader.slice(hvcC.start, hvcC.end - hvcC.start), data: () => itemData(file, item) };
}

/** An hvc1 item as a one-tile image, a grid item as its tiles; null for anything else. */
function tiledImage(file: HeifItems, item: HeifItem, colour: boolean): TiledImage | null {
  if (item.type === "hvc1") {
    const tile = codedTile(file, item, colour);
    const dims = size(file, item);
    if (!tile || !dims) return null;
    return evenTiles({ ...dims, columns: 1, rows: 1, tileWidth: dims.width, tileHeight: dims.height, tiles: [tile] });
  }
  if (item.type !== "grid") return null;
  const { rows, columns, width, height } = gridDescriptor(file, item);
  const ids = file.references.find((ref) => ref.type === "dimg" && ref.from === item.id)?.to ?? [];
  if (ids.length !== rows * columns) throw invalidImage("The HEIC's image grid does not reference one image per cell.");
  const items = ids.map((id) => file.items.get(id));
  const tiles = items.map((tile) => codedTile(file, tile, colour));
  const sizes = items.map((tile) => tile && size(file, tile));
  const first = sizes[0];
  if (tiles.some((t) => !t) || !first || sizes.some((s) => !s || s.width !== first.width || s.height !== first.height)) return null;
  // The tiles cover the output, the last row and column reaching past it by less than a tile.
  const declared = size(file, item);
  if (declared && (declared.width !== width || declared.height !== height)) throw invalidImage("The HEIC's image grid is not the size its ispe declares.");
  const [tileWidth, tileHeight] = [first.width, first.height];
  const covers = (count: number, tile: number, out: number) => count * tile >= out && (count - 1) * tile < out;
  if (!covers(columns, tileWidth, width) || !covers(rows, tileHeight, height)) throw invalidImage("The HEIC's grid tiles do not cover its output size.");
  return evenTiles({ width, height, columns, rows, tileWidth, tileHeight, tiles: tiles as CodedTile[] });
}

/** 4:2:0 chroma cells must not straddle two tiles: a grid's tiles have even sizes. */
function evenTiles(image: TiledImage): TiledImage | null {
  const single = image.columns === 1 && image.rows === 1;
  return single || (image.tileWidth % 2 === 0 && image.tileHeight % 2 === 0) ? image : null;
}
