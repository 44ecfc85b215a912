// A PNG or lossless WebP to WebP is priced for the densest picture at the quality
// (src/codecs/recode-cost.ts WEBP_DENSEST): this measures the pictures that bound was fitted on,
// each in a fresh memory child (codecs-memory-child.ts, the request's body counted), against the
// estimate the memory gate admits it with and the pixel limit:
//
//   node scripts/bench/webp-densest.ts [megapixels ...]      (default: 4 12)
//
// Inputs, made with sharp: binary noise (every sample 0 or 255, the most VP8 writes), the same
// with each row a 61-pixel tile repeated (deflate and VP8L find the repeats: a small upload of
// the densest picture), that tile with random alpha, and 3-bit noise with 3-bit alpha (dense
// and as large an upload as the 20 MB limit lets through at 12 MP), as PNG and lossless WebP.
// A row whose peak is over its estimate says the figures must change.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import sharp from "sharp";
import { dimensionsFor } from "./codecs-images.ts";
import type { MemoryReport } from "./codecs-memory-child.ts";
import { loadCodecs, REPO_ROOT, type Format } from "./codecs-service.ts";

type Kind = "binary" | "tiled" | "tiled-alpha" | "noise3-alpha";
const KINDS: Kind[] = ["binary", "tiled", "tiled-alpha", "noise3-alpha"];
const QUALITIES = [70, 80, 90, 100];

let seed = 2463534242;
function next(): number {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>>= 0);
}

/** Raw samples of `kind` at `width` x `height`, and their channel count. */
function samples(kind: Kind, width: number, height: number): { data: Uint8Array; channels: 3 | 4 } {
  const channels = kind === "binary" || kind === "tiled" ? 3 : 4;
  const data = new Uint8Array(width * height * channels);
  const tile = new Uint8Array(61 * channels);
  for (let y = 0; y < height; y++) {
    for (let i = 0; i < tile.length; i++) {
      const alpha = channels === 4 && i % 4 === 3;
      tile[i] = kind === "noise3-alpha" ? (next() & 7) * 36 : alpha ? next() & 255 : next() & 1 ? 255 : 0;
    }
    const row = y * width * channels;
    for (let x = 0; x < width; x++) {
      if (kind === "binary" || kind === "noise3-alpha") for (let c = 0; c < channels; c++) data[row + x * channels + c] = kind === "binary" ? (next() & 1 ? 255 : 0) : (next() & 7) * 36;
      else data.set(tile.subarray((x % 61) * channels, (x % 61) * channels + channels), row + x * channels);
    }
  }
  return { data, channels };
}

const codecs = await loadCodecs();
const at = (file: string) => pathToFileURL(path.join(REPO_ROOT, "src/codecs", file)).href;
type Price = { perPixel: number };
type Route = { price: Price; webp?: { lowMemory?: boolean } } | null;
const route = (await import(at("recode-route.ts"))) as { nativeRoute(bytes: Uint8Array, input: Format, target: Format, pixels: number, quality: number): Route };
const limits = (await import(at("limits.ts"))) as {
  estimateCodecBytes(pixels: number, price: Price, inputBytes: number): number;
  maxRecodePixels(input: Format, price: Price, inputBytes: number): number;
};

const dir = mkdtempSync(path.join(os.tmpdir(), "webp-densest-"));
const mb = (bytes: number) => (bytes / 1e6).toFixed(1).padStart(6);
console.log("input                     upload  q    WebP   peak  estimate  peak/est  coded as it goes  admitted");
try {
  for (const megapixels of process.argv.length > 2 ? process.argv.slice(2).map(Number) : [4, 12]) {
    const { width, height } = dimensionsFor(megapixels);
    for (const kind of KINDS) {
      const { data, channels } = samples(kind, width, height);
      const raw = sharp(Buffer.from(data.buffer), { raw: { width, height, channels } });
      for (const format of ["png", "webp"] as const) {
        const file = new Uint8Array(format === "png" ? await raw.clone().png({ compressionLevel: 9 }).toBuffer() : await raw.clone().webp({ lossless: true }).toBuffer());
        const inputPath = path.join(dir, `${kind}-${megapixels}.${format}`);
        writeFileSync(inputPath, file);
        for (const quality of QUALITIES) {
          const chosen = route.nativeRoute(file, format, "webp", width * height, quality);
          if (!chosen) throw new Error(`${kind} ${format} to WebP took the general path`);
          const estimate = limits.estimateCodecBytes(width * height, chosen.price, file.length);
          const admitted = limits.maxRecodePixels(format, chosen.price, file.length) >= width * height;
          const spec = JSON.stringify({ id: inputPath, inputPath, target: "webp", quality });
          const child = spawnSync(process.execPath, ["--expose-gc", path.join(REPO_ROOT, "scripts/bench/codecs-memory-child.ts"), spec], { encoding: "utf8", maxBuffer: 1 << 26 });
          const line = child.stdout.split("\n").find((text) => text.startsWith("MEMORY "));
          const report = line ? (JSON.parse(line.slice("MEMORY ".length)) as MemoryReport) : null;
          const name = `${kind} ${megapixels} MP ${format === "png" ? "PNG" : "lossless WebP"}`.padEnd(24);
          if (!report?.ok) {
            // A file past what the budget left it fails after the work began: its peak still counts.
            const peak = report?.peak ? `${mb(report.peak.total)}    ${mb(estimate)}     ${(report.peak.total / estimate).toFixed(2)}` : "";
            console.log(`${name} ${mb(file.length)} ${String(quality).padStart(3)}  failed ${peak}  ${report?.error ?? child.stderr.slice(-200)}`);
            continue;
          }
          const ratio = report.peak.total / estimate;
          console.log(`${name} ${mb(file.length)} ${String(quality).padStart(3)} ${mb(report.outputBytes)} ${mb(report.peak.total)}    ${mb(estimate)}     ${ratio.toFixed(2)}${ratio > 1 ? " OVER" : "     "}  ${chosen?.webp?.lowMemory ? "yes" : "no "}               ${admitted ? "yes" : "no"}`);
        }
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
