// Colour edits that map each pixel on its own: grayscale, sepia, invert, brightness and
// contrast. Alpha is never touched. Brightness and contrast follow the CSS filter functions of
// the same names, so "brighten 20%" means what a web developer expects.

import type { RasterImage } from "../../../codecs/formats.ts";

/** Luma with the BT.601 weights (what "black and white" means in most editors); R = G = B. */
export function grayscale(image: RasterImage, inPlace = false): RasterImage {
  return mapPixels(image, inPlace, (d, i) => {
    const y = 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
    d[i] = d[i + 1] = d[i + 2] = y;
  });
}

/** The classic sepia matrix: warm brown tones, red >= green >= blue in every pixel. */
export function sepia(image: RasterImage, inPlace = false): RasterImage {
  return mapPixels(image, inPlace, (d, i) => {
    const r = d[i]!, g = d[i + 1]!, b = d[i + 2]!;
    d[i] = 0.393 * r + 0.769 * g + 0.189 * b;
    d[i + 1] = 0.349 * r + 0.686 * g + 0.168 * b;
    d[i + 2] = 0.272 * r + 0.534 * g + 0.131 * b;
  });
}

export function invert(image: RasterImage, inPlace = false): RasterImage {
  return mapChannels(image, inPlace, (c) => 255 - c);
}

/** Every channel times 1 + percent/100 (CSS brightness()); negative percent darkens. */
export function adjustBrightness(image: RasterImage, percent: number, inPlace = false): RasterImage {
  const k = 1 + percent / 100;
  return mapChannels(image, inPlace, (c) => c * k);
}

/** Distance from mid-grey times 1 + percent/100 (CSS contrast()); negative lowers contrast. */
export function adjustContrast(image: RasterImage, percent: number, inPlace = false): RasterImage {
  const k = 1 + percent / 100;
  return mapChannels(image, inPlace, (c) => (c - 127.5) * k + 127.5);
}

/**
 * A copy with `edit` applied to the RGB bytes at each pixel offset (Uint8ClampedArray clamps);
 * `inPlace`: the image itself, changed (a band of rows read for a full-size edit, no copy).
 */
function mapPixels(image: RasterImage, inPlace: boolean, edit: (data: Uint8ClampedArray, offset: number) => void): RasterImage {
  const data = inPlace ? image.data : image.data.slice();
  for (let i = 0; i < data.length; i += 4) edit(data, i);
  return { width: image.width, height: image.height, data };
}

/** A copy (or, `inPlace`, the image itself) with each colour channel looked up in a 256-entry table built from `curve`. */
function mapChannels(image: RasterImage, inPlace: boolean, curve: (channel: number) => number): RasterImage {
  const table = new Uint8ClampedArray(256);
  for (let c = 0; c < 256; c++) table[c] = curve(c);
  const data = inPlace ? image.data : image.data.slice();
  for (let i = 0; i < data.length; i += 4) {
    data[i] = table[data[i]!]!;
    data[i + 1] = table[data[i + 1]!]!;
    data[i + 2] = table[data[i + 2]!]!;
  }
  return { width: image.width, height: image.height, data };
}
