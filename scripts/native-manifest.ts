// The build manifest of src/codecs/native/*.wasm (native/manifest.json): which Debian source
// packages went in (with the sha256 of each file apt-get source downloaded), the compiler and
// flags, and the sha256 of each output. scripts/build-wasm.sh writes it after a build;
// test/native/manifest.test.ts checks that the committed .wasm files are the ones it lists.
//
//   node scripts/native-manifest.ts write        (from build-wasm.sh: CFLAGS, LDFLAGS, EMCC_VERSION set)
//   node scripts/native-manifest.ts write hevc   (from build-hevc-wasm.sh: its own section, "hevc")
//   node scripts/native-manifest.ts check
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const REPO = path.resolve(import.meta.dirname, "..");
const MANIFEST = path.join(REPO, "native/manifest.json");
const OUTPUT_DIR = "src/codecs/native";

/** One build: its compiler, flags, source packages and outputs. */
export interface NativeBuild {
  compiler: string;
  cflags: string;
  ldflags: string;
  /** Debian source package name to { downloaded file (named with its version): sha256 }. */
  sources: Record<string, Record<string, string>>;
  /** Repository path of each built .wasm to its size and sha256. */
  outputs: Record<string, { bytes: number; sha256: string }>;
}

/**
 * The codec build at the top level; the HEVC decoder (scripts/build-hevc-wasm.sh) in a section
 * of its own, which each build's `write` keeps as it found it.
 */
export interface NativeManifest extends NativeBuild {
  hevc?: NativeBuild;
}

/** The output of the HEVC build; every other .wasm under OUTPUT_DIR is the codec build's. */
const HEVC_OUTPUT = `${OUTPUT_DIR}/pixelgate-hevc.wasm`;

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The .wasm files committed under src/codecs/native, with their size and hash. */
export function builtOutputs(): NativeManifest["outputs"] {
  const outputs: NativeManifest["outputs"] = {};
  for (const name of readdirSync(path.join(REPO, OUTPUT_DIR)).filter((n) => n.endsWith(".wasm")).sort()) {
    const bytes = readFileSync(path.join(REPO, OUTPUT_DIR, name));
    outputs[`${OUTPUT_DIR}/${name}`] = { bytes: bytes.length, sha256: sha256(bytes) };
  }
  return outputs;
}

/** A pin list (native/sources.sha256) grouped by source package (file names are package_version...). */
function sourcePackages(pins = "native/sources.sha256"): NativeManifest["sources"] {
  const sources: NativeManifest["sources"] = {};
  for (const line of readFileSync(path.join(REPO, pins), "utf8").split("\n")) {
    const [hash, file] = line.trim().split(/\s+/);
    if (!hash || !file) continue;
    (sources[file.split("_")[0]!] ??= {})[file] = hash;
  }
  return sources;
}

export function readManifest(): NativeManifest {
  return JSON.parse(readFileSync(MANIFEST, "utf8")) as NativeManifest;
}

/** Differences between the committed .wasm files and the manifest (empty: they match). */
export function manifestMismatches(): string[] {
  const manifest = readManifest();
  const listed = { ...manifest.outputs, ...manifest.hevc?.outputs };
  const built = builtOutputs();
  const problems: string[] = [];
  for (const file of new Set([...Object.keys(listed), ...Object.keys(built)])) {
    const a = listed[file];
    const b = built[file];
    if (!a) problems.push(`${file} is not in native/manifest.json`);
    else if (!b) problems.push(`${file} is in the manifest but missing`);
    else if (a.sha256 !== b.sha256) problems.push(`${file}: sha256 ${b.sha256}, manifest says ${a.sha256}`);
  }
  return problems;
}

if (import.meta.main) {
  const command = process.argv[2];
  if (command === "write") {
    const hevc = process.argv[3] === "hevc";
    const outputs = Object.entries(builtOutputs()).filter(([file]) => (file === HEVC_OUTPUT) === hevc);
    const build: NativeBuild = {
      compiler: process.env.EMCC_VERSION ?? "unknown",
      cflags: process.env.CFLAGS ?? "",
      ldflags: process.env.LDFLAGS ?? "",
      sources: sourcePackages(hevc ? "native/hevc-sources.sha256" : "native/sources.sha256"),
      outputs: Object.fromEntries(outputs),
    };
    const previous = readManifest();
    const manifest: NativeManifest = hevc ? { ...previous, hevc: build } : { ...build, ...(previous.hevc && { hevc: previous.hevc }) };
    writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  } else if (command === "check") {
    const problems = manifestMismatches();
    for (const problem of problems) console.error(problem);
    process.exitCode = problems.length ? 1 : 0;
  } else {
    console.error("usage: node scripts/native-manifest.ts write|check");
    process.exitCode = 2;
  }
}
