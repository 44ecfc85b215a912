// PNG row filtering, the same heuristic as the TypeScript encoder (src/codecs/png-filter.ts):
// per row the filter with the smallest sum of absolute signed residuals, libpng's choice with
// all filters enabled, except that the five sums are estimated on every 7th or 8th byte of the
// row (a step coprime to the pixel size, so every channel is sampled) and only the winner is
// computed in full. Trying every filter on every byte cost more than deflate itself.
#include <stdlib.h>
#include "png_sink.h"

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

// Writes the filter type and the filtered row (n bytes) to out[0..n]; `prev` is the unfiltered
// row above (zeros for the first row).
void pg_filter_row(PgFilter *f, const uint8_t *raw, const uint8_t *prev, int n, uint8_t *out) {
  int bpp = f->bpp;
  int step = n < 64 ? 1 : bpp == 3 ? 8 : 7;
  long sums[5] = {0, 0, 0, 0, 0};
  for (int i = bpp + f->row % step; i < n; i += step) {
    int x = raw[i], a = raw[i - bpp], b = prev[i], c = prev[i - bpp];
    sums[0] += cost(x);
    sums[1] += cost(x - a);
    sums[2] += cost(x - b);
    sums[3] += cost(x - ((a + b) >> 1));
    sums[4] += cost(x - paeth(a, b, c));
  }
  int type = 0;
  for (int t = 1; t < 5; t++)
    if (sums[t] < sums[type]) type = t;
  f->row++;

  out[0] = (uint8_t)type;
  uint8_t *o = out + 1;
  int head = bpp < n ? bpp : n;
  switch (type) {
    case 0:
      for (int i = 0; i < n; i++) o[i] = raw[i];
      break;
    case 1:
      for (int i = 0; i < head; i++) o[i] = raw[i];
      for (int i = bpp; i < n; i++) o[i] = (uint8_t)(raw[i] - raw[i - bpp]);
      break;
    case 2:
      for (int i = 0; i < n; i++) o[i] = (uint8_t)(raw[i] - prev[i]);
      break;
    case 3:
      for (int i = 0; i < head; i++) o[i] = (uint8_t)(raw[i] - (prev[i] >> 1));
      for (int i = bpp; i < n; i++) o[i] = (uint8_t)(raw[i] - ((raw[i - bpp] + prev[i]) >> 1));
      break;
    default:
      for (int i = 0; i < head; i++) o[i] = (uint8_t)(raw[i] - prev[i]);
      for (int i = bpp; i < n; i++) o[i] = (uint8_t)(raw[i] - paeth(raw[i - bpp], prev[i], prev[i - bpp]));
      break;
  }
}
