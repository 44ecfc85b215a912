// Grid HEIC files, laid out the way phones write them (the picture cut into equal tiles, each
// its own HEVC image, joined by a `grid` item), for the tests' fixtures and the benchmark:
// Debian's heif-enc (libheif-examples) writes only single images. Each tile is encoded by
// heif-enc on its own; its hvcC and data are lifted out of that file with the service's own
// reader (src/codecs/heic-layout.ts) and written into one file: the grid's descriptor in an
// idat box (iloc construction method 1), the tiles' data in mdat (method 0), one hvcC per tile,
// an alpha grid (auxl, auxC) when the pixels have alpha, an irot when asked.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import sharp, { type Sharp } from "sharp";
import { loadCodecs, REPO_ROOT } from "./bench/codecs-service.ts";

interface CodedTile {
  hvcc: Uint8Array;
  data: () => Uint8Array;
}
interface Layout {
  image: { tiles: CodedTile[]; tileWidth: number; tileHeight: number };
  alpha?: { tiles: CodedTile[] };
}
type ReadLayout = (bytes: Uint8Array) => Layout | null;

export interface GridOptions {
  tileWidth: number;
  tileHeight: number;
  /** heif-enc arguments for every tile (quality, bit depth). */
  args: string[];
  /** irot: quarter turns anticlockwise. */
  turns?: number;
}

