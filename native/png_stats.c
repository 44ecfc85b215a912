// What the PNG writer must know about the whole image before writing a byte, gathered in one
// pass over the rows (in file order: none of it depends on where a pixel ends up):
// - whether any pixel is not opaque, whether every pixel is grey, and the distinct colours up to
//   256 in the order first seen: they choose the smallest exact layout (png_sink.c);
// - the colour histogram for palette quantization: per 5-bit-per-channel bin (4 bits of alpha
//   when the file can hold alpha) its pixel count and the sums of its pixels' channels, so the
//   palette entries are the means of the real pixels without a second look at them (the sums
//   are of each value's offset within its bin, so that they cannot overflow);
// - pairs of rows evenly spread over the image, from which the deflate level is chosen.
#include <stdlib.h>
#include <string.h>
#include "png_sink.h"

static int exact_slot(const PgStats *s, uint32_t word) {
  uint32_t h = (word * 2654435761u) >> 23; // 9 bits: 2 * PG_EXACT_MAX slots
  while (s->table[h] && s->exact[s->table[h] - 1] != word) h = (h + 1) & (2 * PG_EXACT_MAX - 1);
  return (int)h;
}

int pg_exact_index(const PgStats *s, uint32_t word) {
  uint32_t k = s->table[exact_slot(s, word)];
  return k ? (int)k - 1 : -1;
}

static void count_exact(PgStats *s, uint32_t word) {
  int slot = exact_slot(s, word);
  if (s->table[slot]) return;
  if (s->exact_count == PG_EXACT_MAX) {
    s->exact_count++; // more than fit a palette: stop looking
    return;
  }
  s->exact[s->exact_count++] = word;
  s->table[slot] = (uint32_t)s->exact_count;
}

// Copies row y into every level-sample slot it fills: slot 2k + 1 holds sample k's row, slot 2k
// the row above it (rows are evenly spread, as in the TypeScript encoder's deflateLevelFor).
static void keep_samples(PgStats *s, int y, const uint8_t *row, size_t row_bytes) {
  for (int k = 0; k < s->sample_rows; k++) {
    int at = (int)(((k + 0.5) * s->height) / s->sample_rows);
    if (y == at) memcpy(s->samples + (size_t)(2 * k + 1) * row_bytes, row, row_bytes);
    if (y == at - 1) memcpy(s->samples + (size_t)(2 * k) * row_bytes, row, row_bytes);
  }
}

// A photo shows in its first rows that it is in colour, opaque (when the file cannot hold alpha)
// and has more colours than a palette takes; without a histogram to fill, the rest of the pass
// only needs the level samples.
static int settled(const PgStats *s, const PgRows *rows) {
  return !s->bins && !s->gray && !rows->may_have_alpha && s->exact_count > PG_EXACT_MAX;
}

// The first row at or after y that a level sample needs (the image's height when none does).
static int next_sample_row(const PgStats *s, int y) {
  for (int k = 0; k < s->sample_rows; k++) {
    int at = (int)(((k + 0.5) * s->height) / s->sample_rows);
    if (at - 1 >= y) return at - 1;
    if (at >= y) return at;
  }
  return s->height;
}

static int gather(PgStats *s, PgRows *rows, int histogram, int binary) {
  memset(s, 0, sizeof *s);
  int status = pg_rows_start(rows, 0);
  if (status != PG_OK) return status;
  int w = s->width = rows->pass_width, h = s->height = rows->pass_height;
  s->gray = 1;
  s->binary_alpha = binary;
  s->alpha_bins = rows->may_have_alpha && !binary;
  s->sample_rows = h < PG_LEVEL_SAMPLES ? h : PG_LEVEL_SAMPLES;
  size_t row_bytes = (size_t)w * 4;
  s->samples = calloc((size_t)s->sample_rows * 2, row_bytes); // a sample at row 0 keeps a zero row above
  if (histogram) s->bins = calloc((size_t)5 << (s->alpha_bins ? 19 : 15), sizeof(uint32_t));
  if (!s->samples || (histogram && !s->bins)) return PG_NO_MEMORY;

  for (int y = 0; y < h; y++) {
    if (settled(s, rows)) {
      // Nothing left to learn but the level samples: go straight to the next one.
      int next = next_sample_row(s, y);
      if (next >= h) break;
      pg_rows_skip(rows, next - y);
      y = next;
    }
    const uint8_t *row = pg_rows_next(rows);
    keep_samples(s, y, row, row_bytes);
    for (int x = 0; x < w; x++) {
      uint8_t q[4];
      const uint8_t *p = binary ? pg_binary_pixel(row + 4 * x, q) : row + 4 * x;
      if (p[3] != 255) s->alpha = 1;
      if (p[0] != p[1] || p[0] != p[2]) s->gray = 0;
      uint32_t word = pg_canonical(p);
      if (s->exact_count <= PG_EXACT_MAX) count_exact(s, word);
      if (!s->bins) continue;
      if (p[3] == 0) {
        s->transparent++;
        continue;
      }
      uint32_t *bin = s->bins + (size_t)5 * pg_bin_of(p, s->alpha_bins);
      bin[0]++;
      // Each channel's sum is kept as offsets within the bin (the low 3 bits, 4 for alpha; an
      // alpha that is not binned is 255, offset 15): whole values overflow 32 bits once a bin
      // holds 16.8 million pixels, as a 24 MP scan's white paper does (pg_bin_base adds them back).
      bin[1] += p[0] & 7;
      bin[2] += p[1] & 7;
      bin[3] += p[2] & 7;
      bin[4] += p[3] & 15;
    }
  }
  pg_rows_stop(rows);
  return PG_OK;
}

int pg_stats_gather(PgStats *s, PgRows *rows, int histogram) { return gather(s, rows, histogram, 0); }
int pg_stats_gather_binary(PgStats *s, PgRows *rows) { return gather(s, rows, 1, 1); }

void pg_stats_free(PgStats *s) {
  free(s->bins);
  free(s->samples);
  s->bins = NULL;
  s->samples = NULL;
}
