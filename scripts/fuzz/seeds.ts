// The seed corpus of `npm run fuzz`: small valid files of every input format, made here from
// pictures the repository draws (the hostile corpus's seeded gradient), written by the service's
// own encoders for PNG, JPEG, WebP, AVIF, GIF, BMP and TIFF, at a few sizes and qualities; HEIC
// from the heif-enc fixtures (test/fixtures/heic.ts, scripts/make-heic-fixtures.ts), single and
// grid, with alpha, turned and 10-bit, plus a grid written by the tests' HEIF writer. Nothing is
// checked in: the files are made again at every run (and written to the run's seeds folder).
//
// Runs in Node with the codec layer loaded the way the codec benchmark loads it.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadCodecs, REPO_ROOT, type Format, type Raster } from "../bench/codecs-service.ts";

export interface Seed {
  name: string;
  format: Format;
  bytes: Uint8Array;
}

const ENCODED: Format[] = ["png", "jpeg", "webp", "avif", "gif", "bmp", "tiff"];
/** [width, height, quality]: a small picture, an odd-sized one, and one of a few tiles or strips. */
const SIZES: [number, number, number | undefined][] = [
  [48, 32, undefined],
  [67, 45, 40],
  [256, 192, 90],
];

const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));

export async function makeSeeds(dir: string): Promise<Seed[]> {
  const codecs = await loadCodecs(); // registers the loader hooks the imports below need
  const load = async <T>(file: string) => (await import(pathToFileURL(path.join(REPO_ROOT, file)).href)) as T;
  const { sourceImage } = await load<{ sourceImage(width: number, height: number, seed?: number): Raster }>("test/hostile/corpus.ts");
  const heic = await load<Record<string, string>>("test/fixtures/heic.ts");
  const { heicGrid } = await load<{ heicGrid(rows: number, columns: number): Uint8Array }>("test/support/heic-hostile.ts");

  const seeds: Seed[] = [];
  for (const [width, height, quality] of SIZES) {
    const picture = sourceImage(width, height, width);
    // One with alpha: the right half transparent, so encoders write their alpha layouts.
    const alpha = { ...picture, data: picture.data.map((v, i) => (i % 4 === 3 && (i >> 2) % width >= width / 2 ? 0 : v)) };
    for (const format of ENCODED) {
      seeds.push({ name: `${format}-${width}x${height}`, format, bytes: await codecs.encodeImage(picture, format, { quality }) });
      if (format === "png" || format === "webp" || format === "gif") {
        seeds.push({ name: `${format}-${width}x${height}-alpha`, format, bytes: await codecs.encodeImage(alpha, format, { quality }) });
      }
    }
  }
  for (const name of ["QUADRANTS_HEIC", "TURNED_HEIC", "ALPHA_HEIC", "TEN_BIT_HEIC", "GRID_HEIC", "GRID_ALPHA_HEIC", "GRID_TURNED_HEIC"]) {
    seeds.push({ name: name.toLowerCase().replace(/_/g, "-"), format: "heic", bytes: fromBase64(heic[name]!) });
  }
  seeds.push({ name: "heic-writer-grid-3x3", format: "heic", bytes: heicGrid(3, 3) });

  mkdirSync(dir, { recursive: true });
  for (const seed of seeds) writeFileSync(path.join(dir, `${seed.name}.${seed.format}`), seed.bytes);
  return seeds;
}
