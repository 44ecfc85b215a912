// A lossy WebP's alpha plane (its ALPH chunk) a row at a time, where libwebp's decoder holds the
// whole plane (and, for a lossless stream, another copy of it, or a whole ARGB image).
//
// The chunk's first byte: compression (0 raw, 1 VP8L), the container's filter (none,
// horizontal, vertical, gradient), a pre-processing hint (only for decoders that smooth
// quantised levels, which libwebp does not by default, so it is ignored here as there) and two
// reserved bits that must be 0. A VP8L stream carries the alpha in its green channel. The
// filters predict each sample from its left, top or both neighbours (the first row from the
// left, its first sample from 0; the first column from above) and store the difference.
#include <stdlib.h>
#include <string.h>
#include "pixelgate.h"
#include "vp8l.h"

enum { RAW = 0, LOSSLESS = 1 };
enum { NO_FILTER = 0, HORIZONTAL = 1, VERTICAL = 2, GRADIENT = 3 };

struct PgAlphaRows {
  int width, height, filter, next;
  const uint8_t *raw; // raw samples, when not VP8L
  PgVp8l *stream;
  uint8_t *rows;      // two rows: the one handed out and the one before it
};

static void unfilter(int filter, const uint8_t *above, const uint8_t *in, uint8_t *out, int width) {
  if (filter == NO_FILTER) {
    memcpy(out, in, (size_t)width);
    return;
  }
  if (!above || filter == HORIZONTAL) {
    uint8_t left = above ? above[0] : 0;
    for (int x = 0; x < width; x++) out[x] = left = (uint8_t)(left + in[x]);
    return;
  }
  if (filter == VERTICAL) {
    for (int x = 0; x < width; x++) out[x] = (uint8_t)(above[x] + in[x]);
    return;
  }
  int left = above[0], top_left = above[0]; // the first column predicts from above
  for (int x = 0; x < width; x++) {
    int guess = left + above[x] - top_left;
    guess = guess < 0 ? 0 : guess > 255 ? 255 : guess;
    out[x] = (uint8_t)(in[x] + guess);
    left = out[x];
    top_left = above[x];
  }
}

int pg_alpha_open(PgAlphaRows **out, const uint8_t *data, size_t size, int width, int height) {
  *out = NULL;
  if (size <= 1) return PG_INVALID;
  int method = data[0] & 3, filter = data[0] >> 2 & 3, pre = data[0] >> 4 & 3;
  if (method > LOSSLESS || pre > 1 || data[0] >> 6) return PG_INVALID;
  if (method == RAW && size - 1 < (size_t)width * height) return PG_INVALID;
  PgAlphaRows *a = calloc(1, sizeof *a);
  if (!a) return PG_NO_MEMORY;
  *a = (PgAlphaRows){width, height, filter, 0, method == RAW ? data + 1 : NULL, NULL, malloc(2 * (size_t)width)};
  int status = a->rows ? PG_OK : PG_NO_MEMORY;
  if (status == PG_OK && method == LOSSLESS) status = pg_vp8l_open_stream(&a->stream, data + 1, size - 1, width, height);
  if (status != PG_OK) pg_alpha_free(a);
  else *out = a;
  return status;
}

const uint8_t *pg_alpha_row(PgAlphaRows *a, int *status) {
  uint8_t *row = a->rows + (size_t)(a->next & 1) * a->width;
  const uint8_t *above = a->next ? a->rows + (size_t)(~a->next & 1) * a->width : NULL;
  *status = PG_OK;
  if (a->next >= a->height) *status = PG_INVALID;
  else if (a->raw) {
    unfilter(a->filter, above, a->raw + (size_t)a->next * a->width, row, a->width);
  } else {
    const uint32_t *argb = pg_vp8l_row(a->stream, status);
    if (!argb) return NULL;
    for (int x = 0; x < a->width; x++) row[x] = (uint8_t)(argb[x] >> 8); // green: filtered in place
    unfilter(a->filter, above, row, row, a->width);
  }
  if (*status != PG_OK) return NULL;
  a->next++;
  return row;
}

void pg_alpha_free(PgAlphaRows *a) {
  if (!a) return;
  pg_vp8l_free(a->stream);
  free(a->rows);
  free(a);
}
