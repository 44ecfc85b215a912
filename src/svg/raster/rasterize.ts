import type { RasterImage } from "../../codecs";
import { createCanvas, fillRings, type Canvas, type Ring } from "../../raster/coverage.ts";
import { tokenize } from "../tokenizer.ts";
import { multiply, numbersIn, parseTransform, pathPolylines, type Matrix } from "./geometry.ts";
import { paintOf, parseColor, type Gradients } from "./paint.ts";

// A small SVG rasteriser for previews (MCP shows agents a picture, and SVG is not one): shapes,
// paths, transforms, fills (solid or gradient as a vertical blend), strokes and opacity. Text,
// filters, clipping, masks and patterns are left out. It reads sanitised markup, so no external
// reference can be reached. Good enough to see what was drawn, not a renderer to ship images.

interface Style {
  matrix: Matrix;
  fill: string;
  stroke: string;
  strokeWidth: number;
  opacity: number;
  fillOpacity: number;
  strokeOpacity: number;
  evenOdd: boolean;
}

const SHAPES = new Set(["rect", "circle", "ellipse", "line", "polyline", "polygon", "path"]);
const SKIPPED = new Set(["defs", "clipPath", "mask", "pattern", "symbol", "marker", "text", "title", "desc", "metadata", "style", "filter"]);

function ellipse(cx: number, cy: number, rx: number, ry: number): number[] {
  const points: number[] = [];
  for (let i = 0; i < 48; i++) points.push(cx + rx * Math.cos((i * Math.PI) / 24), cy + ry * Math.sin((i * Math.PI) / 24));
  return points;
}

/** A shape's outlines in user units; `closed` false for lines. */
function outlinesOf(name: string, a: Record<string, string>): { points: number[]; closed: boolean }[] {
  const n = (key: string) => Number.parseFloat(a[key] ?? "0") || 0;
  switch (name) {
    case "rect": {
      const [x, y, w, h] = [n("x"), n("y"), n("width"), n("height")];
      return [{ points: [x, y, x + w, y, x + w, y + h, x, y + h], closed: true }];
    }
    case "circle":
      return [{ points: ellipse(n("cx"), n("cy"), n("r"), n("r")), closed: true }];
    case "ellipse":
      return [{ points: ellipse(n("cx"), n("cy"), n("rx"), n("ry")), closed: true }];
    case "line":
      return [{ points: [n("x1"), n("y1"), n("x2"), n("y2")], closed: false }];
    case "polyline":
    case "polygon":
      return [{ points: numbersIn(a.points ?? ""), closed: name === "polygon" }];
    default:
      return pathPolylines(a.d ?? "");
  }
}

function apply(m: Matrix, points: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < points.length; i += 2) out.push(m[0] * points[i]! + m[2] * points[i + 1]! + m[4], m[1] * points[i]! + m[3] * points[i + 1]! + m[5]);
  return out;
}

/** A stroke as rings: one quad per segment and a round-ish cap at every vertex. */
function strokeRings(outline: { points: number[]; closed: boolean }, width: number): number[][] {
  const p = outline.points;
  const rings: number[][] = [];
  const half = width / 2;
  const count = p.length / 2;
  for (let i = 0; i < count - (outline.closed ? 0 : 1); i++) {
    const j = (i + 1) % count;
    const [x0, y0, x1, y1] = [p[i * 2]!, p[i * 2 + 1]!, p[j * 2]!, p[j * 2 + 1]!];
    const length = Math.hypot(x1 - x0, y1 - y0);
    if (length === 0) continue;
    const [nx, ny] = [(-(y1 - y0) / length) * half, ((x1 - x0) / length) * half];
    rings.push([x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny]);
  }
  for (let i = 0; i < count; i++) rings.push(ellipse(p[i * 2]!, p[i * 2 + 1]!, half, half));
  return rings;
}

