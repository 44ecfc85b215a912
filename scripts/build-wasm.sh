#!/bin/sh
# Rebuilds src/codecs/native/pixelgate-codecs.wasm from Debian bookworm's source packages and
# our binding in native/. Not part of `npm test` or CI: they use the committed .wasm, and
# test/codecs/native-manifest.test.ts checks it against native/manifest.json.
#
# Needs, as root on Debian bookworm:
#   echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main' \
#     > /etc/apt/sources.list.d/src.list
#   apt-get update && apt-get install -y emscripten cmake dpkg-dev
# Usage: scripts/build-wasm.sh [work directory, default a fresh temporary one]
#
# The source versions and the sha256 of every downloaded tarball are pinned in
# native/sources.sha256: a different tarball stops the build. The output's sha256 goes into
# native/manifest.json together with the versions and flags.
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d)}
OUT=$REPO/src/codecs/native/pixelgate-codecs.wasm
mkdir -p "$WORK" "$(dirname "$OUT")"
cd "$WORK"

# Source packages (Debian bookworm versions; the .dsc files name the tarballs).
PACKAGES="libjpeg-turbo=1:2.1.5-2 libwebp=1.2.4-0.2+deb12u1 libspng=0.7.3-3 zlib=1:1.2.13.dfsg-1 libdeflate=1.14-1"
# shellcheck disable=SC2086
apt-get source --download-only $PACKAGES >/dev/null
sha256sum -c "$REPO/native/sources.sha256"
for dsc in libjpeg-turbo_*.dsc libwebp_*.dsc libspng_*.dsc zlib_*.dsc libdeflate_*.dsc; do
  dir=$(basename "$dsc" .dsc | sed 's/_\([^-]*\)-.*/-\1/')
  [ -d "$dir" ] || dpkg-source --no-check -x "$dsc" >/dev/null # applies Debian's patches
done

# One set of code-generation flags for every object. -msse2 lets libwebp use its SSE2 code,
# which emscripten maps onto WebAssembly SIMD (-msimd128). libjpeg-turbo's SIMD is x86/ARM
# assembly, so it is built as portable C (WITH_SIMD=0).
CFLAGS="-O3 -msimd128 -msse2 -DNDEBUG -fno-exceptions"
export SOURCE_DATE_EPOCH=0

# libjpeg-turbo: cmake generates its config headers; only the static libjpeg is built. Its
# size_t probe reads 9 under emscripten 3.1.6 (jchuff.c then fails to compile): set to wasm32s 4.
JPEG=$WORK/libjpeg-turbo-2.1.5
if [ ! -f "$JPEG/build/libjpeg.a" ]; then
  mkdir -p "$JPEG/build"
  (cd "$JPEG/build" && emcmake cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="$CFLAGS" \
    -DENABLE_SHARED=0 -DWITH_SIMD=0 -DWITH_TURBOJPEG=0 -DWITH_ARITH_ENC=0 -DWITH_ARITH_DEC=1 >/dev/null &&
    sed -i 's/^#define SIZEOF_SIZE_T .*/#define SIZEOF_SIZE_T  4/' jconfigint.h &&
    emmake make -j2 jpeg-static >/dev/null)
fi

