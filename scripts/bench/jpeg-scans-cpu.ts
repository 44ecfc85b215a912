// CPU of a progressive JPEG with as many scans as the service allows, against the same photo
// with its own scans (the baseline), at 24 MP:
//
//   node scripts/bench/jpeg-scans-cpu.ts [scans ...]      (default: 10 32 100)
//
// Each scan of a progressive file makes the decoder walk every block again and re-pack the
// coefficient rows (native/coef_store.c), whatever the scan holds: a "scan bomb" is a real
// photo followed by many scans of a few bytes. The photo is the benchmark's scene as a camera
// writes it (quality 90, 4:2:0, libjpeg's 10-scan progressive script); the extra scans are the
// last scan of a small progressive file, repeated. recodeImage runs past the service's scan
// limit here (the checks before the charge are skipped), so counts above it can be compared.
import path from "node:path";
import { pathToFileURL } from "node:url";
import sharp from "sharp";
import { photoLike } from "./codecs-images.ts";
import { loadCodecs, REPO_ROOT, type Format } from "./codecs-service.ts";

const WIDTH = 6000;
const HEIGHT = 4000;

function sosOffsets(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 0xff && bytes[i + 1] === 0xda) out.push(i);
  return out;
}

/** `photo` with the scan `extra` appended until it has `scans` scans. */
function withScans(photo: Uint8Array, extra: Uint8Array, scans: number): Uint8Array {
  const repeated = Array.from({ length: Math.max(0, scans - sosOffsets(photo).length) }, () => extra);
  return new Uint8Array(Buffer.concat([photo.subarray(0, photo.length - 2), ...repeated, new Uint8Array([0xff, 0xd9])]));
}

const counts = process.argv.slice(2).map(Number);
const scene = photoLike({ width: WIDTH, height: HEIGHT }, false);
const raw = { raw: { width: WIDTH, height: HEIGHT, channels: 4 as const } };
const photo = new Uint8Array(await sharp(Buffer.from(scene.data.buffer), raw).removeAlpha().jpeg({ quality: 90, chromaSubsampling: "4:2:0", progressive: true }).toBuffer());
const small = new Uint8Array(await sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 90, g: 140, b: 200 } } }).jpeg({ progressive: true }).toBuffer());
const extra = small.subarray(sosOffsets(small).at(-1)!, small.length - 2);

// recodeImage checks the scans before decoding; the native transcoder past that check is what a
// file over the limit would cost if it were let through (imported by a computed specifier, as
// codecs-service.ts does, to keep the worker's sources out of the Node type check).
const codecs = await loadCodecs();
const recode = (await import(pathToFileURL(path.join(REPO_ROOT, "src/codecs/native.ts")).href)) as {
  transcodeJpeg(bytes: Uint8Array, size: { width: number; height: number }, target: "webp" | "jpeg", quality: number): Uint8Array | null;
};
const own = sosOffsets(photo).length;
console.log(`24 MP progressive photo: ${own} scans of its own, ${(photo.length / 1e6).toFixed(1)} MB; CPU ms (user + system), median of 3`);
for (const target of ["jpeg", "webp"] as const satisfies readonly Format[]) {
  let baseline = 0;
  for (const scans of [own, ...(counts.length > 0 ? counts : [32, 100])]) {
    const file = withScans(photo, extra, scans);
    const runs: number[] = [];
    for (let k = 0; k < 3; k++) {
      const start = process.cpuUsage();
      recode.transcodeJpeg(file, codecs.readHeader(file, "jpeg"), target, 80);
      const used = process.cpuUsage(start);
      runs.push((used.user + used.system) / 1000);
    }
    const median = runs.sort((a, b) => a - b)[1]!;
    if (scans === own) baseline = median;
    console.log(`  to ${target}, ${String(scans).padStart(3)} scans: ${median.toFixed(0).padStart(5)} ms  ${(median / baseline).toFixed(2)}x the photo's own`);
  }
}
