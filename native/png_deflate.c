// The PNG writer's zlib stream, compressed by libdeflate a part at a time: filtered rows gather
// in a buffer of about 256 KB, each full buffer is compressed on its own into one IDAT chunk's
// data (libdeflate_deflate_compress_part, added to libdeflate by native/libdeflate-parts.patch:
// no final block, and a sync-flush marker so the next part starts on a byte boundary), and the
// last part ends the stream with zlib's Adler-32. Parts share no history, which costs about
// 0.3% against one whole-image call; the memory stays two buffers of the part's size.
//
// Why libdeflate and not zlib: on a 12 MP photo's filtered rows, zlib 1.2.13 at level 3 (libpng's
// usual choice for photos) took 3.7 times as long in WebAssembly as libdeflate at level 2, whose
// output is 5% smaller; on a 12 MP photo's palette indices zlib's level 6 took 5 times as long
// as libdeflate's 6, 1.6% larger.
//
// Each part chooses its level, so a photo with a flat background is deflated hard only where
// the background is. Photographic rows (filtered, under three quarters zeros, sampled) start at
// level 2, palette indices at 6. libdeflate's fast levels do badly on very redundant data (a
// gradient's filtered rows: twice zlib's size at level 3), where its level 9 is both fast (long
// matches) and smaller than zlib's 6: rows that filter to mostly zeros take 9 at once, and a part
// that shrank more than 8 times at its first level is compressed again at 9, the smaller kept.
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <libdeflate.h>
#include "png_sink.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

// Declared by native/libdeflate-parts.patch.
size_t libdeflate_deflate_compress_part(struct libdeflate_compressor *c, const void *in, size_t in_nbytes, void *out,
                                        size_t out_nbytes_avail, int last);

enum { LEVEL_PHOTO = 2, LEVEL_PALETTE = 6, LEVEL_FLAT = 9 };
#define PART_BYTES (256u << 10)
#define FLAT_ZERO_SHARE 0.75
#define REDUNDANT_RATIO 8 // photographic parts shrink 3 to 4.5 times at level 2
#define ZERO_SAMPLE_STEP 7 // coprime to every pixel size, so every channel is sampled
#define PART_MARKER 6      // the sync-flush marker after a part: up to 2 bytes of bits, LEN, NLEN

int pg_deflate_begin(PgDeflate *d, size_t row_bytes, int filtered, PgEmit *emit, void *ctx) {
  memset(d, 0, sizeof *d);
  d->filtered = filtered;
  d->emit = emit;
  d->ctx = ctx;
  d->cap = row_bytes + 1 > PART_BYTES ? row_bytes + 1 : PART_BYTES;
  d->in = malloc(d->cap);
  d->adler = adler32(0L, Z_NULL, 0);
  return d->in ? PG_OK : PG_NO_MEMORY;
}

// One stream uses at most two levels: the flat one, and photo or palette (filtered or not).
static struct libdeflate_compressor *compressor(PgDeflate *d, int level) {
  struct libdeflate_compressor **c = level == LEVEL_FLAT ? &d->flat : &d->first;
  if (!*c) *c = libdeflate_alloc_compressor(level);
  if (!*c) pg_fail(PG_NO_MEMORY);
  return *c;
}

// The level a part starts at.
static int first_level(const PgDeflate *d) {
  if (!d->filtered) return LEVEL_PALETTE;
  size_t zeros = 0, seen = 0;
  for (size_t i = 0; i < d->used; i += ZERO_SAMPLE_STEP, seen++) zeros += d->in[i] == 0;
  return zeros >= FLAT_ZERO_SHARE * seen ? LEVEL_FLAT : LEVEL_PHOTO;
}

// Both output buffers have room for `bytes`, the bound of a full part (always the same).
static uint8_t *output_buffer(uint8_t **buffer, size_t bytes) {
  if (!*buffer) *buffer = malloc(bytes);
  if (!*buffer) pg_fail(PG_NO_MEMORY);
  return *buffer;
}

// Compresses the gathered rows at `level` into `out` (room for `avail` bytes); the size written.
static size_t compress_part(PgDeflate *d, int level, uint8_t *out, size_t avail, int last) {
  // Every part holds at least one row (pg_deflate_room flushes before a row, never after).
  size_t n = libdeflate_deflate_compress_part(compressor(d, level), d->in, d->used, out, avail, last);
  if (n == 0) pg_fail(PG_ENCODE_FAILED);
  return n;
}

