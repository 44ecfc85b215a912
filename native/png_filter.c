// PNG row filtering: per row the filter with the smallest sum of absolute signed residuals,
// libpng's choice with all filters enabled (sharp's adaptiveFiltering).
//
// With WebAssembly SIMD (how the module is built) the five sums are taken over every byte of the
// row, 16 bytes at a time, as libpng does; then the winner is computed, 16 bytes at a time too. A
// residual depends only on raw bytes (the byte, its left neighbour, the byte above and the one
// above left), never on another residual, so the lanes are independent. Without SIMD, the sums
// are estimated on every 7th or 8th byte (a step coprime to the pixel size, so every channel is
// sampled): trying every filter on every byte one at a time cost more than deflate itself.
#include <stdlib.h>
#include "png_sink.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

static inline int cost(int residual) {
  int v = (int8_t)residual;
  return v < 0 ? -v : v;
}

// Whichever of a (left), b (above), c (above left) is closest to a + b - c; ties to a, then b.
static inline int paeth(int a, int b, int c) {
  int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - c - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

// Filter `type`'s prediction of a byte (None, Sub, Up, Average, Paeth); a = c = 0 in the
// first pixel of a row.
static inline int prediction(int type, int a, int b, int c) {
  switch (type) {
    case 0: return 0;
    case 1: return a;
    case 2: return b;
    case 3: return (a + b) >> 1;
    default: return paeth(a, b, c);
  }
}

#ifdef __wasm_simd128__
// paeth() on 8 lanes of 16 bits.
static inline v128_t paeth8(v128_t a, v128_t b, v128_t c) {
  v128_t bc = wasm_i16x8_sub(b, c), ac = wasm_i16x8_sub(a, c);
  v128_t pa = wasm_i16x8_abs(bc), pb = wasm_i16x8_abs(ac), pc = wasm_i16x8_abs(wasm_i16x8_add(bc, ac));
  v128_t use_a = wasm_v128_and(wasm_i16x8_le(pa, pb), wasm_i16x8_le(pa, pc));
  return wasm_v128_bitselect(a, wasm_v128_bitselect(b, c, wasm_i16x8_le(pb, pc)), use_a);
}

// prediction() of the 16 bytes at raw[i], i >= bpp.
static inline v128_t prediction16(int type, const uint8_t *raw, const uint8_t *prev, int i, int bpp) {
  v128_t a = wasm_v128_load(raw + i - bpp), b = wasm_v128_load(prev + i);
  switch (type) {
    case 0: return wasm_i8x16_splat(0);
    case 1: return a;
    case 2: return b;
    // floor((a + b) / 2): the rounding average less the bit it rounded up.
    case 3: return wasm_i8x16_sub(wasm_u8x16_avgr(a, b), wasm_v128_and(wasm_v128_xor(a, b), wasm_i8x16_splat(1)));
    default: {
      v128_t c = wasm_v128_load(prev + i - bpp);
      v128_t lo = paeth8(wasm_u16x8_extend_low_u8x16(a), wasm_u16x8_extend_low_u8x16(b), wasm_u16x8_extend_low_u8x16(c));
      v128_t hi = paeth8(wasm_u16x8_extend_high_u8x16(a), wasm_u16x8_extend_high_u8x16(b), wasm_u16x8_extend_high_u8x16(c));
      return wasm_u8x16_narrow_i16x8(lo, hi);
    }
  }
}

static inline v128_t residual16(int type, const uint8_t *raw, const uint8_t *prev, int i, int bpp) {
  return wasm_i8x16_sub(wasm_v128_load(raw + i), prediction16(type, raw, prev, i, bpp));
}

// Adds the five filters' costs over bytes [bpp, end), end - bpp a multiple of 16, to sums.
// Costs gather in 16-bit lanes (at most 256 per lane per block) and move to 32-bit ones every
// 128 blocks.
static void sums16(const uint8_t *raw, const uint8_t *prev, int end, int bpp, long sums[5]) {
  for (int i = bpp; i < end;) {
    v128_t lanes[5];
    for (int t = 0; t < 5; t++) lanes[t] = wasm_i16x8_splat(0);
    for (int k = 0; k < 128 && i < end; k++, i += 16) {
      // |signed byte| (abs of -128 reads back as 128 unsigned), paired up into 16-bit lanes.
      for (int t = 0; t < 5; t++) lanes[t] = wasm_i16x8_add(lanes[t], wasm_u16x8_extadd_pairwise_u8x16(wasm_i8x16_abs(residual16(t, raw, prev, i, bpp))));
    }
    for (int t = 0; t < 5; t++) {
      v128_t wide = wasm_u32x4_extadd_pairwise_u16x8(lanes[t]);
      sums[t] += (long)wasm_u32x4_extract_lane(wide, 0) + wasm_u32x4_extract_lane(wide, 1) + wasm_u32x4_extract_lane(wide, 2) +
                 wasm_u32x4_extract_lane(wide, 3);
    }
  }
}

// Filters bytes [bpp, end) with `type`, end - bpp a multiple of 16.
static inline void filter16(int type, const uint8_t *raw, const uint8_t *prev, int end, int bpp, uint8_t *o) {
  for (int i = bpp; i < end; i += 16) wasm_v128_store(o + i, residual16(type, raw, prev, i, bpp));
}
#endif

// Writes the filter type and the filtered row (n bytes) to out[0..n]; `prev` is the unfiltered
// row above (zeros for the first row).
void pg_filter_row(PgFilter *f, const uint8_t *raw, const uint8_t *prev, int n, uint8_t *out) {
  int bpp = f->bpp, head = bpp < n ? bpp : n;
  int step = n < 64 ? 1 : bpp == 3 ? 8 : 7, from = bpp + f->row % step;
  int done = head; // bytes from bpp on that are already filtered
  long sums[5] = {0, 0, 0, 0, 0};
#ifdef __wasm_simd128__
  // Whole 16-byte blocks from byte bpp on; the rest of the row byte by byte.
  done = n > bpp ? bpp + (n - bpp) / 16 * 16 : head;
  sums16(raw, prev, done, bpp, sums);
  from = done, step = 1;
#endif
  for (int i = from; i < n; i += step) {
    int x = raw[i], a = raw[i - bpp], b = prev[i], c = prev[i - bpp];
    for (int t = 0; t < 5; t++) sums[t] += cost(x - prediction(t, a, b, c));
  }
  int type = 0;
  for (int t = 1; t < 5; t++)
    if (sums[t] < sums[type]) type = t;
  f->row++;

  out[0] = (uint8_t)type;
  uint8_t *o = out + 1;
#ifdef __wasm_simd128__
  switch (type) { // constant types, so each loop is compiled for its filter
    case 0: filter16(0, raw, prev, done, bpp, o); break;
    case 1: filter16(1, raw, prev, done, bpp, o); break;
    case 2: filter16(2, raw, prev, done, bpp, o); break;
    case 3: filter16(3, raw, prev, done, bpp, o); break;
    default: filter16(4, raw, prev, done, bpp, o); break;
  }
#endif
  for (int i = 0; i < head; i++) o[i] = (uint8_t)(raw[i] - prediction(type, 0, prev[i], 0));
  for (int i = done; i < n; i++) o[i] = (uint8_t)(raw[i] - prediction(type, raw[i - bpp], prev[i], prev[i - bpp]));
}
