// The local cut-out on generated pictures: subjects (a disc, an irregular shape, a shape that
// runs off the bottom edge) on a plain backdrop and on a smooth gradient, and busy pictures it
// must decline. Ground truth comes from the shape functions that drew the pictures.

import { describe, expect, it } from "vitest";
import type { RasterImage } from "../../../src/codecs/index.ts";
import { cutOutBackground } from "../../../src/providers/local/cutout.ts";
import { image, pixelAt } from "../../codecs/support.ts";
import { prng } from "../../support/prng.ts";

const S = 96;
type Shape = (x: number, y: number) => boolean;
type Colour = (x: number, y: number) => [number, number, number];

const disc: Shape = (x, y) => (x + 0.5 - S / 2) ** 2 + (y + 0.5 - S / 2) ** 2 < (S * 0.3) ** 2;
// An L with a triangular flag: concave corners and a slanted edge.
const irregular: Shape = (x, y) =>
  (x >= 20 && x < 44 && y >= 16 && y < 80) || (x >= 20 && x < 76 && y >= 60 && y < 80) || (x >= 44 && y >= 16 && y < 48 && x - 44 < (y - 16) * 0.8);
// A head on a neck that runs off the bottom edge, like a portrait cut at the shoulders.
const touchingBorder: Shape = (x, y) => (x - 48) ** 2 + (y - 36) ** 2 < 400 || (x >= 36 && x < 60 && y >= 36);

const plain: Colour = () => [240, 240, 240];
const gradient: Colour = (x, y) => [30 + Math.round((170 * x) / S), 120 + Math.round((110 * y) / S), 180 + Math.round((70 * (x + y)) / (2 * S))];
// A textured subject: every pixel different, so "colours unchanged" means something.
const subjectColour: Colour = (x, y) => [150 + ((x * 7 + y * 3) % 100), 20 + ((x + y) % 10), (y * 5) % 50];

function scene(shape: Shape, backdrop: Colour): RasterImage {
  return image(S, S, (x, y) => [...(shape(x, y) ? subjectColour(x, y) : backdrop(x, y)), 255]);
}

/** True when every pixel within `radius` of (x, y) has the same ground truth as (x, y). */
function awayFromEdge(shape: Shape, x: number, y: number, radius = 2): boolean {
  for (let dy = -radius; dy <= radius; dy++) {
    for (let dx = -radius; dx <= radius; dx++) {
      const nx = Math.min(S - 1, Math.max(0, x + dx));
      const ny = Math.min(S - 1, Math.max(0, y + dy));
      if (shape(nx, ny) !== shape(x, y)) return false;
    }
  }
  return true;
}

const alphaAt = (img: RasterImage, x: number, y: number) => img.data[(y * img.width + x) * 4 + 3]!;

const cases = [
  { name: "a disc on a plain backdrop", shape: disc, backdrop: plain, inside: [48, 48] },
  { name: "a disc on a smooth gradient", shape: disc, backdrop: gradient, inside: [48, 48] },
  { name: "an irregular shape on a plain backdrop", shape: irregular, backdrop: plain, inside: [30, 40] },
  { name: "an irregular shape on a smooth gradient", shape: irregular, backdrop: gradient, inside: [30, 40] },
  { name: "a subject running off the bottom edge, on a gradient", shape: touchingBorder, backdrop: gradient, inside: [48, 36] },
] as const;

