// A HEIC's primary image decoded by our HEVC module (hevc.ts) one row of tiles at a time, as
// strips of YCbCr 4:2:0 planes for the encoders (native.ts encodePlaneStrips): only one strip
// (a row of 512-pixel tiles: about 3 MB for a 12 MP photo) and one tile's picture exist at
// once.

import { invalidImage } from "./bytes.ts";
import type { CodedTile, HeicLayout, TiledImage } from "./heic-layout.ts";
import type { Orientation } from "./orientation.ts";
import { copyEight, HevcChroma, HevcDecoder, type HevcPicture, type HevcPlane } from "./hevc.ts";
import { encodePlaneStrips, type NativeTarget, type PlanesEncoding, type PlaneStrip } from "./native.ts";

/**
 * The primary image encoded as `target` from our HEVC decoder's tiles. A grid goes a row of
 * tiles at a time into the encoder. A single image is copied out whole (1.5 bytes a pixel) and
 * its decoder dropped before the encoder starts: libde265 holds about 4 bytes a pixel for one
 * whole picture (the picture, a copy for its SAO filter, per-block metadata).
 */
export async function encodeHeicTiles(layout: HeicLayout, encoding: PlanesEncoding, target: NativeTarget, quality: number): Promise<{ bytes: Uint8Array; width: number; height: number }> {
  const { width, height } = layout.image;
  const orientation = IROT_ORIENTATION[layout.turns]!;
  const image = { kr: encoding.kr, kb: encoding.kb, fullRange: encoding.fullRange, width, height, alpha: layout.alpha !== undefined, orientation };
  const shown = layout.turns % 2 === 1 ? { width: height, height: width } : { width, height };
  if (layout.image.tiles.length > 1) return { bytes: encodePlaneStrips(image, heicStrips(new HevcDecoder(), layout), target, quality), ...shown };
  const whole = [...heicStrips(new HevcDecoder(), layout)];
  // A turn of the event loop: the decoder's instance can be collected before the encoder grows.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { bytes: encodePlaneStrips(image, whole, target, quality), ...shown };
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
