// Anti-aliased polygon filling by exact area coverage (the signed-area accumulation used by
// font rasterisers): every edge adds, to the pixels it crosses, the share of each pixel's area
// that lies to its right; a running sum along the row then gives each pixel's coverage in
// [0, 1] without supersampling. Edges of outer outlines count +1 and holes -1, whatever order
// their points were given in, and the sum is clamped to [0, 1]: overlapping outlines make a
// union and holes cut out. One Float32Array per render is reused for every shape.
// Shared by the local renderer (providers/local/render.ts) and the SVG preview (svg/raster).

/** An 8-bit sRGB colour. */
export type Rgb = readonly [number, number, number];

/** A closed outline in pixel coordinates, flat [x0, y0, x1, y1, ...]. */
export interface Ring {
  points: ArrayLike<number>;
  hole: boolean;
}

/**
 * How a shape is coloured: a vertical blend from `top` to `bottom` across the shape's height,
 * or `bands` equal horizontal stripes (the retro look). Solid colour is top === bottom.
 */
export interface Paint {
  top: Rgb;
  bottom: Rgb;
  bands?: readonly Rgb[];
  opacity?: number;
}

export interface Canvas {
  width: number;
  height: number;
  data: Uint8ClampedArray;
  /** The same pixels, one 32-bit word each, for whole-pixel writes (see packRgba). */
  pixels: Uint32Array;
  /** Scratch for coverage sums: (width + 2) * height floats. */
  coverage: Float32Array;
}

