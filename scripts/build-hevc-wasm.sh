#!/bin/sh
# Rebuilds src/codecs/native/pixelgate-hevc.wasm, the HEVC decoder the HEIC path uses
# (src/codecs/hevc.ts), from Debian bookworm's libde265 source package and our binding
# native/hevc/hevc_tile.cc. A module of its own, apart from pixelgate-codecs.wasm
# (scripts/build-wasm.sh): a HEIC recode runs both, one decoding a tile at a time, the other
# encoding, so neither's memory holds the other's buffers.
#
# Needs what scripts/build-wasm.sh needs (root, a deb-src line, emscripten, dpkg-dev).
# Usage: scripts/build-hevc-wasm.sh [work directory, default a fresh temporary one]
#
# The tarballs are pinned in native/hevc-sources.sha256; the output's sha256 goes into the
# "hevc" section of native/manifest.json (test/native/manifest.test.ts checks it).
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d)}
OUT=$REPO/src/codecs/native/pixelgate-hevc.wasm
mkdir -p "$(dirname "$OUT")"
cd "$WORK"

apt-get source --download-only libde265=1.0.11-1+deb12u2 >/dev/null
sha256sum -c "$REPO/native/hevc-sources.sha256"
DE265=$WORK/libde265-1.0.11
[ -d "$DE265" ] || dpkg-source --no-check -x libde265_1.0.11-1+deb12u2.dsc >/dev/null # applies Debian's patches (CVE fixes)

# Our patches to libde265 (native/hevc/*.patch, see docs/native-codecs.md) go into a copy of the
# unpacked tree; the copy and its objects are named by the patches' hash, so a changed patch
# never meets objects compiled without it.
PATCHES=$(cat "$REPO"/native/hevc/*.patch | sha256sum | cut -c1-12)
TREE=$WORK/libde265-pixelgate-$PATCHES
OBJECTS=$WORK/hevc-objects-$PATCHES
if [ ! -d "$TREE" ]; then
  rm -rf "$TREE.tmp"
  cp -r "$DE265" "$TREE.tmp"
  for p in "$REPO"/native/hevc/*.patch; do patch -s -d "$TREE.tmp" -p0 <"$p"; done
  mv "$TREE.tmp" "$TREE"
fi
mkdir -p "$OBJECTS"

# Portable C++ only: HAVE_SSE4_1 stays undefined, so libde265's x86 intrinsics (libde265/x86)
# are not compiled and its fallback DCT, motion and SAO code runs. No worker threads are
# started (de265_start_worker_threads is never called), so pthread calls are emscripten's
# single-threaded stubs. Images are allocated with posix_memalign.
CXXFLAGS="-O3 -msimd128 -DNDEBUG -fno-exceptions -DHAVE_POSIX_MEMALIGN"
export SOURCE_DATE_EPOCH=0
# The decoder's sources (libde265/CMakeLists.txt's list without the encoder en265.cc).
DECODER="alloc_pool bitstream cabac configparam contextmodel de265 deblock decctx dpb fallback-dct fallback-motion fallback image image-io intrapred md5 motion nal-parser nal pps quality refpic sao scan sei slice sps threads transform util visualize vps vui"
# shellcheck disable=SC2086
printf '%s\n' $DECODER | xargs -P 2 -I{} sh -c "[ -f $OBJECTS/{}.o ] || em++ $CXXFLAGS -I$TREE -I$TREE/libde265 -c $TREE/libde265/{}.cc -o $OBJECTS/{}.o 2>/dev/null"

# Standalone WASM like pixelgate-codecs.wasm: no JS glue, memory grown as malloc asks.
EXPORTS=_malloc,_free,_pg_hevc_decode,_pg_hevc_release,_pg_hevc_width,_pg_hevc_height,_pg_hevc_bits,_pg_hevc_chroma,_pg_hevc_plane,_pg_hevc_stride
LDFLAGS="--no-entry -sSTANDALONE_WASM -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=1mb -sTOTAL_STACK=256kb -sERROR_ON_UNDEFINED_SYMBOLS=1 -sEXPORTED_FUNCTIONS=$EXPORTS"
cd "$REPO"
# shellcheck disable=SC2086
em++ $CXXFLAGS -I"$TREE" -I"$TREE/libde265" -o "$OUT" native/hevc/hevc_tile.cc "$OBJECTS"/*.o $LDFLAGS

# Every loop draws on the call's work budget (scripts/wasm-fuel.ts, src/codecs/fuel.ts).
PATH="$REPO/node_modules/node/bin:$PATH" node "$REPO/scripts/wasm-fuel.ts" "$OUT"
EMCC_VERSION=$(emcc --version | head -1) CFLAGS=$CXXFLAGS LDFLAGS=$LDFLAGS \
  PATH="$REPO/node_modules/node/bin:$PATH" node "$REPO/scripts/native-manifest.ts" write hevc
echo "built $OUT ($(wc -c <"$OUT") bytes)"