# libwebp: the encoder and the still-image decoder, their DSP code and utilities, compiled directly
# (no configure step needed), from a copy with our patch: the token partition hands its finished
# bytes out (VP8BitWriterSpill, native/webp_sink.c) instead of doubling its buffer. The copy sits
# next to the extracted sources, which stay as Debian ships them.
rm -rf "$WORK/libwebp-1.2.4.memory"
cp -r "$WORK/libwebp-1.2.4" "$WORK/libwebp-1.2.4.memory"
patch -s -p0 -d "$WORK/libwebp-1.2.4.memory" <"$REPO/native/libwebp-memory.patch"
WEBP=$WORK/libwebp-1.2.4.memory
WEBP_SOURCES=$(cd "$WEBP" && ls src/enc/*.c src/dec/*.c src/dsp/*.c src/utils/*.c sharpyuv/*.c | grep -v -e _neon -e _msa -e _mips)

# Standalone WASM (WASI-style imports, no JS glue: src/codecs/native.ts instantiates it), memory
# grown exactly as malloc asks, no filesystem, no threads. pg_fail is our import (pixelgate.h).
LDFLAGS="--no-entry -sSTANDALONE_WASM -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=1mb -sTOTAL_STACK=256kb -sERROR_ON_UNDEFINED_SYMBOLS=0 -sEXPORTED_FUNCTIONS=_malloc,_free,_pg_jpeg_to_webp,_pg_jpeg_to_jpeg,_pg_raster_begin,_pg_raster_rows,_pg_raster_end,_pg_png_to,_pg_to_png,_pg_planes_to_png,_pg_planes_to_gif,_pg_planes_bmp_begin,_pg_planes_begin,_pg_planes_rows,_pg_planes_end,_pg_planes_orientation,_pg_webp_to_webp,_pg_webp_to_jpeg,_pg_jpeg_baseline,_pg_to_gif,_pg_bmp_begin,_pg_bmp_rows,_pg_jpeg_window,_pg_webp_low_memory,_pg_webp_token_cap,_pg_output_data,_pg_output_size,_pg_rgba_to_png,_pg_rgba_to_gif,_pg_rgba_bmp_begin,_pg_resize_file,_pg_planes_resize,_pg_resize_begin,_pg_resize_rows,_pg_resize_end,_pg_png_push_begin,_pg_png_push_rows,_pg_png_push_end"

# zlib (libspng inflates PNG data with it; its encoder side links deflate too) and libspng,
# compiled directly.
# SPNG_DISABLE_OPT: libspng's x86 filter code targets SSE2/SSSE3 by attribute, not WebAssembly.
ZLIB=$WORK/zlib-1.2.13.dfsg
SPNG=$WORK/libspng-0.7.3
PNG_SOURCES="$ZLIB/adler32.c $ZLIB/crc32.c $ZLIB/inffast.c $ZLIB/inflate.c $ZLIB/inftrees.c $ZLIB/zutil.c $ZLIB/deflate.c $ZLIB/trees.c $SPNG/spng/spng.c"

# libdeflate's compressor (the PNG writer's deflate, native/png_deflate.c), with our patch adding
# libdeflate_deflate_compress_part (a stream compressed a part at a time). The patched file is
# written next to the extracted sources, which stay as Debian ships them.
DEFLATE=$WORK/libdeflate-1.14
rm -f "$WORK/deflate_compress.parts.c"
patch -s -o "$WORK/deflate_compress.parts.c" "$DEFLATE/lib/deflate_compress.c" <"$REPO/native/libdeflate-parts.patch"
DEFLATE_SOURCES="$WORK/deflate_compress.parts.c $DEFLATE/lib/utils.c"

cd "$REPO"
# shellcheck disable=SC2086
emcc $CFLAGS -DSPNG_STATIC -DSPNG_DISABLE_OPT -o "$OUT" -I"$JPEG" -I"$JPEG/build" -I"$WEBP" -I"$WEBP/src" -I"$ZLIB" -I"$SPNG/spng" -I"$DEFLATE" -I"$DEFLATE/lib" \
  native/*.c $PNG_SOURCES $DEFLATE_SOURCES $(for f in $WEBP_SOURCES; do printf '%s ' "$WEBP/$f"; done) "$JPEG/build/libjpeg.a" $LDFLAGS

# Every loop draws on the call's work budget (scripts/wasm-fuel.ts, src/codecs/fuel.ts).
PATH="$REPO/node_modules/node/bin:$PATH" node "$REPO/scripts/wasm-fuel.ts" "$OUT"
EMCC_VERSION=$(emcc --version | head -1) CFLAGS=$CFLAGS LDFLAGS=$LDFLAGS \
  PATH="$REPO/node_modules/node/bin:$PATH" node "$REPO/scripts/native-manifest.ts" write
echo "built $OUT ($(wc -c <"$OUT") bytes)"