export function createCanvas(width: number, height: number): Canvas {
  const data = new Uint8ClampedArray(width * height * 4);
  return { width, height, data, pixels: new Uint32Array(data.buffer), coverage: new Float32Array((width + 2) * height) };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** An opaque RGBA pixel as the 32-bit word that lands as R, G, B, A in memory on this machine. */
export function packOpaque(r: number, g: number, b: number): number {
  return LITTLE_ENDIAN ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
}

function signedArea(p: ArrayLike<number>): number {
  let area = 0;
  for (let i = 0, n = p.length; i < n; i += 2) {
    const j = (i + 2) % n;
    area += p[i]! * p[j + 1]! - p[j]! * p[i + 1]!;
  }
  return area / 2;
}

/** Adds one edge's area contributions; coordinates are relative to the box, rows of `stride`. */
function accumulateEdge(acc: Float32Array, stride: number, bw: number, bh: number, ax: number, ay: number, bx: number, by: number, sign: number): void {
  if (ay === by) return;
  let dir = sign;
  if (ay > by) {
    [ax, ay, bx, by] = [bx, by, ax, ay];
    dir = -dir;
  }
  const dxdy = (bx - ax) / (by - ay);
  const rowEnd = Math.min(bh, Math.ceil(by));
  for (let row = Math.max(0, Math.floor(ay)); row < rowEnd; row++) {
    const top = row > ay ? row : ay;
    const bottom = row + 1 < by ? row + 1 : by;
    const dy = bottom - top;
    if (dy <= 0) continue;
    // Clamping x to the box per row keeps parts that stick out of the canvas exact enough:
    // everything left of the box accumulates into its first column.
    let xa = ax + (top - ay) * dxdy;
    let xb = ax + (bottom - ay) * dxdy;
    xa = xa < 0 ? 0 : xa > bw ? bw : xa;
    xb = xb < 0 ? 0 : xb > bw ? bw : xb;
    const d = dy * dir;
    const x0 = xa < xb ? xa : xb;
    const x1 = xa < xb ? xb : xa;
    const base = row * stride;
    const x0floor = Math.floor(x0);
    const x0i = x0floor | 0;
    const x1i = Math.ceil(x1) | 0;
    if (x1i <= x0i + 1) {
      const mid = 0.5 * (xa + xb) - x0floor; // the edge stays inside one pixel column
      acc[base + x0i] = acc[base + x0i]! + d - d * mid;
      acc[base + x0i + 1] = acc[base + x0i + 1]! + d * mid;
      continue;
    }
    const s = 1 / (x1 - x0);
    const x0f = x0 - x0floor;
    const a0 = 0.5 * s * (1 - x0f) * (1 - x0f);
    const x1f = x1 - x1i + 1;
    const am = 0.5 * s * x1f * x1f;
    acc[base + x0i] = acc[base + x0i]! + d * a0;
    if (x1i === x0i + 2) {
      acc[base + x0i + 1] = acc[base + x0i + 1]! + d * (1 - a0 - am);
    } else {
      const a1 = s * (1.5 - x0f);
      acc[base + x0i + 1] = acc[base + x0i + 1]! + d * (a1 - a0);
      const ds = d * s;
      for (let xi = x0i + 2; xi < x1i - 1; xi++) acc[base + xi] = acc[base + xi]! + ds;
      const a2 = a1 + (x1i - x0i - 3) * s;
      acc[base + x1i - 1] = acc[base + x1i - 1]! + d * (1 - a2 - am);
    }
    acc[base + x1i] = acc[base + x1i]! + d * am;
  }
}

/** Fills the union of the outer rings minus the holes with `paint`, blended over the canvas. */
export function fillRings(canvas: Canvas, rings: readonly Ring[], paint: Paint): void {
  const { width, height, coverage } = canvas;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const ring of rings) {
    const p = ring.points;
    for (let i = 0; i < p.length; i += 2) {
      const x = p[i]!, y = p[i + 1]!;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  const x0 = Math.max(0, Math.floor(minX));
  const y0 = Math.max(0, Math.floor(minY));
  const x1 = Math.min(width, Math.ceil(maxX));
  const y1 = Math.min(height, Math.ceil(maxY));
  if (x1 <= x0 || y1 <= y0) return;
  const bw = x1 - x0;
  const bh = y1 - y0;
  const stride = bw + 2;
  coverage.fill(0, 0, stride * bh);
  for (const ring of rings) {
    const p = ring.points;
    const area = signedArea(p);
    if (area === 0) continue;
    // A positive shoelace area accumulates -1 inside with this edge convention; flip as needed.
    const sign = (ring.hole ? 1 : -1) * Math.sign(area);
    for (let i = 0, n = p.length; i < n; i += 2) {
      const j = (i + 2) % n;
      accumulateEdge(coverage, stride, bw, bh, p[i]! - x0, p[i + 1]! - y0, p[j]! - x0, p[j + 1]! - y0, sign);
    }
  }
  compositeRows(canvas, x0, y0, bw, bh, stride, paint, minY, maxY);
}

function compositeRows(canvas: Canvas, x0: number, y0: number, bw: number, bh: number, stride: number, paint: Paint, top: number, bottom: number): void {
  const { width, data, pixels, coverage } = canvas;
  const opaque = (paint.opacity ?? 1) >= 1;
  const opacity = (paint.opacity ?? 1) * 256;
  const span = Math.max(1, bottom - top);
  for (let row = 0; row < bh; row++) {
    const t = Math.min(1, Math.max(0, (y0 + row + 0.5 - top) / span));
    const band = paint.bands ? paint.bands[Math.min(paint.bands.length - 1, Math.floor(t * paint.bands.length))]! : undefined;
    const r = band ? band[0] : Math.round(paint.top[0] + (paint.bottom[0] - paint.top[0]) * t);
    const g = band ? band[1] : Math.round(paint.top[1] + (paint.bottom[1] - paint.top[1]) * t);
    const b = band ? band[2] : Math.round(paint.top[2] + (paint.bottom[2] - paint.top[2]) * t);
    const packed = packOpaque(r, g, b);
    const base = row * stride;
    let o = ((y0 + row) * width + x0) * 4;
    let sum = 0;
    for (let col = 0; col < bw; col++, o += 4) {
      sum += coverage[base + col]!;
      const cover = sum < 0 ? 0 : sum > 1 ? 1 : sum;
      if (cover < 0.002) continue;
      if (cover > 0.998 && opaque) {
        pixels[o >> 2] = packed; // fully inside: the common case, one word per pixel
        continue;
      }
      const a = (cover * opacity + 0.5) | 0; // 0..256, integer blend below
      data[o] = data[o]! + (((r - data[o]!) * a) >> 8);
      data[o + 1] = data[o + 1]! + (((g - data[o + 1]!) * a) >> 8);
      data[o + 2] = data[o + 2]! + (((b - data[o + 2]!) * a) >> 8);
    }
  }
}
