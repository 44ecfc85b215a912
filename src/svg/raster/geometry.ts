// Geometry for the SVG preview rasteriser: affine transforms (the `transform` attribute) and
// path data (`d`) flattened to polylines. Curves become short chords, enough for a preview.

/** [a, b, c, d, e, f]: x' = a x + c y + e, y' = b x + d y + f. */
export type Matrix = readonly [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m: Matrix, n: Matrix): Matrix {
  return [m[0] * n[0] + m[2] * n[1], m[1] * n[0] + m[3] * n[1], m[0] * n[2] + m[2] * n[3], m[1] * n[2] + m[3] * n[3], m[0] * n[4] + m[2] * n[5] + m[4], m[1] * n[4] + m[3] * n[5] + m[5]];
}

export function numbersIn(text: string): number[] {
  return (text.match(/[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?/gi) ?? []).map(Number);
}

export function parseTransform(text: string | undefined): Matrix {
  let m = IDENTITY;
  for (const [, name, args] of (text ?? "").matchAll(/(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)/g)) {
    const v = numbersIn(args!);
    const a = ((v[0] ?? 0) * Math.PI) / 180;
    let step: Matrix = IDENTITY;
    if (name === "matrix" && v.length === 6) step = v as unknown as Matrix;
    else if (name === "translate") step = [1, 0, 0, 1, v[0] ?? 0, v[1] ?? 0];
    else if (name === "scale") step = [v[0] ?? 1, 0, 0, v[1] ?? v[0] ?? 1, 0, 0];
    else if (name === "skewX") step = [1, 0, Math.tan(a), 1, 0, 0];
    else if (name === "skewY") step = [1, Math.tan(a), 0, 1, 0, 0];
    else if (name === "rotate") {
      const [cx, cy] = [v[1] ?? 0, v[2] ?? 0];
      step = multiply(multiply([1, 0, 0, 1, cx, cy], [Math.cos(a), Math.sin(a), -Math.sin(a), Math.cos(a), 0, 0]), [1, 0, 0, 1, -cx, -cy]);
    }
    m = multiply(m, step);
  }
  return m;
}

const CURVE_STEPS = 12;

/** The elliptical arc of a path (SVG implementation notes, endpoint to centre form) as points. */
function arcPoints(x0: number, y0: number, rx: number, ry: number, angle: number, large: boolean, sweep: boolean, x: number, y: number): number[] {
  if (rx === 0 || ry === 0) return [x, y];
  const phi = (angle * Math.PI) / 180;
  const [cos, sin] = [Math.cos(phi), Math.sin(phi)];
  const dx = (x0 - x) / 2, dy = (y0 - y) / 2;
  const x1 = cos * dx + sin * dy, y1 = -sin * dx + cos * dy;
  rx = Math.abs(rx);
  ry = Math.abs(ry);
  const scale = Math.max(1, Math.sqrt((x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry)));
  rx *= scale;
  ry *= scale;
  const num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1;
  const root = Math.sqrt(Math.max(0, num / (rx * rx * y1 * y1 + ry * ry * x1 * x1))) * (large === sweep ? -1 : 1);
  const cx1 = (root * rx * y1) / ry, cy1 = (-root * ry * x1) / rx;
  const cx = cos * cx1 - sin * cy1 + (x0 + x) / 2, cy = sin * cx1 + cos * cy1 + (y0 + y) / 2;
  const start = Math.atan2((y1 - cy1) / ry, (x1 - cx1) / rx);
  let delta = Math.atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx) - start;
  if (sweep && delta < 0) delta += 2 * Math.PI;
  if (!sweep && delta > 0) delta -= 2 * Math.PI;
  const points: number[] = [];
  for (let i = 1; i <= CURVE_STEPS; i++) {
    const t = start + (delta * i) / CURVE_STEPS;
    points.push(cx + rx * Math.cos(t) * cos - ry * Math.sin(t) * sin, cy + rx * Math.cos(t) * sin + ry * Math.sin(t) * cos);
  }
  return points;
}

const ARG_COUNTS: Record<string, number> = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };

/** Path data as polylines, one per subpath, flat [x0, y0, x1, y1, ...]; `closed` per subpath. */
export function pathPolylines(d: string): { points: number[]; closed: boolean }[] {
  const out: { points: number[]; closed: boolean }[] = [];
  let current: { points: number[]; closed: boolean } | null = null;
  let [x, y, startX, startY, ctrlX, ctrlY] = [0, 0, 0, 0, 0, 0];
  let previous = "";
  for (const [, command, args] of d.matchAll(/([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)/g)) {
    const lower = command!.toLowerCase();
    const values = numbersIn(args!);
    const count = ARG_COUNTS[lower]!;
    const relative = command !== command!.toUpperCase();
    for (let i = 0; count === 0 ? i === 0 : i + count <= values.length; i += Math.max(count, 1)) {
      const v = values.slice(i, i + count);
      const ox = relative ? x : 0, oy = relative ? y : 0;
      const op = lower === "m" && i > 0 ? "l" : lower;
      if (op === "z") {
        if (current) current.closed = true;
        [x, y] = [startX, startY];
        current = null;
      } else if (op === "m") {
        [x, y] = [v[0]! + ox, v[1]! + oy];
        [startX, startY] = [x, y];
        current = { points: [x, y], closed: false };
        out.push(current);
      } else {
        if (!current) {
          current = { points: [x, y], closed: false };
          out.push(current);
        }
        const p = current.points;
        if (op === "l" || op === "t") [x, y] = [v[0]! + ox, v[1]! + oy]; // `t`: drawn straight (a preview)
        if (op === "h") x = v[0]! + ox;
        if (op === "v") y = v[0]! + (relative ? y : 0);
        if (op === "c" || op === "s" || op === "q") {
          const smooth = op === "s";
          const reflect = /[cs]/.test(previous) ? [2 * x - ctrlX, 2 * y - ctrlY] : [x, y];
          let c1 = smooth ? reflect : [v[0]! + ox, v[1]! + oy];
          let c2 = smooth ? [v[0]! + ox, v[1]! + oy] : op === "q" ? c1 : [v[2]! + ox, v[3]! + oy];
          const end = op === "c" ? [v[4]! + ox, v[5]! + oy] : [v[2]! + ox, v[3]! + oy];
          if (op === "q") {
            // A quadratic is the cubic whose controls lie two thirds of the way to its one control.
            const q = c1;
            c1 = [x + (2 / 3) * (q[0]! - x), y + (2 / 3) * (q[1]! - y)];
            c2 = [end[0]! + (2 / 3) * (q[0]! - end[0]!), end[1]! + (2 / 3) * (q[1]! - end[1]!)];
          }
          for (let k = 1; k <= CURVE_STEPS; k++) {
            const t = k / CURVE_STEPS, u = 1 - t;
            p.push(u * u * u * x + 3 * u * u * t * c1[0]! + 3 * u * t * t * c2[0]! + t * t * t * end[0]!, u * u * u * y + 3 * u * u * t * c1[1]! + 3 * u * t * t * c2[1]! + t * t * t * end[1]!);
          }
          [ctrlX, ctrlY] = [c2[0]!, c2[1]!];
          [x, y] = [end[0]!, end[1]!];
        } else if (op === "a") {
          const [ex, ey] = [v[5]! + ox, v[6]! + oy];
          p.push(...arcPoints(x, y, v[0]!, v[1]!, v[2]!, v[3] !== 0, v[4] !== 0, ex, ey));
          [x, y] = [ex, ey];
        } else {
          p.push(x, y);
        }
      }
      previous = op;
    }
  }
  return out;
}
