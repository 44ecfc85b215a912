// The local SVG composer: icon-style markup from the prompt's words, in every style, that the
// sanitiser passes unchanged, and that is the same for the same (prompt, style, seed).

import { describe, expect, it } from "vitest";
import { composeSvg } from "../../../src/providers/local/svg-composer.ts";
import { sanitizeSvg } from "../../../src/svg/sanitize.ts";
import { checkWellFormed } from "../../svg/well-formed.ts";

const STYLES = ["icon", "flat", "outline", "line", "duotone", "badge", "watercolour"];
const PROMPTS = ["a red heart", "a cat and a moon", "three green trees", "zorblax quintessence", "a house", "pastel donut pattern", "a rocket"];

describe("composeSvg", () => {
  it("passes the sanitiser byte for byte and is well-formed, in every style", () => {
    for (const style of STYLES) {
      for (const prompt of PROMPTS) {
        const svg = composeSvg({ prompt, style, seed: 7 });
        expect(sanitizeSvg(svg), `${style}: ${prompt}`).toBe(svg);
        const outline = checkWellFormed(svg);
        expect(outline.root).toBe("svg");
        expect(outline.rootAttributes).toMatchObject({ xmlns: "http://www.w3.org/2000/svg", width: "512", height: "512", viewBox: "0 0 512 512" });
        expect(outline.elements[1]).toBe("title");
      }
    }
  });

  it("is deterministic per (prompt, style, seed) and varies with the seed", () => {
    expect(composeSvg({ prompt: "a blue star", style: "icon", seed: 42 })).toBe(composeSvg({ prompt: "a blue star", style: "icon", seed: 42 }));
    const bySeed = new Set([1, 2, 3, 4, 5].map((seed) => composeSvg({ prompt: "a blue star", style: "icon", seed })));
    expect(bySeed.size).toBe(5);
  });

  it("escapes the prompt into the title", () => {
    const svg = composeSvg({ prompt: 'a <b>bold</b> & "quoted" cat', style: "icon", seed: 1 });
    expect(svg).toContain('<title>a &lt;b&gt;bold&lt;/b&gt; &amp; "quoted" cat</title>');
  });

  it("draws the shapes the words name, in the colours they name", () => {
    const circle = composeSvg({ prompt: "a red circle", style: "flat", seed: 3 });
    expect(circle).toMatch(/<circle cx="256" cy="256" r="160" fill="#dc2832"\/>/); // red = (220, 40, 50), r = 0.8 of 200
    const ring = composeSvg({ prompt: "a donut", style: "flat", seed: 3 });
    expect(ring).toMatch(/<path d="M[^"]+ZM[^"]+Z" fill-rule="evenodd"/); // outline and hole
    const house = checkWellFormed(composeSvg({ prompt: "a house", style: "flat", seed: 3 })).elements;
    expect(house.filter((e) => e === "rect").length).toBeGreaterThanOrEqual(4); // walls, door, windows, chimney
    expect(house).toContain("path"); // the roof
    const three = checkWellFormed(composeSvg({ prompt: "three circles", style: "flat", seed: 3 })).elements;
    expect(three.filter((e) => e === "circle").length).toBeGreaterThanOrEqual(3);
  });

  it("changes the rendering with the style; unknown styles are drawn as icon", () => {
    const prompt = "a yellow sun";
    const icon = composeSvg({ prompt, style: "icon", seed: 9 });
    expect(icon).toContain('fill="url(#plate)"');
    expect(composeSvg({ prompt, style: "no-such-style", seed: 9 })).toBe(icon);
    expect(composeSvg({ prompt, style: " ICON ", seed: 9 })).toBe(icon);
    const flat = composeSvg({ prompt, style: "flat", seed: 9 });
    expect(flat).not.toContain("<rect");
    const outline = composeSvg({ prompt, style: "outline", seed: 9 });
    expect(outline.match(/fill="none"/g)!.length).toBeGreaterThan(5);
    expect(outline).toContain('stroke-width="10"');
    const line = composeSvg({ prompt, style: "line", seed: 9 });
    expect(new Set(line.match(/stroke="#[0-9a-f]{6}"/g))).toHaveProperty("size", 1); // one ink colour
    const badge = composeSvg({ prompt, style: "badge", seed: 9 });
    expect(badge).toMatch(/^<svg[^>]*><title>[^<]*<\/title><circle cx="256" cy="256" r="236"/);
    const duotone = composeSvg({ prompt, style: "duotone", seed: 9 });
    expect(new Set(duotone.match(/fill="#[0-9a-f]{6}"/g)).size).toBeLessThanOrEqual(3); // plate, colour, its dark
  });
});
