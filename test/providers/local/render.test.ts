// The local procedural renderer, judged from its pixels: exact sizes, determinism, the prompt's
// colours and placement visible in the picture, and a subject that a classical cut-out can
// separate from a smooth background.

import { describe, expect, it } from "vitest";
import type { RasterImage } from "../../../src/codecs/index.ts";
import { renderScene } from "../../../src/providers/local/render.ts";

function pixel(img: RasterImage, x: number, y: number): [number, number, number, number] {
  const o = (Math.floor(y) * img.width + Math.floor(x)) * 4;
  return [img.data[o]!, img.data[o + 1]!, img.data[o + 2]!, img.data[o + 3]!];
}

const distance = (a: number[], b: number[]): number => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

/** Share of the pixels in a box of half-side `r` around (cx, cy) that satisfy `test`. */
function share(img: RasterImage, cx: number, cy: number, r: number, test: (p: number[]) => boolean): number {
  let hits = 0;
  let all = 0;
  for (let y = Math.max(0, cy - r); y < Math.min(img.height, cy + r); y++) {
    for (let x = Math.max(0, cx - r); x < Math.min(img.width, cx + r); x++, all++) if (test(pixel(img, x, y))) hits++;
  }
  return hits / all;
}

/** Centroid of the pixels that satisfy `test`, as fractions of width and height. */
function centroid(img: RasterImage, test: (p: number[]) => boolean): { x: number; y: number; count: number } {
  let sx = 0, sy = 0, count = 0;
  for (let y = 0; y < img.height; y += 2) {
    for (let x = 0; x < img.width; x += 2) {
      if (test(pixel(img, x, y))) {
        sx += x;
        sy += y;
        count++;
      }
    }
  }
  return { x: sx / count / img.width, y: sy / count / img.height, count };
}

const isRed = (p: number[]): boolean => p[0]! > 150 && p[1]! < 90 && p[2]! < 90;
const isBlue = (p: number[]): boolean => p[2]! > 150 && p[0]! < 100 && p[2]! > p[1]! + 50;

