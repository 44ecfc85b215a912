// TIFF structure checks that run before the charge (assertSafeToDecode, tiff-structure.ts): strip
// and tile bounds, strip counts, the directory graph, tag values, and what utif2 gets to see.
// Each hostile file here reads a valid header, so only these checks stand between it and a
// decoder that would fill missing bytes with zeros, follow pointers forever or allocate too much.

import UTIF from "utif2";
import { describe, expect, it } from "vitest";
import { assertSafeToDecode, decodeImage, readHeader, type RasterImage } from "../../src/codecs/index.ts";
import { onlyIfd0 } from "../../src/codecs/tiff.ts";
import { MAX_TIFF_CHUNK_BYTES, MAX_TIFF_CHUNKS, MAX_TIFF_DIRECTORIES } from "../../src/codecs/tiff-structure.ts";
import type { PixelgateError } from "../../src/errors.ts";
import { blobOffset, gradient, ifdOffset, maxDiff, pixelgateError, rawRgbEntries, rgbBytes, tiffFile } from "./support.ts";

type Entry = [tag: number, type: 3 | 4, values: number[]];

async function decode(bytes: Uint8Array): Promise<RasterImage> {
  return decodeImage(bytes, readHeader(bytes, "tiff"));
}

/** The error of the check before the charge; the header itself must read fine. */
function precheck(bytes: Uint8Array): Promise<PixelgateError> {
  const header = readHeader(bytes, "tiff");
  return pixelgateError(() => assertSafeToDecode(bytes, header));
}

function withEntry(entries: Entry[], tag: number, type: 3 | 4, values: number[]): Entry[] {
  return [...entries.filter(([t]) => t !== tag), [tag, type, values]];
}

/** Rewrites the count and value offset of an IFD0 entry in place (little-endian files). */
function patchEntry(tiff: Uint8Array, tag: number, patch: { count?: number; offset?: number }): void {
  const v = new DataView(tiff.buffer, tiff.byteOffset);
  const ifd = v.getUint32(4, true);
  for (let i = 0; i < v.getUint16(ifd, true); i++) {
    const e = ifd + 2 + i * 12;
    if (v.getUint16(e, true) !== tag) continue;
    if (patch.count !== undefined) v.setUint32(e + 4, patch.count, true);
    if (patch.offset !== undefined) v.setUint32(e + 8, patch.offset, true);
    return;
  }
  throw new Error(`no tag ${tag}`);
}

const source = gradient(48, 32);
const rawTiff = () => tiffFile([{ entries: rawRgbEntries(48, 32) }], [rgbBytes(source)]);

describe("TIFF strips and tiles must lie inside the file", () => {
  it("an uncompressed TIFF cut inside its strip is refused, though its header reads", async () => {
    const whole = rawTiff();
    expect(maxDiff(source, await decode(whole))).toBe(0);
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    expect(readHeader(cut, "tiff")).toMatchObject({ width: 48, height: 32 });
    expect((await precheck(cut)).code).toBe("invalid_image");
    expect((await pixelgateError(decode(cut))).code).toBe("invalid_image");
  });

  it("an uncompressed strip whose byte count is shorter than its rows is refused", async () => {
    // utif2 reads a lone uncompressed strip by the image size, not the byte count: past the end
    // of this file it would read zeros.
    const entries = withEntry(rawRgbEntries(48, 32), 279, 4, [10]);
    const short = tiffFile([{ entries }], [rgbBytes(source).subarray(0, 10)]);
    expect((await precheck(short)).code).toBe("invalid_image");
  });

  it("a strip that starts 2 GB past the end of the file is refused", async () => {
    const entries = withEntry(rawRgbEntries(4, 4), 273, 4, [0x7fff_0000]);
    expect((await precheck(tiffFile([{ entries }], [new Uint8Array(48)]))).code).toBe("invalid_image");
  });

  it("tiles: a valid tiled TIFF decodes, and one whose tile lies outside the file is refused", async () => {
    // 20 x 10 in two 16 x 16 tiles (tiles are stored whole, padded past the image).
    const image = gradient(20, 10);
    const tiles = [0, 16].map((x0) => {
      const tile = new Uint8Array(16 * 16 * 3);
      for (let y = 0; y < 10; y++) for (let x = x0; x < Math.min(x0 + 16, 20); x++) tile.set(image.data.subarray((y * 20 + x) * 4, (y * 20 + x) * 4 + 3), (y * 16 + x - x0) * 3);
      return tile;
    });
    const entries: Entry[] = [
      [256, 4, [20]], [257, 4, [10]], [258, 3, [8, 8, 8]], [259, 3, [1]], [262, 3, [2]], [277, 3, [3]],
      [322, 4, [16]], [323, 4, [16]], [324, 4, [blobOffset(0), blobOffset(1)]], [325, 4, [768, 768]],
    ];
    expect(maxDiff(image, await decode(tiffFile([{ entries }], tiles)))).toBe(0);
    const outside = tiffFile([{ entries: withEntry(entries, 324, 4, [blobOffset(0), 0x7fff_0000]) }], tiles);
    expect((await precheck(outside)).code).toBe("invalid_image");
  });
});