function box(type: string, ...parts: Uint8Array[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(body.length + 8);
  header.write(type, 4, "latin1");
  return Buffer.concat([header, body]);
}
const fullBox = (type: string, version: number, flags: number, ...parts: Uint8Array[]) => box(type, Buffer.from([version, flags >> 16, (flags >> 8) & 255, flags & 255]), ...parts);
const u16 = (...values: number[]) => Buffer.from(values.flatMap((v) => [v >> 8, v & 255]));
const u32 = (...values: number[]) => Buffer.concat(values.map((v) => Buffer.from([v >>> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255])));
const text = (s: string) => Buffer.from(s, "latin1");
const ispe = (width: number, height: number) => fullBox("ispe", 0, 0, u32(width, height));

/** Each tile of `pixels` (raw, 3 or 4 channels) encoded by heif-enc, row by row; edges repeated into the last row and column. */
async function encodeTiles(pixels: Sharp, width: number, height: number, options: GridOptions): Promise<{ colour: CodedTile[]; alpha: CodedTile[] }> {
  await loadCodecs(); // the loader hooks that let Node import the service's TypeScript
  const { readHeicLayout } = (await import(pathToFileURL(path.join(REPO_ROOT, "src/codecs/heic-layout.ts")).href)) as { readHeicLayout: ReadLayout };
  const { tileWidth, tileHeight } = options;
  const dir = mkdtempSync(path.join(os.tmpdir(), "pixelgate-grid-"));
  const colour: CodedTile[] = [];
  const alpha: CodedTile[] = [];
  try {
    const source = await pixels.png({ compressionLevel: 1 }).toBuffer();
    for (let top = 0; top < height; top += tileHeight) {
      for (let left = 0; left < width; left += tileWidth) {
        const [w, h] = [Math.min(tileWidth, width - left), Math.min(tileHeight, height - top)];
        const png = path.join(dir, "tile.png");
        const heic = path.join(dir, "tile.heic");
        await sharp(source).extract({ left, top, width: w, height: h }).extend({ right: tileWidth - w, bottom: tileHeight - h, extendWith: "copy" }).toFile(png);
        execFileSync("heif-enc", [...options.args, "-o", heic, png], { stdio: "ignore" });
        const layout = readHeicLayout(new Uint8Array(readFileSync(heic)));
        // heif-enc pads a size that is not a multiple of 64 and writes a one-tile grid around it.
        if (!layout || layout.image.tiles.length !== 1 || layout.image.tileWidth !== tileWidth || layout.image.tileHeight !== tileHeight) {
          throw new Error("heif-enc wrote a tile of another layout: choose tile sizes that are multiples of 64");
        }
        const copy = ({ hvcc, data }: CodedTile): CodedTile => ({ hvcc: hvcc.slice(), data: () => data() });
        colour.push(copy(layout.image.tiles[0]!));
        if (layout.alpha) alpha.push(copy(layout.alpha.tiles[0]!));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { colour, alpha };
}

/** A grid HEIC of `pixels` (a sharp image of `width` x `height`). */
export async function gridHeic(pixels: Sharp, width: number, height: number, options: GridOptions): Promise<Buffer> {
  const { colour, alpha } = await encodeTiles(pixels, width, height, options);
  const [rows, columns] = [Math.ceil(height / options.tileHeight), Math.ceil(width / options.tileWidth)];
  const count = colour.length;
  const hasAlpha = alpha.length === count;
  // Item ids: 1 the grid, 2.. its tiles, then the alpha grid and its tiles.
  const alphaGrid = count + 2;
  const tileIds = (first: number) => Array.from({ length: count }, (_, k) => first + k);
  const [colourIds, alphaIds] = [tileIds(2), tileIds(alphaGrid + 1)];
  const tiles = [...colour, ...(hasAlpha ? alpha : [])];
  const tileData = tiles.map((t) => Buffer.from(t.data()));

  // Properties, numbered from 1: grid ispe, tile ispe, each tile's hvcC, auxC (only with an
  // alpha grid: readers take an alpha auxC as a declared alpha plane), irot.
  const auxC = tiles.length + 3;
  const irot = hasAlpha ? auxC + 1 : auxC;
  const properties = [ispe(width, height), ispe(options.tileWidth, options.tileHeight), ...tiles.map((t) => box("hvcC", t.hvcc))];
  if (hasAlpha) properties.push(fullBox("auxC", 0, 0, text("urn:mpeg:hevc:2015:auxid:1\0")));
  if (options.turns) properties.push(box("irot", Buffer.from([options.turns & 3])));
  const associations: [number, number[]][] = [[1, options.turns ? [1, irot] : [1]], ...colourIds.map((id, k): [number, number[]] => [id, [2, 0x80 | (3 + k)]])];
  if (hasAlpha) associations.push([alphaGrid, [1, auxC]], ...alphaIds.map((id, k): [number, number[]] => [id, [2, 0x80 | (3 + count + k), auxC]]));
  const ipma = fullBox("ipma", 0, 0, u32(associations.length), ...associations.map(([id, props]) => Buffer.concat([u16(id), Buffer.from([props.length, ...props])])));

  const grid = Buffer.concat([Buffer.from([0, 0, rows - 1, columns - 1]), u16(width, height)]);
  const infe = (id: number, type: string, hidden: boolean) => fullBox("infe", 2, hidden ? 1 : 0, u16(id, 0), text(`${type}\0`));
  const items = [infe(1, "grid", false), ...colourIds.map((id) => infe(id, "hvc1", true)), ...(hasAlpha ? [infe(alphaGrid, "grid", true), ...alphaIds.map((id) => infe(id, "hvc1", true))] : [])];
  const reference = (type: string, from: number, to: number[]) => box(type, u16(from, to.length, ...to));
  const references = [reference("dimg", 1, colourIds), ...(hasAlpha ? [reference("dimg", alphaGrid, alphaIds), reference("auxl", alphaGrid, [1])] : [])];

  const meta = (dataStart: number) => {
    // iloc version 1: 4-byte offsets and lengths, no base offset; grids in idat (method 1).
    const locations: Buffer[] = [Buffer.concat([u16(1, 1, 0, 1), u32(0, grid.length)])];
    if (hasAlpha) locations.push(Buffer.concat([u16(alphaGrid, 1, 0, 1), u32(0, grid.length)]));
    let offset = dataStart;
    [...colourIds, ...(hasAlpha ? alphaIds : [])].forEach((id, k) => {
      locations.push(Buffer.concat([u16(id, 0, 0, 1), u32(offset, tileData[k]!.length)]));
      offset += tileData[k]!.length;
    });
    return fullBox(
      "meta",
      0,
      0,
      fullBox("hdlr", 0, 0, u32(0), text("pict"), u32(0, 0, 0), Buffer.from([0])),
      fullBox("pitm", 0, 0, u16(1)),
      fullBox("iinf", 0, 0, u16(items.length), ...items),
      fullBox("iref", 0, 0, ...references),
      box("iprp", box("ipco", ...properties), ipma),
      fullBox("iloc", 1, 0, Buffer.from([0x44, 0x00]), u16(locations.length), ...locations),
      box("idat", grid, ...(hasAlpha ? [grid] : [])),
    );
  };
  const ftyp = box("ftyp", text("heic"), u32(0), text("mif1heic"));
  const dataStart = ftyp.length + meta(0).length + 8;
  return Buffer.concat([ftyp, meta(dataStart), box("mdat", ...tileData)]);
}
