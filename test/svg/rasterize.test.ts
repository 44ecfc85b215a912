import { describe, expect, it } from "vitest";
import { composeSvg } from "../../src/providers/local/svg-composer";
import { rasterizeSvg } from "../../src/svg/raster/rasterize";

// The preview rasteriser behind MCP's SVG previews: what it draws lands where the markup says.

function pixel(image: { width: number; data: Uint8ClampedArray }, x: number, y: number): number[] {
  const at = (y * image.width + x) * 4;
  return [...image.data.subarray(at, at + 4)];
}

describe("rasterizeSvg", () => {
  it("fits the viewBox into the long side and fills rects and circles in their colours", () => {
    const image = rasterizeSvg('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><rect x="0" y="0" width="50" height="50" fill="#ff0000"/><circle cx="75" cy="25" r="20" fill="blue"/></svg>', 200)!;
    expect([image.width, image.height]).toEqual([200, 100]);
    expect(pixel(image, 50, 50)).toEqual([255, 0, 0, 255]);
    expect(pixel(image, 150, 50)).toEqual([0, 0, 255, 255]);
    expect(pixel(image, 198, 2)[3]).toBe(0);
  });

  it("applies group transforms and inherited paint", () => {
    const image = rasterizeSvg('<svg viewBox="0 0 100 100"><g transform="translate(50 0)" fill="#0f0"><rect width="10" height="10"/></g><g transform="rotate(90 50 50)"><rect x="80" y="45" width="10" height="10" fill="#00f"/></g></svg>', 100)!;
    expect(pixel(image, 55, 5)).toEqual([0, 255, 0, 255]);
    expect(pixel(image, 5, 5)[3]).toBe(0);
    expect(pixel(image, 50, 85)).toEqual([0, 0, 255, 255]); // (85, 50) turned a quarter clockwise about the centre
  });

  it("strokes paths with arcs and leaves fill none empty; gradients blend top to bottom; text and defs draw nothing", () => {
    const image = rasterizeSvg(
      '<svg viewBox="0 0 100 100"><defs><linearGradient id="g"><stop stop-color="#ffffff"/><stop offset="1" stop-color="#000000"/></linearGradient><rect width="100" height="100" fill="red"/></defs>' +
        '<rect x="0" y="60" width="100" height="40" fill="url(#g)"/><path d="M10 50 A40 40 0 0 1 90 50" fill="none" stroke="#000" stroke-width="4"/><text x="50" y="30" fill="red">hi</text></svg>',
      100,
    )!;
    expect(pixel(image, 50, 10)).toEqual([0, 0, 0, 255]);
    expect(pixel(image, 50, 30)[3]).toBe(0);
    const top = pixel(image, 50, 61)[0]!;
    const bottom = pixel(image, 50, 98)[0]!;
    expect(top).toBeGreaterThan(200);
    expect(bottom).toBeLessThan(60);
  });

  it("draws the local composer's icons, and gives up on markup without an svg element", () => {
    const image = rasterizeSvg(composeSvg({ prompt: "a red apple", style: "icon", seed: 1 }), 128)!;
    let opaque = 0;
    for (let i = 3; i < image.data.length; i += 4) if (image.data[i]! > 200) opaque++;
    expect(opaque / (image.width * image.height)).toBeGreaterThan(0.5);
    expect(rasterizeSvg("<div>not svg</div>", 64)).toBeNull();
  });
});
