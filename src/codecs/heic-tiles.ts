// A HEIC's primary image decoded by our HEVC module (hevc.ts) one row (or column) of tiles at a time, as
// strips of YCbCr 4:2:0 planes for the encoders (native.ts encodePlaneStrips): only one strip
// (a row of 512-pixel tiles: about 3 MB for a 12 MP photo) and one tile's picture exist at
// once.

import { invalidImage } from "./bytes.ts";
import type { CodedTile, HeicLayout, TiledImage } from "./heic-layout.ts";
import type { Orientation } from "./orientation.ts";
import { copyEight, HevcChroma, HevcDecoder, type HevcPicture, type HevcPlane } from "./hevc.ts";
import { recodedImage, type RecodedImage } from "./file-pieces.ts";
import { encodePlaneStrips, inPieces, type NativeTarget, type PlanesEncoding, type PlaneStrip, type SamplePlane, type WebpSettings, type YCbCrImage } from "./native.ts";

/**
 * The primary image encoded as `target` from our HEVC decoder's tiles. A grid goes a row of
 * tiles at a time into the encoder (a column at a time when turned by a quarter). A single image is copied out whole (1.5 bytes a pixel) and
 * its decoder dropped before the encoder starts: libde265 holds about 4 bytes a pixel for one
 * whole picture (the picture, a copy for its SAO filter, per-block metadata).
 */
export async function encodeHeicTiles(
  layout: HeicLayout,
  encoding: PlanesEncoding,
  target: NativeTarget,
  quality: number,
  webp: WebpSettings = {},
): Promise<RecodedImage> {
  const { width, height } = layout.image;
  const { orientation, shown } = asShown(layout);
  // The file kept in the pieces the encoder wrote it in (native.ts inPieces).
  const encoded = (picture: Parameters<typeof encodePlaneStrips>[0], strips: Iterable<PlaneStrip>) =>
    recodedImage(inPieces(() => encodePlaneStrips(picture, strips, target, quality, webp)) ?? [], shown.width, shown.height);
  const image = { kr: encoding.kr, kb: encoding.kb, fullRange: encoding.fullRange, width, height, alpha: layout.alpha !== undefined, orientation };
  if (layout.image.tiles.length > 1) {
    // JPEG is written row by row: a turned grid is streamed turned. The WebP encoder holds its
    // whole picture anyway, and places each row where the turn puts it (less JS memory).
    if (orientation !== 1 && target !== "webp" && width % 2 === 0 && height % 2 === 0) {
      const strips = turnedStrips(new HevcDecoder(), layout, orientation);
      return encoded({ ...image, ...shown, orientation: 1 }, strips);
    }
    // Upright, to WebP, or (odd sizes, whose chroma cells a turn would split) turned by the encoder.
    return encoded(image, heicStrips(new HevcDecoder(), layout));
  }
  const whole = [...heicStrips(new HevcDecoder(), layout)];
  // A turn of the event loop: the decoder's instance can be collected before the encoder grows.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return encoded(image, whole);
}

/**
 * The primary image as whole upright YCbCr planes from our decoder's tiles, for the PNG writer,
 * which reads the picture once per pass: 1.5 bytes a pixel (2.5 with alpha) in JavaScript, where
 * libheif held 4.7 while they were copied out. A single image's one strip is used as it is. Null
 * for a turned image of odd sides (its chroma cells would split): libheif's planes then.
 */
export async function heicPlanesFromTiles(layout: HeicLayout, encoding: PlanesEncoding): Promise<YCbCrImage | null> {
  if (!planesFromTiles(layout)) return null;
  const { orientation, shown } = asShown(layout);
  const { kr, kb, fullRange } = encoding;
  if (layout.image.tiles.length === 1) {
    // A single image turned: 8-bit samples are turned straight out of the decoder's memory,
    // so only the turned copy is made. Else it is copied out whole, and (deeper samples, an
    // alpha plane) turned after a turn of the event loop, when the decoder's instance can be
    // collected.
    const turned = orientation !== 1 && !layout.alpha ? turnedPicture(layout, orientation) : null;
    if (turned) return { kr, kb, fullRange, ...shown, ...turned };
    const [picture] = [...heicStrips(new HevcDecoder(), layout)];
    if (orientation === 1) return { kr, kb, fullRange, ...shown, ...picture! };
    await new Promise((resolve) => setTimeout(resolve, 0));
    return { kr, kb, fullRange, ...shown, ...orientBlock(picture!, orientation) };
  }
  const decoder = new HevcDecoder();
  const strips = orientation === 1 ? heicStrips(decoder, layout) : turnedStrips(decoder, layout, orientation);
  let whole: Block | undefined;
  let top = 0;
  for (const strip of strips) {
    if (!whole && strip.height === shown.height) return { kr, kb, fullRange, ...shown, ...strip }; // one row of tiles
    whole ??= emptyBlock(shown.width, shown.height, layout.alpha !== undefined);
    // Strips are whole rows of the picture (their strides are the picture's), and all but the last of even height.
    const chromaTop = top >> 1, chromaRows = (strip.height + 1) >> 1;
    whole.y.data.set(strip.y.data.subarray(0, strip.height * strip.y.stride), top * whole.y.stride);
    whole.cb.data.set(strip.cb.data.subarray(0, chromaRows * strip.cb.stride), chromaTop * whole.cb.stride);
    whole.cr.data.set(strip.cr.data.subarray(0, chromaRows * strip.cr.stride), chromaTop * whole.cr.stride);
    if (whole.alpha && strip.alpha) whole.alpha.data.set(strip.alpha.data.subarray(0, strip.height * strip.alpha.stride), top * whole.alpha.stride);
    top += strip.height;
  }
  return whole ? { kr, kb, fullRange, ...shown, y: whole.y, cb: whole.cb, cr: whole.cr, alpha: whole.alpha } : null;
}