#ifdef __wasm_simd128__
static uint32_t sum_lanes(v128_t v) {
  return wasm_u32x4_extract_lane(v, 0) + wasm_u32x4_extract_lane(v, 1) + wasm_u32x4_extract_lane(v, 2) + wasm_u32x4_extract_lane(v, 3);
}
#endif

// zlib's Adler-32 of the rows, 16 bytes at a time with WebAssembly SIMD (zlib's own loop is a
// byte at a time: 4% of a photo's time). Over a block of 16-byte pieces p_k, s1 grows by every
// byte and s2 by 16 times s1 before each piece plus each piece's bytes weighted 16 down to 1.
static uint32_t adler32_rows(uint32_t adler, const uint8_t *p, size_t n) {
#ifdef __wasm_simd128__
  enum { MOD = 65521, BLOCK = 5536 }; // s1 * BLOCK stays far inside 32 bits
  const v128_t high_weights = wasm_i16x8_make(16, 15, 14, 13, 12, 11, 10, 9), low_weights = wasm_i16x8_make(8, 7, 6, 5, 4, 3, 2, 1);
  uint64_t s1 = adler & 0xffff, s2 = adler >> 16;
  while (n >= 16) {
    size_t block = n < BLOCK ? n / 16 * 16 : BLOCK;
    v128_t bytes = wasm_i32x4_splat(0), weighted = bytes, before = bytes;
    for (size_t i = 0; i < block; i += 16) {
      v128_t v = wasm_v128_load(p + i);
      before = wasm_i32x4_add(before, bytes);
      bytes = wasm_i32x4_add(bytes, wasm_u32x4_extadd_pairwise_u16x8(wasm_u16x8_extadd_pairwise_u8x16(v)));
      weighted = wasm_i32x4_add(weighted, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(v), high_weights),
                                                         wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(v), low_weights)));
    }
    s2 = (s2 + s1 * block + 16 * (uint64_t)sum_lanes(before) + sum_lanes(weighted)) % MOD;
    s1 = (s1 + sum_lanes(bytes)) % MOD;
    p += block, n -= block;
  }
  adler = (uint32_t)(s2 << 16 | s1);
#endif
  return (uint32_t)adler32(adler, p, (uInt)n);
}

// zlib's FLEVEL (0 fastest to 3 best) for a libdeflate level, as zlib maps its own.
static int flevel_of(int level) {
  return level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
}

// Compresses the gathered rows into one part of the stream and hands it out.
static void flush_part(PgDeflate *d, int last) {
  // Room for the zlib header, the part, the marker after it and the Adler-32 after the last.
  size_t bound = libdeflate_deflate_compress_bound(NULL, d->cap) + 2 + PART_MARKER + 4;
  uint8_t *out = output_buffer(&d->out, bound);
  size_t at = d->started ? 0 : 2;
  int level = first_level(d);
  size_t n = compress_part(d, level, out + at, bound - at - 4, last);
  if (level != LEVEL_FLAT && n * REDUNDANT_RATIO < d->used) {
    uint8_t *again = output_buffer(&d->again, bound);
    size_t m = compress_part(d, LEVEL_FLAT, again + at, bound - at - 4, last);
    if (m < n) { // the buffers trade places
      d->again = d->out, d->out = out = again;
      n = m, level = LEVEL_FLAT;
    }
  }
  if (!d->started) {
    // CMF: deflate with a 32 KB window; FLG: the first part's FLEVEL and the check bits.
    int cmf = 0x78, flg = flevel_of(level) << 6;
    flg |= 31 - (cmf * 256 + flg) % 31;
    out[0] = (uint8_t)cmf, out[1] = (uint8_t)flg;
    d->started = 1;
  }
  d->adler = adler32_rows(d->adler, d->in, d->used);
  at += n;
  if (last) {
    for (int k = 3; k >= 0; k--) out[at++] = (uint8_t)(d->adler >> (8 * k));
  }
  d->used = 0;
  d->emit(d->ctx, out, at);
}

uint8_t *pg_deflate_room(PgDeflate *d, size_t n) {
  if (d->used + n > d->cap) flush_part(d, 0);
  uint8_t *room = d->in + d->used;
  d->used += n;
  return room;
}

void pg_deflate_end(PgDeflate *d) {
  flush_part(d, 1);
}

void pg_deflate_free(PgDeflate *d) {
  libdeflate_free_compressor(d->first);
  libdeflate_free_compressor(d->flat);
  free(d->in);
  free(d->out);
  free(d->again);
  memset(d, 0, sizeof *d);
}