function styleOf(parent: Style, attrs: Record<string, string>): Style {
  const declared: Record<string, string> = { ...attrs };
  for (const declaration of (attrs.style ?? "").split(";")) {
    const [key, value] = declaration.split(":").map((part) => part.trim());
    if (key && value) declared[key] = value;
  }
  const number = (key: string, fallback: number) => (declared[key] !== undefined ? Number.parseFloat(declared[key]!) : fallback);
  return {
    matrix: multiply(parent.matrix, parseTransform(declared.transform)),
    fill: declared.fill ?? parent.fill,
    stroke: declared.stroke ?? parent.stroke,
    strokeWidth: number("stroke-width", parent.strokeWidth),
    opacity: parent.opacity * number("opacity", 1),
    fillOpacity: number("fill-opacity", parent.fillOpacity),
    strokeOpacity: number("stroke-opacity", parent.strokeOpacity),
    evenOdd: declared["fill-rule"] ? declared["fill-rule"] === "evenodd" : parent.evenOdd,
  };
}

function draw(canvas: Canvas, name: string, style: Style, attrs: Record<string, string>, gradients: Gradients): void {
  const outlines = outlinesOf(name, attrs).filter((outline) => outline.points.length >= 4);
  const scale = Math.sqrt(Math.abs(style.matrix[0] * style.matrix[3] - style.matrix[1] * style.matrix[2]));
  const fill = name === "line" || name === "polyline" ? null : paintOf(style.fill, style.opacity * style.fillOpacity, gradients);
  if (fill) fillRings(canvas, outlines.map((outline, index): Ring => ({ points: apply(style.matrix, outline.points), hole: style.evenOdd && index > 0 })), fill);
  const stroke = paintOf(style.stroke, style.opacity * style.strokeOpacity, gradients);
  if (stroke && style.strokeWidth * scale > 0.2) {
    const rings = outlines.flatMap((outline) => strokeRings(outline, style.strokeWidth)).map((points): Ring => ({ points: apply(style.matrix, points), hole: false }));
    fillRings(canvas, rings, stroke);
  }
}

/** The picture of `markup` fitted into `maxSide` pixels on its long side, on transparency. */
export function rasterizeSvg(markup: string, maxSide: number): RasterImage | null {
  const tokens = tokenize(markup);
  const gradients: Gradients = new Map();
  let gradient: string | null = null;
  for (const token of tokens) {
    if (token.type !== "start") continue;
    const attrs = Object.fromEntries(token.attrs);
    if (/gradient$/i.test(token.name)) gradients.set((gradient = attrs.id ?? ""), []);
    else if (token.name === "stop" && gradient !== null) {
      const color = parseColor(attrs["stop-color"] ?? /stop-color:\s*([^;]+)/.exec(attrs.style ?? "")?.[1]);
      if (color) gradients.get(gradient)!.push(color);
    }
  }
  const root = tokens.find((token) => token.type === "start" && token.name === "svg");
  if (!root || root.type !== "start") return null;
  const rootAttrs = Object.fromEntries(root.attrs);
  const box = numbersIn(rootAttrs.viewBox ?? "");
  const [bx, by, bw, bh] = box.length === 4 ? box : [0, 0, Number.parseFloat(rootAttrs.width ?? "") || 300, Number.parseFloat(rootAttrs.height ?? "") || 150];
  if (!(bw! > 0 && bh! > 0)) return null;
  const scale = maxSide / Math.max(bw!, bh!);
  const canvas = createCanvas(Math.max(1, Math.round(bw! * scale)), Math.max(1, Math.round(bh! * scale)));
  const base: Style = { matrix: multiply([scale, 0, 0, scale, 0, 0], [1, 0, 0, 1, -bx!, -by!]), fill: "black", stroke: "none", strokeWidth: 1, opacity: 1, fillOpacity: 1, strokeOpacity: 1, evenOdd: false };
  const stack: { name: string; style: Style }[] = [];
  let skipping = 0;
  for (const token of tokens) {
    if (token.type === "text") continue;
    if (token.type === "end") {
      if (stack.pop() && skipping > 0) skipping--;
      continue;
    }
    const style = styleOf(stack.at(-1)?.style ?? base, Object.fromEntries(token.attrs));
    const skip = skipping > 0 || SKIPPED.has(token.name);
    if (!skip && SHAPES.has(token.name)) draw(canvas, token.name, style, Object.fromEntries(token.attrs), gradients);
    if (!token.selfClosing) {
      stack.push({ name: token.name, style });
      if (skip) skipping++;
    }
  }
  return { width: canvas.width, height: canvas.height, data: canvas.data };
}
