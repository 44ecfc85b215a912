// Runs after `npm install` (package.json "postinstall"): one small patch to the Emscripten glue
// of the jsquash codecs, made in node_modules the way patch-package would.
//
// Every codec call hands its input to WASM as a std::string, and the glue's embind code copies
// a typed array into WASM memory one byte per loop iteration:
//     for (var i = 0; i < length; ++i) { HEAPU8[ptr + i] = value[i] }
// That loop costs 4 to 10 ns per byte (a 4 MP RGBA image is 16 MB: 60 to 160 ms) where
// HEAPU8.set(value, ptr) copies the same bytes in about a millisecond. The loop was 7 to 12% of
// a WebP encode (npm run bench:codecs). The patch swaps in HEAPU8.set; nothing else changes, and
// the codecs still work unpatched, only slower.
//
// Idempotent; fails loudly when a file has neither form (a jsquash upgrade changed its glue), so
// a silent slowdown cannot creep back in.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

/** The glue files the worker imports (src/codecs/{webp,jpeg,avif}.ts). */
const GLUE_FILES = [
  "@jsquash/webp/codec/enc/webp_enc_simd.js",
  "@jsquash/webp/codec/dec/webp_dec.js",
  "@jsquash/jpeg/codec/enc/mozjpeg_enc.js",
  "@jsquash/jpeg/codec/dec/mozjpeg_dec.js",
  "@jsquash/avif/codec/enc/avif_enc.js",
  "@jsquash/avif/codec/dec/avif_dec.js",
];

const BYTE_LOOP = "}else{for(var i=0;i<length;++i){HEAPU8[ptr+i]=value[i]}}";
const ONE_COPY = "}else{HEAPU8.set(value,ptr)}";

function patchGlue(source: string): { source: string; state: "patched" | "already" } {
  const loops = source.split(BYTE_LOOP).length - 1;
  if (loops === 1) return { source: source.replace(BYTE_LOOP, ONE_COPY), state: "patched" };
  if (loops === 0 && source.includes(ONE_COPY)) return { source, state: "already" };
  throw new Error(`expected the embind byte-copy loop once, found it ${loops} times`);
}

let failed = false;
for (const file of GLUE_FILES) {
  const full = path.join(ROOT, "node_modules", file);
  try {
    const { source, state } = patchGlue(readFileSync(full, "utf8"));
    if (state === "patched") writeFileSync(full, source);
    console.log(`patch-codecs: ${file}: ${state === "patched" ? "input copy patched" : "already patched"}`);
  } catch (error) {
    failed = true;
    console.error(`patch-codecs: ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
if (failed) process.exit(1);