/** A single 8-bit image without alpha, turned as it leaves the decoder's memory (null for deeper samples). */
function turnedPicture(layout: HeicLayout, orientation: Orientation): Block | null {
  const { image } = layout;
  const decoder = new HevcDecoder();
  try {
    const { planes } = decodeTile(decoder, image.tiles[0]!, image, true);
    if (planes.some((plane) => plane.bits > 8)) return null;
    const [y, cb, cr] = planes as [HevcPlane, HevcPlane, HevcPlane];
    return orientBlock({ width: image.width, height: image.height, y, cb, cr }, orientation);
  } finally {
    decoder.release();
  }
}

/**
 * The primary image as upright strips from our decoder, top to bottom (a row of tiles each; a
 * column when turned by a quarter), with the size they make, or null when planesFromTiles says
 * no (a turned image of odd sides). Only one strip and one tile's picture exist at once.
 */
export function uprightStrips(layout: HeicLayout): { width: number; height: number; strips: Iterable<PlaneStrip> } | null {
  if (!planesFromTiles(layout)) return null;
  const { orientation, shown } = asShown(layout);
  const decoder = new HevcDecoder();
  return { ...shown, strips: orientation === 1 ? heicStrips(decoder, layout) : turnedStrips(decoder, layout, orientation) };
}

/** Whether heicPlanesFromTiles makes this layout's planes: upright, or of even sides. */
export function planesFromTiles(layout: HeicLayout): boolean {
  const { width, height } = layout.image;
  return layout.turns === 0 || (width % 2 === 0 && height % 2 === 0);
}

/** How the picture is shown: irot's turn as an EXIF orientation, and the size it gives. */
function asShown(layout: HeicLayout): { orientation: Orientation; shown: { width: number; height: number } } {
  const { width, height } = layout.image;
  const shown = layout.turns % 2 === 1 ? { width: height, height: width } : { width, height };
  return { orientation: IROT_ORIENTATION[layout.turns]!, shown };
}

/**
 * irot's quarter turns anticlockwise as the EXIF orientation that shows the picture the same
 * way: 90 degrees anticlockwise is EXIF 8, 180 is 3, 270 (a quarter clockwise) is 6.
 */
const IROT_ORIENTATION: Orientation[] = [1, 8, 3, 6];

function sized(plane: HevcPlane, image: TiledImage): boolean {
  return plane.width === image.tileWidth && plane.height === image.tileHeight;
}

/** The image's strips, top to bottom: each row of tiles, cut to the image's size. */
export function* heicStrips(decoder: HevcDecoder, layout: HeicLayout): Generator<Block> {
  const { image } = layout;
  let block: Block | undefined;
  for (let row = 0; row < image.rows; row++) {
    block = decodeBlock(decoder, layout, [row, row], [0, image.columns - 1], block);
    yield block;
  }
}

/**
 * The turned image's strips, top to bottom, for a grid of even width and height: a turn by a
 * quarter takes a COLUMN of tiles at a time (the turned picture's top rows are a column of the
 * stored one: the first column for a quarter clockwise, the last for anticlockwise), a half
 * turn the rows of tiles from the bottom; each block is turned in JavaScript, so the encoder
 * gets upright rows and no whole picture is held anywhere.
 */
export function* turnedStrips(decoder: HevcDecoder, layout: HeicLayout, orientation: Orientation): Generator<PlaneStrip> {
  const { image } = layout;
  const [rows, columns] = [image.rows, image.columns];
  let block: Block | undefined;
  let turned: Block | undefined;
  for (let k = 0; k < (orientation === 3 ? rows : columns); k++) {
    if (orientation === 3) block = decodeBlock(decoder, layout, [rows - 1 - k, rows - 1 - k], [0, columns - 1], block);
    else {
      const column = orientation === 8 ? columns - 1 - k : k;
      block = decodeBlock(decoder, layout, [0, rows - 1], [column, column], block);
    }
    turned = orientBlock(block, orientation, turned);
    yield turned;
  }
}

