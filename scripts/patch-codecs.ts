// Runs after `npm install` (package.json "postinstall"): small patches to the Emscripten glue
// of the jsquash codecs and libheif-js, made in node_modules the way patch-package would.
//
// 1. The input copy (every codec):
//
// Every codec call hands its input to WASM as a std::string, and the glue's embind code copies
// a typed array into WASM memory one byte per loop iteration:
//     for (var i = 0; i < length; ++i) { HEAPU8[ptr + i] = value[i] }
// That loop costs 4 to 10 ns per byte (a 4 MP RGBA image is 16 MB: 60 to 160 ms) where
// HEAPU8.set(value, ptr) copies the same bytes in about a millisecond. The loop was 7 to 12% of
// a WebP encode (npm run bench:codecs). The patch swaps in HEAPU8.set; nothing else changes, and
// the codecs still work unpatched, only slower.
//
// 2. libheif-js's plane views: its binding (heif_js_decode_image2) hands out each plane as a
// typed-array view of stride x the image's full height, which for a 4:2:0 chroma plane is twice
// its real size. When that plane lies near the top of WASM memory, the view runs past the end
// and the glue throws RangeError (a 2000x2000 HEIC decoded to YCbCr: "Invalid typed array
// length: 2016000"). The patch ends such a view at the end of memory; src/codecs/heic.ts reads
// only the rows a plane has.
//
// 3. libheif-js's environment check: with nodejs_compat a Worker has `process.versions.node`, so
// the glue takes its Node branch, which sets its script directory from `__dirname`. Bundled by
// wrangler there is no `__dirname` (vitest's module runner defines one, which hid this), and
// every HEIC decode in `wrangler dev` or a deployed worker threw ReferenceError: a 500. The
// directory is never used (the .wasm is handed to the glue, nothing is read from disk), so the
// patch reads `__dirname` only where it exists.
//
// 4. Work budget: every codec's .wasm is metered (scripts/wasm-fuel.ts): its loops draw on the
// call's work budget (src/codecs/fuel.ts), so no file can keep a codec running unbounded. An
// unmetered module would not instantiate (the worker hands every instance the fuel import, which
// it would ignore) so this step is checked like the others: src/codecs/fuel.ts refuses an
// instance whose module does not import the fuel.
//
// 5. Initial memory: each of those modules starts with the memory its data and stack need
// (scripts/wasm-memory.ts) instead of Emscripten's default 16 MB, and grows as it allocates.
//
// Idempotent; fails loudly when a file has neither form (a jsquash upgrade changed its glue), so
// a silent slowdown cannot creep back in.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { meterModule } from "./wasm-fuel.ts";
import { withLeastInitialMemory } from "./wasm-memory.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

/** The byte loop of one Emscripten version's glue, and the single copy that replaces it. */
interface GlueForm {
  loop: string;
  copy: string;
}

/** jsquash's glue (the six codec files). */
const JSQUASH: GlueForm = { loop: "}else{for(var i=0;i<length;++i){HEAPU8[ptr+i]=value[i]}}", copy: "}else{HEAPU8.set(value,ptr)}" };
/** libheif-js's minified glue: the same loop with short names (M is HEAPU8). */
const LIBHEIF: GlueForm = { loop: "else for(var h=0;h<s;++h)M[d+h]=n[h];return", copy: "else M.set(n,d);return" };

/** libheif-js's memory_view reader (n: the view's type, d: the pointer, l: its element count). */
const LIBHEIF_PLANE_VIEW: GlueForm = {
  loop: "return new n(A.buffer,d,l)}",
  copy: "return new n(A.buffer,d,Math.min(l,(A.buffer.byteLength-d)/n.BYTES_PER_ELEMENT|0))}",
};

/** libheif-js's Node branch: its script directory, from `__dirname` only when there is one. */
const LIBHEIF_DIRNAME: GlueForm = { loop: 'U=__dirname+"/"', copy: 'U=(typeof __dirname=="string"?__dirname:".")+"/"' };

/** The glue files the worker imports (src/codecs/{webp,jpeg,avif,heic}.ts), with each patch. */
const GLUE_FILES: [string, GlueForm][] = [
  ["@jsquash/webp/codec/enc/webp_enc_simd.js", JSQUASH],
  ["@jsquash/webp/codec/dec/webp_dec.js", JSQUASH],
  ["@jsquash/jpeg/codec/enc/mozjpeg_enc.js", JSQUASH],
  ["@jsquash/jpeg/codec/dec/mozjpeg_dec.js", JSQUASH],
  ["@jsquash/avif/codec/enc/avif_enc.js", JSQUASH],
  ["@jsquash/avif/codec/dec/avif_dec.js", JSQUASH],
  ["libheif-js/libheif-wasm/libheif.js", LIBHEIF],
  ["libheif-js/libheif-wasm/libheif.js", LIBHEIF_PLANE_VIEW],
  ["libheif-js/libheif-wasm/libheif.js", LIBHEIF_DIRNAME],
];

function patchGlue(source: string, form: GlueForm): { source: string; state: "patched" | "already" } {
  const loops = source.split(form.loop).length - 1;
  if (loops === 1) return { source: source.replace(form.loop, form.copy), state: "patched" };
  if (loops === 0 && source.includes(form.copy)) return { source, state: "already" };
  throw new Error(`expected the glue's original form once, found it ${loops} times`);
}

let failed = false;
for (const [file, form] of GLUE_FILES) {
  const full = path.join(ROOT, "node_modules", file);
  try {
    const { source, state } = patchGlue(readFileSync(full, "utf8"), form);
    if (state === "patched") writeFileSync(full, source);
    console.log(`patch-codecs: ${file}: ${state === "patched" ? "patched" : "already patched"}`);
  } catch (error) {
    failed = true;
    console.error(`patch-codecs: ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
/** The codecs' modules the worker and the tests import, metered in place. */
const WASM_FILES = [
  "@jsquash/webp/codec/enc/webp_enc.wasm", // the tests' reference WebP encoder (test/codecs/support.ts)
  "@jsquash/webp/codec/dec/webp_dec.wasm",
  "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm",
  "@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm",
  "@jsquash/avif/codec/enc/avif_enc.wasm",
  "@jsquash/avif/codec/dec/avif_dec.wasm",
  "libheif-js/libheif-wasm/libheif.wasm",
];

for (const file of WASM_FILES) {
  const full = path.join(ROOT, "node_modules", file);
  try {
    const before = readFileSync(full);
    const metered = meterModule(before);
    const after = withLeastInitialMemory(metered);
    if (after !== before) writeFileSync(full, after);
    const done = [metered !== before ? "metered" : "already metered", after !== metered ? "initial memory lowered" : null].filter(Boolean).join(", ");
    console.log(`patch-codecs: ${file}: ${done}`);
  } catch (error) {
    failed = true;
    console.error(`patch-codecs: ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
if (failed) process.exit(1);
