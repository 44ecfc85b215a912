// The SVG composer's styles: what sits behind the motif and how each part is painted.
// icon: a rounded gradient plate; flat: no plate; outline and line: strokes only; duotone: one
// hue at two strengths; badge: a round plate with a ring. Unknown styles are drawn as icon.

import { darken, lighten, type Rgb } from "../render/color.ts";
import type { Palette } from "../render/palette.ts";
import type { Part } from "../render/shapes.ts";
import { element, hex, type Attrs } from "./markup.ts";

export const SVG_STYLES = ["icon", "flat", "outline", "line", "duotone", "badge"] as const;
export type SvgStyle = (typeof SVG_STYLES)[number];

export function svgStyleOf(style: string): SvgStyle {
  const wanted = style.trim().toLowerCase();
  return (SVG_STYLES as readonly string[]).includes(wanted) ? (wanted as SvgStyle) : "icon";
}

/** Half the side of the motif's unit box, in the 512 viewBox: badges leave room for the ring. */
export function motifScale(style: SvgStyle): number {
  return style === "badge" ? 150 : style === "icon" || style === "duotone" ? 165 : 200;
}

export function backdrop(style: SvgStyle, palette: Palette): string[] {
  const [from, to] = palette.background;
  switch (style) {
    case "icon":
      return [
        element("defs", {}, [
          element("linearGradient", { id: "plate", x1: "0", y1: "0", x2: "0", y2: "1" }, [
            element("stop", { offset: "0", "stop-color": hex(from) }),
            element("stop", { offset: "1", "stop-color": hex(to) }),
          ]),
        ]),
        element("rect", { x: 24, y: 24, width: 464, height: 464, rx: 104, fill: "url(#plate)" }),
      ];
    case "duotone":
      return [element("rect", { x: 24, y: 24, width: 464, height: 464, rx: 104, fill: hex(lighten(palette.body, 0.82)) })];
    case "badge":
      return [
        element("circle", { cx: 256, cy: 256, r: 236, fill: hex(from) }),
        element("circle", { cx: 256, cy: 256, r: 212, fill: "none", stroke: hex(palette.accent), "stroke-width": 10 }),
      ];
    default:
      return [];
  }
}

export function partPaint(style: SvgStyle, part: Part, color: Rgb, palette: Palette): Attrs {
  switch (style) {
    case "outline":
      return { fill: "none", stroke: hex(part.role === "dark" ? palette.dark : darken(color, 0.15)), "stroke-width": 10, "stroke-linejoin": "round", "stroke-linecap": "round" };
    case "line":
      return { fill: "none", stroke: hex(palette.dark), "stroke-width": 6, "stroke-linejoin": "round", "stroke-linecap": "round" };
    case "duotone": {
      const strong = part.role === "body" || part.role === "dark" || part.role === "shade";
      return strong ? { fill: hex(darken(palette.body, part.role === "dark" ? 0.5 : 0)) } : { fill: hex(palette.body), "fill-opacity": "0.45" };
    }
    default:
      return { fill: hex(color) };
  }
}