describe("TIFF strip counts follow from the image size", () => {
  it("fewer strips than the height needs, or RowsPerStrip 0, is refused", async () => {
    const rows = withEntry(rawRgbEntries(4, 4), 278, 4, [1]); // 4 strips needed
    const two = withEntry(withEntry(rows, 273, 4, [blobOffset(0), blobOffset(0)]), 279, 4, [12, 12]);
    expect((await precheck(tiffFile([{ entries: two }], [new Uint8Array(48)]))).code).toBe("invalid_image");
    const zero = withEntry(rawRgbEntries(4, 4), 278, 4, [0]);
    expect((await precheck(tiffFile([{ entries: zero }], [new Uint8Array(48)]))).code).toBe("invalid_image");
  });

  it(`more than ${MAX_TIFF_CHUNKS} strips are refused, whatever the height`, async () => {
    const height = MAX_TIFF_CHUNKS + 1;
    const entries = withEntry(
      withEntry(withEntry(rawRgbEntries(1, height), 278, 4, [1]), 273, 4, Array<number>(height).fill(blobOffset(0))),
      279, 4, Array<number>(height).fill(3),
    );
    const error = await precheck(tiffFile([{ entries }], [new Uint8Array(3)]));
    expect(error.code).toBe("invalid_image");
    expect(error.message).toContain(String(MAX_TIFF_CHUNKS));
  });

  it("strips may share bytes, but not add up to more than the strip byte budget", async () => {
    const strips = (count: number) =>
      withEntry(withEntry(withEntry(rawRgbEntries(1, 4096), 278, 4, [1]), 273, 4, Array<number>(4096).fill(blobOffset(0))), 279, 4, Array<number>(4096).fill(count));
    // 4096 one-pixel strips on the same 3 bytes: odd but valid.
    const shared = tiffFile([{ entries: strips(3) }], [new Uint8Array([10, 20, 30])]);
    expect((await decode(shared)).data.subarray(-4)).toEqual(new Uint8ClampedArray([10, 20, 30, 255]));
    // The same 20 KB behind every strip: 80 MB of strip data to copy from a 52 KB file.
    expect(4096 * 20_000).toBeGreaterThan(MAX_TIFF_CHUNK_BYTES);
    const amplified = tiffFile([{ entries: strips(20_000) }], [new Uint8Array(20_000)]);
    expect((await precheck(amplified)).code).toBe("invalid_image");
  });
});