describe("renderScene", () => {
  it("honours the exact width and height, opaque, for several aspect ratios", () => {
    for (const [width, height] of [[1024, 1024], [1024, 576], [576, 1024], [1024, 768], [1024, 439], [7, 3], [1, 1]] as const) {
      const img = renderScene({ prompt: "a golden star", seed: 5, width, height });
      expect([img.width, img.height, img.data.length]).toEqual([width, height, width * height * 4]);
      for (let i = 3; i < img.data.length; i += 4) if (img.data[i] !== 255) throw new Error(`transparent pixel in ${width}x${height}`);
    }
  });

  it("is deterministic for (prompt, seed, size) and changes with the seed and the prompt", () => {
    const base = { prompt: "a teal heart on the right", width: 320, height: 240 };
    const a = renderScene({ ...base, seed: 11 });
    expect(renderScene({ ...base, seed: 11 }).data).toEqual(a.data);
    const differing = (b: RasterImage): number => {
      let n = 0;
      for (let i = 0; i < a.data.length; i += 4) if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) n++;
      return n / (a.width * a.height);
    };
    expect(differing(renderScene({ ...base, seed: 12 }))).toBeGreaterThan(0.2);
    expect(differing(renderScene({ ...base, prompt: "a purple heart on the right", seed: 11 }))).toBeGreaterThan(0.2);
  });

  it("paints the subject in the colour the prompt names", () => {
    const red = renderScene({ prompt: "a red circle", seed: 1, width: 512, height: 512 });
    expect(share(red, 256, 256, 40, isRed)).toBeGreaterThan(0.9);
    const blue = renderScene({ prompt: "a blue circle", seed: 1, width: 512, height: 512 });
    expect(share(blue, 256, 256, 40, isBlue)).toBeGreaterThan(0.9);
    expect(share(blue, 256, 256, 40, isRed)).toBe(0);
  });

  it("moves the subject where the prompt places it", () => {
    const size = { width: 600, height: 400, seed: 3 };
    const left = centroid(renderScene({ prompt: "a red square on the left", ...size }), isRed);
    const right = centroid(renderScene({ prompt: "a red square on the right", ...size }), isRed);
    const top = centroid(renderScene({ prompt: "a red square at the top", ...size }), isRed);
    const centred = centroid(renderScene({ prompt: "a red square", ...size }), isRed);
    expect(left.count).toBeGreaterThan(500);
    expect(left.x).toBeLessThan(0.35);
    expect(right.x).toBeGreaterThan(0.65);
    expect(top.y).toBeLessThan(0.4);
    expect(Math.abs(centred.x - 0.5)).toBeLessThan(0.05);
    expect(Math.abs(centred.y - 0.5)).toBeLessThan(0.05);
  });

  it("draws as many copies as the prompt counts", () => {
    const img = renderScene({ prompt: "three red circles", seed: 2, width: 900, height: 300 });
    let runs = 0;
    let inside = false;
    for (let x = 0; x < img.width; x++) {
      const red = isRed(pixel(img, x, 150));
      if (red && !inside) runs++;
      inside = red;
    }
    expect(runs).toBe(3);
  });

  it("draws one opaque subject clearly apart from a smooth, untextured background", () => {
    const prompts = ["a red circle", "a cat", "a white cloud", "a house", "zorblax quintessence", "a dark blue heart", "a golden star", "a pastel pink flower"];
    for (const prompt of prompts) {
      const img = renderScene({ prompt, seed: 4, width: 400, height: 300 });
      const corners = [pixel(img, 0, 0), pixel(img, 399, 0), pixel(img, 0, 299), pixel(img, 399, 299)];
      const centre = pixel(img, 200, 150);
      for (const corner of corners) expect(distance(centre, corner), prompt).toBeGreaterThan(80);
      // Along the whole border neighbours differ by at most a step of the gradient: no texture, no edges.
      let roughest = 0;
      for (let x = 1; x < img.width; x++) {
        roughest = Math.max(roughest, distance(pixel(img, x, 0), pixel(img, x - 1, 0)), distance(pixel(img, x, 299), pixel(img, x - 1, 299)));
      }
      for (let y = 1; y < img.height; y++) {
        roughest = Math.max(roughest, distance(pixel(img, 0, y), pixel(img, 0, y - 1)), distance(pixel(img, 399, y), pixel(img, 399, y - 1)));
      }
      expect(roughest, prompt).toBeLessThan(4);
    }
  });

  it("anti-aliases edges: a circle's rim has in-between colours, a pixel or two wide", () => {
    const img = renderScene({ prompt: "a red circle", seed: 1, width: 512, height: 512 });
    // Along the middle row, a pixel is "in between" when it differs from both of its neighbours
    // three pixels away: true only on a soft edge (a hard edge equals one side; flat areas both).
    let blended = 0;
    for (let x = 3; x < 509; x++) {
      const p = pixel(img, x, 256);
      if (distance(p, pixel(img, x - 3, 256)) > 20 && distance(p, pixel(img, x + 3, 256)) > 20) blended++;
    }
    expect(blended).toBeGreaterThanOrEqual(2); // left and right rim
    expect(blended).toBeLessThanOrEqual(8); // but crisp, not blurred
  });

  it("adds grain only when asked", () => {
    const grainy = renderScene({ prompt: "a red circle, grainy film", seed: 1, width: 200, height: 200 });
    let rough = 0;
    for (let x = 1; x < 200; x++) rough = Math.max(rough, distance(pixel(grainy, x, 2), pixel(grainy, x - 1, 2)));
    expect(rough).toBeGreaterThan(10);
  });

  it("takes its palette from reference images when the words name no colour", () => {
    const teal = { width: 64, height: 64, data: new Uint8ClampedArray(64 * 64 * 4) };
    for (let i = 0; i < teal.data.length; i += 4) teal.data.set([20, 140, 140, 255], i);
    const img = renderScene({ prompt: "a circle", seed: 1, width: 256, height: 256, references: [teal] });
    expect(distance(pixel(img, 128, 128), [20, 140, 140])).toBeLessThan(10);
    const named = renderScene({ prompt: "a red circle", seed: 1, width: 256, height: 256, references: [teal] });
    expect(isRed(pixel(named, 128, 128))).toBe(true);
  });

  it("renders a landscape with the ground below the horizon and the sky above", () => {
    const img = renderScene({ prompt: "a landscape with green hills", seed: 1, width: 400, height: 300 });
    const ground = pixel(img, 10, 290);
    const sky = pixel(img, 10, 10);
    expect(ground[1]!).toBeGreaterThan(ground[0]!); // grass green at the bottom
    expect(distance(ground, sky)).toBeGreaterThan(80);
  });
});
