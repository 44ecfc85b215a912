// Input pictures for the load scripts: a subject on a plain background (so a cut-out has work to
// do), small, because the stress is about the ledger and not about pixels. Made with sharp.
import sharp from "sharp";

export interface Pictures {
  /** 128 x 128 PNG, data URI. */
  png128: string;
  /** 64 x 64 PNG, data URI (upscale input). */
  png64: string;
  /** 96 x 96 JPEG, data URI. */
  jpeg96: string;
  /** 512 x 512 PNG: 8x would exceed the upscale limit, refused before the charge. */
  png512: string;
}

function discSvg(side: number, colour: string): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}">
    <rect width="100%" height="100%" fill="#d7e1eb"/><circle cx="${side / 2}" cy="${side / 2}" r="${side * 0.3}" fill="${colour}"/></svg>`);
}

const dataUri = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString("base64")}`;

export async function makePictures(): Promise<Pictures> {
  return {
    png128: dataUri("image/png", await sharp(discSvg(128, "#aa141e")).png().toBuffer()),
    png64: dataUri("image/png", await sharp(discSvg(64, "#1e64aa")).png().toBuffer()),
    jpeg96: dataUri("image/jpeg", await sharp(discSvg(96, "#2a9a3a")).jpeg({ quality: 85 }).toBuffer()),
    png512: dataUri("image/png", await sharp(discSvg(512, "#aa141e")).png().toBuffer()),
  };
}