describe("cutOutBackground on a subject in front of a backdrop", () => {
  for (const { name, shape, backdrop, inside } of cases) {
    it(`${name}: backdrop transparent, subject opaque and unchanged, edge soft`, () => {
      const source = scene(shape, backdrop);
      const before = source.data.slice();
      const { image: out, backgroundFound } = cutOutBackground(source);
      expect(backgroundFound).toBe(true);
      expect([out.width, out.height]).toEqual([S, S]);
      expect(source.data).toEqual(before); // the input is not modified

      for (const [x, y] of [[0, 0], [S - 1, 0], [0, S - 1], [S - 1, S - 1]] as const) expect(alphaAt(out, x, y)).toBe(0);
      expect(alphaAt(out, inside[0], inside[1])).toBe(255);

      let soft = 0;
      const wrong: string[] = [];
      for (let y = 0; y < S; y++) {
        for (let x = 0; x < S; x++) {
          const a = alphaAt(out, x, y);
          const clear = awayFromEdge(shape, x, y);
          if (a > 0 && a < 255) {
            soft++;
            // Partial alpha only on the boundary, never deep in the subject or the backdrop.
            if (clear) wrong.push(`(${x},${y}) alpha ${a} away from the edge`);
          } else if (clear && a !== (shape(x, y) ? 255 : 0)) {
            wrong.push(`(${x},${y}) alpha ${a}`);
          }
          if (clear && shape(x, y) && pixelAt(out, x, y).slice(0, 3).join() !== pixelAt(source, x, y).slice(0, 3).join()) {
            wrong.push(`(${x},${y}) subject colour changed`);
          }
        }
      }
      expect(wrong).toEqual([]);
      expect(soft).toBeGreaterThan(0);
    });
  }

  it("keeps a subject that runs off the frame opaque where it meets the frame", () => {
    const { image: out } = cutOutBackground(scene(touchingBorder, gradient));
    for (let x = 38; x < 58; x++) expect(alphaAt(out, x, S - 1)).toBe(255);
    expect(alphaAt(out, 10, S - 1)).toBe(0);
  });

  it("drops isolated specks in the backdrop with the backdrop", () => {
    const specks = [[5, 50], [90, 10], [50, 90]];
    const source = scene(disc, plain);
    for (const [x, y] of specks) source.data.set([0, 0, 0, 255], (y! * S + x!) * 4);
    const { image: out } = cutOutBackground(source);
    for (const [x, y] of specks) expect(alphaAt(out, x!, y!)).toBe(0);
    expect(alphaAt(out, 48, 48)).toBe(255);
  });

  it("gives soft-edge pixels outside the subject the subject's colour, not the backdrop's", () => {
    const { image: out } = cutOutBackground(scene(disc, plain));
    const rimGreens: number[] = [];
    for (let y = 0; y < S; y++) {
      for (let x = 0; x < S; x++) {
        const [, g, , a] = pixelAt(out, x, y) as [number, number, number, number];
        if (a > 0 && !disc(x, y)) rimGreens.push(g);
      }
    }
    // The backdrop is light grey (240, 240, 240); the subject's green is at most 29.
    expect(rimGreens.length).toBeGreaterThan(0);
    expect(Math.max(...rimGreens)).toBeLessThan(30);
  });
});

describe("cutOutBackground declines what it cannot model", () => {
  it("returns a noisy picture unchanged with backgroundFound false", () => {
    const random = prng(7);
    const source = image(S, S, () => [random() * 255, random() * 255, random() * 255, 255]);
    const { image: out, backgroundFound } = cutOutBackground(source);
    expect(backgroundFound).toBe(false);
    expect(out.data).toEqual(source.data);
  });

  it("returns a busy picture of colour patches unchanged", () => {
    const random = prng(11);
    const patches = Array.from({ length: 36 }, () => [random() * 255, random() * 255, random() * 255]);
    const source = image(S, S, (x, y) => {
      const [r, g, b] = patches[Math.floor(x / 16) * 6 + Math.floor(y / 16)]!;
      return [r!, g!, b!, 255];
    });
    const { image: out, backgroundFound } = cutOutBackground(source);
    expect(backgroundFound).toBe(false);
    expect(out.data).toEqual(source.data);
  });

  it("finds nothing to cut out of a blank backdrop", () => {
    const source = scene(() => false, gradient);
    const { image: out, backgroundFound } = cutOutBackground(source);
    expect(backgroundFound).toBe(false);
    expect(alphaAt(out, 48, 48)).toBe(255);
  });
});
