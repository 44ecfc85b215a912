// A HEIC's primary image decoded by our HEVC module (hevc.ts) one row of tiles at a time, as
// strips of YCbCr 4:2:0 planes for the encoders (native.ts encodePlaneStrips): only one strip
// (a row of 512-pixel tiles: about 3 MB for a 12 MP photo) and one tile's picture exist at
// once. A single-image file is one strip, lent in place from the decoder's memory when 8-bit.

import { invalidImage } from "./bytes.ts";
import type { CodedTile, HeicLayout, TiledImage } from "./heic-layout.ts";
import { HevcChroma, type HevcDecoder, type HevcPicture, type HevcPlane } from "./hevc.ts";
import type { PlaneStrip, SamplePlane } from "./native.ts";

/**
 * Decodes the first tile to learn what the file's pictures are: false for what the strips do
 * not produce (4:2:2, 4:4:4 or monochrome colour, or a tile of another size than declared), so
 * the caller can leave the file to libheif before anything is encoded.
 */
export function tilesDecodable(decoder: HevcDecoder, layout: HeicLayout): boolean {
  const { image } = layout;
  const picture = decoder.decode(image.tiles[0]!.hvcc, image.tiles[0]!.data(), image.tileWidth, image.tileHeight);
  const fits = picture.chroma === HevcChroma.Yuv420 && sized(picture.planes[0]!, image);
  decoder.release();
  return fits;
}

function sized(plane: HevcPlane, image: TiledImage): boolean {
  return plane.width === image.tileWidth && plane.height === image.tileHeight;
}

/** The image's strips, top to bottom: each row of tiles, cut to the image's size. */
export function* heicStrips(decoder: HevcDecoder, layout: HeicLayout): Generator<PlaneStrip> {
  const { image, alpha } = layout;
  const chromaWidth = (image.width + 1) >> 1;
  let strip: PlaneStrip | undefined;
  for (let row = 0; row < image.rows; row++) {
    const top = row * image.tileHeight;
    const height = Math.min(image.tileHeight, image.height - top);
    const chromaHeight = (height + 1) >> 1;
    for (let column = 0; column < image.columns; column++) {
      const picture = decodeTile(decoder, image.tiles[row * image.columns + column]!, image, true);
      if (image.tiles.length === 1 && !alpha && picture.planes.every((p) => p.bits === 8)) {
        // One 8-bit picture: lent as it is, no copy.
        const [y, cb, cr] = picture.planes.map((p) => ({ data: p.data, stride: p.stride })) as [SamplePlane, SamplePlane, SamplePlane];
        yield { height, y, cb, cr };
        decoder.release();
        return;
      }
      if (strip?.height !== height) strip = emptyStrip(image.width, chromaWidth, height, alpha !== undefined);
      const left = column * image.tileWidth;
      const width = Math.min(image.tileWidth, image.width - left);
      copyEight(picture.planes[0]!, strip.y, left, width, height);
      copyEight(picture.planes[1]!, strip.cb, left >> 1, (width + 1) >> 1, chromaHeight);
      copyEight(picture.planes[2]!, strip.cr, left >> 1, (width + 1) >> 1, chromaHeight);
      decoder.release();
      if (alpha) {
        const mask = decodeTile(decoder, alpha.tiles[row * alpha.columns + column]!, alpha, false);
        copyEight(mask.planes[0]!, strip.alpha!, left, width, height);
        decoder.release();
      }
    }
    yield strip!;
  }
}

/** Packed planes for a strip of `height` rows (reused while the height stays the same). */
function emptyStrip(width: number, chromaWidth: number, height: number, alpha: boolean): PlaneStrip {
  const chroma = chromaWidth * ((height + 1) >> 1);
  return {
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

/**
 * Copies `width` x `rows` samples of a decoded plane into `to` at column `left`, as 8-bit
 * samples: deeper ones (two bytes each, little-endian) rounded to 8 bits.
 */
export function copyEight(from: Pick<HevcPlane, "data" | "stride" | "bits">, to: SamplePlane, left: number, width: number, rows: number): void {
  const { data, stride, bits } = from;
  if (bits <= 8) {
    for (let y = 0; y < rows; y++) to.data.set(data.subarray(y * stride, y * stride + width), y * to.stride + left);
    return;
  }
  const shift = bits - 8;
  const half = 1 << (shift - 1);
  for (let y = 0; y < rows; y++) {
    const out = y * to.stride + left;
    for (let x = 0, at = y * stride; x < width; x++, at += 2) to.data[out + x] = Math.min(255, ((data[at]! | (data[at + 1]! << 8)) + half) >> shift);
  }
}