/** Decoded tiles: rows and columns of the grid, cut to the image, as packed planes. */
interface Block extends PlaneStrip {
  width: number;
}

/** Decodes rows r0..r1 x columns c0..c1 of the grid into a block (`reuse`'s planes when the size matches). */
function decodeBlock(decoder: HevcDecoder, layout: HeicLayout, [r0, r1]: [number, number], [c0, c1]: [number, number], reuse?: Block): Block {
  const { image, alpha } = layout;
  const [top, left] = [r0 * image.tileHeight, c0 * image.tileWidth];
  const width = Math.min((c1 + 1) * image.tileWidth, image.width) - left;
  const height = Math.min((r1 + 1) * image.tileHeight, image.height) - top;
  const block = reuse?.width === width && reuse.height === height ? reuse : emptyBlock(width, height, alpha !== undefined);
  for (let row = r0; row <= r1; row++) {
    for (let column = c0; column <= c1; column++) {
      const y = row * image.tileHeight - top;
      const x = column * image.tileWidth - left;
      const [w, h] = [Math.min(image.tileWidth, width - x), Math.min(image.tileHeight, height - y)];
      const picture = decodeTile(decoder, image.tiles[row * image.columns + column]!, image, true);
      copyEight(picture.planes[0]!, block.y, y * block.y.stride + x, w, h);
      const chromaAt = (y >> 1) * block.cb.stride + (x >> 1);
      copyEight(picture.planes[1]!, block.cb, chromaAt, (w + 1) >> 1, (h + 1) >> 1);
      copyEight(picture.planes[2]!, block.cr, chromaAt, (w + 1) >> 1, (h + 1) >> 1);
      decoder.release();
      if (alpha) {
        const mask = decodeTile(decoder, alpha.tiles[row * alpha.columns + column]!, alpha, false);
        copyEight(mask.planes[0]!, block.alpha!, y * block.alpha!.stride + x, w, h);
        decoder.release();
      }
    }
  }
  return block;
}

/** A block turned or mirrored by EXIF `orientation` (3, 6 or 8), into `reuse`'s planes when the size matches. */
function orientBlock(block: Block, orientation: Orientation, reuse?: Block): Block {
  const [flipX, flipY, turned] = [orientation === 3 || orientation === 8, orientation === 3 || orientation === 6, orientation !== 3];
  const [width, height] = turned ? [block.height, block.width] : [block.width, block.height];
  const into = reuse?.width === width && reuse.height === height ? reuse : emptyBlock(width, height, block.alpha !== undefined);
  const orient = (plane: SamplePlane, w: number, h: number, to: SamplePlane): void => {
    const { stride, data: out } = to;
    for (let y = 0; y < h; y++) {
      const across = flipY ? h - 1 - y : y;
      const from = y * plane.stride;
      for (let x = 0; x < w; x++) {
        const along = flipX ? w - 1 - x : x;
        out[turned ? along * stride + across : across * stride + along] = plane.data[from + x]!;
      }
    }
  };
  const [cw, ch] = [(block.width + 1) >> 1, (block.height + 1) >> 1];
  orient(block.y, block.width, block.height, into.y);
  orient(block.cb, cw, ch, into.cb);
  orient(block.cr, cw, ch, into.cr);
  if (block.alpha) orient(block.alpha, block.width, block.height, into.alpha!);
  return into;
}

/** Packed planes for a block of width x height samples. */
function emptyBlock(width: number, height: number, alpha: boolean): Block {
  const chromaWidth = (width + 1) >> 1;
  const chroma = chromaWidth * ((height + 1) >> 1);
  return {
    width,
    height,
    y: { data: new Uint8Array(width * height), stride: width },
    cb: { data: new Uint8Array(chroma), stride: chromaWidth },
    cr: { data: new Uint8Array(chroma), stride: chromaWidth },
    alpha: alpha ? { data: new Uint8Array(width * height), stride: width } : undefined,
  };
}

/** A tile's picture, checked against the size and sampling every tile of the file must share. */
function decodeTile(decoder: HevcDecoder, tile: CodedTile, image: TiledImage, colour: boolean): HevcPicture {
  const picture = decoder.decode(tile.hvcc, tile.data(), image.tileWidth, image.tileHeight);
  const [luma] = picture.planes;
  if (!luma || !sized(luma, image)) throw invalidImage("A tile of the HEIC decodes to another size than its grid declares.");
  if (colour && picture.chroma !== HevcChroma.Yuv420) throw invalidImage("The HEIC's tiles are not all sampled alike.");
  return picture;
}
