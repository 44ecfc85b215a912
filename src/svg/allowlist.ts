// What survives sanitising: drawing elements and presentation attributes, nothing that runs
// code, loads anything, or embeds another document. Names match case-insensitively and
// without a namespace prefix (<svg:SCRIPT> is a script), and come out in their SVG spelling.

const ELEMENTS = [
  "svg", "g", "defs", "symbol", "use", "title", "desc", "path", "rect", "circle", "ellipse", "line", "polyline",
  "polygon", "text", "tspan", "textPath", "linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask",
  "marker", "style", "filter", "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feDropShadow",
  "feFlood", "feFuncA", "feFuncB", "feFuncG", "feFuncR", "feGaussianBlur", "feMerge", "feMergeNode", "feMorphology",
  "feOffset", "feTurbulence", "feDisplacementMap", "feTile",
];

/** Wrappers whose own tag goes but whose drawing children stay (a link becomes plain shapes). */
const UNWRAPPED = ["a", "switch"];

/** Elements whose text content is kept (everywhere else text is dropped). */
export const TEXT_ELEMENTS = new Set(["title", "desc", "text", "tspan", "textPath", "style"]);

const ATTRIBUTES = [
  "id", "class", "style", "transform", "lang", "role", "aria-label", "aria-hidden", "version", "href",
  "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr", "width", "height", "d", "points",
  "pathLength", "viewBox", "preserveAspectRatio",
  "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap", "stroke-linejoin",
  "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset", "opacity", "color", "display", "visibility",
  "clip-path", "clip-rule", "mask", "filter", "marker-start", "marker-mid", "marker-end", "paint-order",
  "vector-effect", "shape-rendering", "text-rendering", "image-rendering", "color-interpolation",
  "color-interpolation-filters", "flood-color", "flood-opacity", "lighting-color", "stop-color", "stop-opacity",
  "font-family", "font-size", "font-weight", "font-style", "font-variant", "letter-spacing", "word-spacing",
  "text-anchor", "dominant-baseline", "alignment-baseline", "baseline-shift", "text-decoration", "writing-mode",
  "direction", "overflow", "mix-blend-mode", "isolation",
  "offset", "gradientUnits", "gradientTransform", "spreadMethod", "patternUnits", "patternContentUnits",
  "patternTransform", "clipPathUnits", "maskUnits", "maskContentUnits", "markerUnits", "markerWidth",
  "markerHeight", "refX", "refY", "orient",
  "dx", "dy", "rotate", "textLength", "lengthAdjust", "startOffset", "method", "spacing",
  "in", "in2", "result", "stdDeviation", "mode", "operator", "k1", "k2", "k3", "k4", "type", "values", "tableValues",
  "slope", "intercept", "amplitude", "exponent", "radius", "scale", "xChannelSelector", "yChannelSelector",
  "baseFrequency", "numOctaves", "seed", "stitchTiles", "filterUnits", "primitiveUnits",
];

const byLowerCase = (names: string[]): Map<string, string> => new Map(names.map((n) => [n.toLowerCase(), n]));
const ELEMENT_NAMES = byLowerCase(ELEMENTS);
const ATTRIBUTE_NAMES = byLowerCase(ATTRIBUTES);

/** `svg:Rect` -> `rect`: the lower-case local name a tag is judged by. */
export function localName(name: string): string {
  const colon = name.lastIndexOf(":");
  return (colon >= 0 ? name.slice(colon + 1) : name).toLowerCase();
}

export type ElementVerdict = { keep: string } | "unwrap" | "drop";

export function judgeElement(name: string): ElementVerdict {
  const local = localName(name);
  const keep = ELEMENT_NAMES.get(local);
  if (keep) return { keep };
  return UNWRAPPED.includes(local) ? "unwrap" : "drop";
}

/**
 * The SVG spelling of an allowed attribute, or undefined. `xlink:href` becomes `href` (SVG 2),
 * so no xlink namespace is needed; any other prefixed attribute (xml:base, ev:event, ...) and
 * every event handler (on...) is refused.
 */
export function attributeName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === "xlink:href") return "href";
  if (lower.includes(":") || lower.startsWith("on")) return undefined;
  return ATTRIBUTE_NAMES.get(lower);
}