describe("TIFF IFD0 tag values", () => {
  it("a tag whose values run past the end of the file is refused", async () => {
    const tiff = tiffFile([{ entries: [...rawRgbEntries(4, 4), [700, 4, [1, 2]]] }], [new Uint8Array(48)]);
    patchEntry(tiff, 700, { count: 100_000 });
    expect((await precheck(tiff)).code).toBe("invalid_image");
  });

  it("tags whose values overlap to claim more bytes than the file has are refused", async () => {
    // Each list lies inside the file; together they would make utif2 read it three times over.
    const tiff = tiffFile([{ entries: [...rawRgbEntries(4, 4), [700, 4, [1, 2]], [701, 4, [1, 2]], [702, 4, [1, 2]]] }], [new Uint8Array(400)]);
    await decode(tiff); // fine as built
    for (const tag of [700, 701, 702]) patchEntry(tiff, tag, { count: Math.floor((tiff.length - 8) / 4), offset: 8 });
    expect((await precheck(tiff)).code).toBe("invalid_image");
  });

  it("utif2's raw sample buffer beyond four bytes per allowed pixel is image_too_large", async () => {
    // 1900 x 1900 16-bit RGBA (within the pixel limit) behind a 16-byte Deflate strip: 29 MB of
    // samples before RGBA, more than four bytes per allowed pixel.
    const entries: Entry[] = [
      [256, 4, [1900]], [257, 4, [1900]], [258, 3, [16, 16, 16, 16]], [259, 3, [8]], [262, 3, [2]], [273, 4, [blobOffset(0)]],
      [277, 3, [4]], [278, 4, [1900]], [279, 4, [16]], [338, 3, [2]],
    ];
    expect((await precheck(tiffFile([{ entries }], [new Uint8Array(16)]))).code).toBe("image_too_large");
  });
});

describe("the TIFF directory graph", () => {
  const page = (extra: Entry[] = [], next?: number) => ({ entries: [...rawRgbEntries(4, 4), ...extra], next });

  it("SubIFDs that reach the same directory twice (a fan-out bomb) are refused", async () => {
    const fanout = tiffFile([page([[330, 4, [ifdOffset(1), ifdOffset(1)]]]), { entries: [[256, 4, [1]]] }], [new Uint8Array(48)]);
    expect((await precheck(fanout)).code).toBe("invalid_image");
  });

  it("an EXIF pointer back to IFD0 is refused", async () => {
    const loop = tiffFile([page([[34665, 4, [ifdOffset(1)]]]), { entries: [[34665, 4, [ifdOffset(0)]]] }], [new Uint8Array(48)]);
    expect((await precheck(loop)).code).toBe("invalid_image");
  });

  it(`more than ${MAX_TIFF_DIRECTORIES} directories are refused`, async () => {
    const chain = [page([], 1), ...Array.from({ length: MAX_TIFF_DIRECTORIES }, (_, k) => ({ entries: [] as Entry[], next: k + 2 <= MAX_TIFF_DIRECTORIES ? k + 2 : undefined }))];
    expect((await precheck(tiffFile(chain, [new Uint8Array(48)]))).code).toBe("invalid_image");
  });

  /** IFD0 (4 x 4) with an EXIF block, a SubIFD thumbnail and a second page: all honest. */
  const honest = () =>
    tiffFile(
      [
        page([[34665, 4, [ifdOffset(1)]], [330, 4, [ifdOffset(2)]]], 3),
        { entries: [[41989, 3, [35]]] },
        { entries: rawRgbEntries(2, 2, blobOffset(1)) },
        { entries: rawRgbEntries(2, 2, blobOffset(1)) },
      ],
      [new Uint8Array(48).fill(200), new Uint8Array(12).fill(50)],
    );

  it("an honest graph (EXIF, a SubIFD, a second page) decodes to IFD0", async () => {
    const decoded = await decode(honest());
    expect([decoded.width, decoded.height]).toEqual([4, 4]);
    expect(Array.from(decoded.data.subarray(0, 4))).toEqual([200, 200, 200, 255]);
  });

  it("utif2 is handed IFD0 alone: no next page, no sub-directories to follow", () => {
    const file = honest();
    const everything = UTIF.decode(file.slice().buffer);
    expect(everything.length).toBe(2);
    expect(everything[0]).toHaveProperty("exifIFD");
    const ifds = UTIF.decode(onlyIfd0(file));
    expect(ifds.length).toBe(1);
    expect(ifds[0]).not.toHaveProperty("exifIFD");
    expect(ifds[0]).not.toHaveProperty("subIFD");
    expect(ifds[0]!["t256"]).toEqual([4]);
  });
});
